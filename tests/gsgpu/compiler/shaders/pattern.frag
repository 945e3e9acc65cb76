#version 450
// A fragment shader of structured control flow: a checkerboard from gl_FragCoord (if / else), a
// loop, discard, a depth export, GLSL.std.450 functions and derivatives.
layout(location = 0) in vec4 color;
layout(location = 1) noperspective in vec2 uv;
layout(location = 2) flat in int index;
layout(location = 0) out vec4 out_color;

void main() {
  ivec2 cell = ivec2(floor(gl_FragCoord.xy / 8.0));
  vec3 c = color.rgb;
  if (((cell.x + cell.y) & 1) == 0) c = c * 0.5; else c = vec3(1.0) - c;
  float acc = 0.0;
  for (int i = 0; i < 4; ++i) acc += fract(uv.x * float(i + 1)) * 0.25;
  if (length(uv - vec2(0.5)) < 0.1) discard;
  float d = abs(dFdx(uv.x)) + smoothstep(0.0, 1.0, acc);
  out_color = vec4(mix(c, vec3(acc), 0.25), gl_FrontFacing ? 1.0 : 0.5);
  gl_FragDepth = clamp(d * 0.5, 0.0, 1.0) + float(index & 0);
}
