#version 450
// Integer render targets (integer_target_test.cc): draw_color.frag's interface, a signed integer
// output: negative words, words of every sign bit, from the pixel and the colour's bytes.
layout(location = 0) in vec4 v_color;
layout(location = 0) out ivec4 out_color;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  ivec4 c = ivec4(round(v_color * 255.0));
  out_color = ivec4(-1 - p.x * 65536 - p.y, c.r - 256, -2147483647 + c.g * p.x, (c.b << 24) | (c.a << 8) | p.y);
}
