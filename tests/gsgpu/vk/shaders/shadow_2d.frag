#version 450
// A shadow sampler (shadow_sampler_test.cc): texture(sampler2DShadow, (u, v, reference)), the
// coordinates from the vertex colour's red and green, the reference push.tint.x; with push.tint.y
// != 0, textureProj with q = 1 + 3 * v_color.b (OpImageSampleProjDrefImplicitLod).
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(set = 0, binding = 0) uniform sampler2DShadow shadow;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  float lit;
  if (push.tint.y != 0.0) {
    float q = 1.0 + 3.0 * v_color.b;
    lit = textureProj(shadow, vec4(v_color.rg * q, push.tint.x * q, q));
  } else {
    lit = texture(shadow, vec3(v_color.rg, push.tint.x));
  }
  out_color = vec4(lit, 1.0 - lit, 0.25, 1.0);
}
