#version 450
// texelFetch of a multisampled image (sampler2DMS): a constant sample index and one computed per
// fragment, each read by v_image_load with the index in the level's channel.
layout(set = 0, binding = 0) uniform sampler2DMS samples;
layout(location = 0) out vec4 color;
void main() {
  const ivec2 p = ivec2(gl_FragCoord.xy);
  color = texelFetch(samples, p, 2) + texelFetch(samples, p, p.x & 3);
}
