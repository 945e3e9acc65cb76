#version 450
// A spot light's attenuation as Mesa's fixed-function lighting computes it (and zink passes it on
// in SPIR-V): (inside the cone ? 1 : 0) * exp2(exponent * log2(|spot|)), spot the cosine between
// the light's direction and the vertex (here the colour's red), the exponent and the cone's cosine
// from the push constant (x, y); the result lights the red channel over an ambient 0.2
// (spot_attenuation_test.cc).
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  float spot = v_color.r;
  float inside = push.tint.y < spot ? 1.0 : 0.0;
  float attenuation = inside * exp2(log2(abs(spot)) * push.tint.x);
  out_color = vec4(0.2 + attenuation, 0.2, 0.2, 1.0);
}
