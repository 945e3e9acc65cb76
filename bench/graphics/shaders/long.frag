#version 450
// A long fragment shader: 64 dependent iterations of arithmetic per pixel (about 6 operations each).
layout(push_constant) uniform Push { vec4 colour; } push;
layout(location = 0) out vec4 result;
void main() {
  vec2 q = gl_FragCoord.xy * (1.0 / 256.0);
  float a = q.x, b = q.y;
  for (int i = 0; i < 64; ++i) {
    a = fract(a * 1.37 + b);
    b = b * 0.93 + a * 0.11;
  }
  result = vec4(a, b, a * b, 1.0) * push.colour;
}
