#version 450
// An array of four combined image samplers (set 0, binding 0; texture_array_test.cc): push.tint.y
// 0 reads elements 1 and 2 with constant indices (red, green from 1; blue, alpha from 2), 1 reads
// element int(push.tint.x), a dynamically uniform index.
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(set = 0, binding = 0) uniform sampler2D textures[4];
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  vec2 uv = v_color.rg;
  if (push.tint.y > 0.5) {
    out_color = texture(textures[int(push.tint.x)], uv);
  } else {
    out_color = vec4(texture(textures[1], uv).rg, texture(textures[2], uv).ba);
  }
}
