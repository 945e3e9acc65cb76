#version 450
// texelFetch of one sample of a multisampled colour image (sampler2DMS) at the fragment's pixel:
// the sample index is push.tint.x (docs/vulkan-driver.md "Multisampling").
layout(set = 0, binding = 0) uniform sampler2DMS samples;
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  out_color = texelFetch(samples, ivec2(gl_FragCoord.xy), int(push.tint.x));
}
