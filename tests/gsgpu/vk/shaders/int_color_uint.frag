#version 450
// Integer render targets (integer_target_test.cc): draw_color.frag's interface, an unsigned
// integer output. Each word is an exact function of the pixel (gl_FragCoord is the pixel centre)
// and the flat-shaded colour's bytes, with high bits set so some words are NaN patterns as floats.
layout(location = 0) in vec4 v_color;
layout(location = 0) out uvec4 out_color;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uvec4 c = uvec4(round(v_color * 255.0));
  out_color = uvec4((p.x << 24) | (p.y << 16) | (c.r << 8) | c.g, 0xFFFFFF00u | c.b, 0x7FC00000u + p.x * 977u + p.y,
                    0x80000000u | (c.a << 20) | (p.x * p.y));
}
