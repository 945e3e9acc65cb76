#version 450
// textureLod on a shadow sampler (OpImageSampleDrefExplicitLod): level push.tint.z, the reference
// push.tint.x, the coordinates from the vertex colour (shadow_sampler_test.cc).
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(set = 0, binding = 0) uniform sampler2DShadow shadow;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  float lit = textureLod(shadow, vec3(v_color.rg, push.tint.x), push.tint.z);
  out_color = vec4(lit, 1.0 - lit, 0.25, 1.0);
}
