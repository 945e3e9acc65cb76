#version 450
// GLSL.std.450 and derivatives on interpolated values: rings from length(), smoothstep, mix, pow,
// fract, clamp, reflect and normalize, a loop with a break, a discard and a computed depth. Compared
// by the metric (both renderers round differently inside these functions).
layout(location = 0) in vec4 smooth_color;
layout(location = 2) noperspective in vec2 uv;
layout(location = 0) out vec4 out_color;

void main() {
  vec2 p = uv * 2.0 - 1.0;
  float r = length(p);
  float rings = smoothstep(0.4, 0.6, fract(r * 4.0));
  vec3 n = normalize(vec3(p, 1.0));
  vec3 l = reflect(vec3(0.0, 0.0, -1.0), n);
  float glow = 0.0;
  for (int i = 0; i < 8; ++i) {
    if (float(i) > r * 8.0) break;
    glow += 0.0625;
  }
  if (abs(p.x) < 0.05 && abs(p.y) < 0.05) discard;
  vec3 c = mix(smooth_color.rgb, vec3(rings), 0.5) * clamp(l.z, 0.0, 1.0);
  c = pow(c, vec3(0.8)) + glow * 0.25 + vec3(fwidth(uv.x) * 8.0);
  out_color = vec4(clamp(c, 0.0, 1.0), 1.0);
  gl_FragDepth = clamp(r * 0.5, 0.0, 1.0);
}
