#version 450
// Texel offsets (ConstOffset) with the four forms the push constant selects (texture_offset_test.cc):
// uv = v_color.rg * 1.5 - 0.25 reaches past the image on every side, so each wrap mode shows.
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(set = 0, binding = 0) uniform sampler2D image;
layout(push_constant) uniform Push {
  vec4 tint;  // x: the form, y: the explicit LOD / fetch level
} push;
void main() {
  const vec2 uv = v_color.rg * 1.5 - 0.25;
  const int form = int(push.tint.x);
  if (form == 0) {
    out_color = textureOffset(image, uv, ivec2(-8, 7));
  } else if (form == 1) {
    out_color = textureOffset(image, uv, ivec2(3, -2));
  } else if (form == 2) {
    out_color = textureLodOffset(image, uv, push.tint.y, ivec2(-1, 2));
  } else {
    // Level tint.y of a 16 x 16 image, coordinates 3 .. 6 plus (1, -3): always inside levels 0 and 1.
    const ivec2 p = ivec2(clamp(v_color.rg, 0.0, 1.0) * 3.99) + 3;
    out_color = texelFetchOffset(image, p, int(push.tint.y), ivec2(1, -3));
  }
}
