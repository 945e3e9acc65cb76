#version 450
// A checkerboard from gl_FragCoord (if / else), stripes counted by a loop, a round hole by discard,
// the flat colour, a palette indexed at run time and a depth export: every value is exact, so both
// renderers must agree bit for bit.
layout(location = 1) flat in vec4 flat_color;
layout(location = 3) flat in int index;
layout(location = 0) out vec4 out_color;

void main() {
  ivec2 cell = ivec2(gl_FragCoord.xy) / 8;
  int stripes = 0;
  for (int i = 0; i <= cell.x; ++i) {
    if ((i & 1) == 0) stripes += 1;
  }
  vec2 d = gl_FragCoord.xy - vec2(32.0, 24.0);
  if (dot(d, d) < 40.0) discard;
  vec4 palette[3] = vec4[3](vec4(20.0, 40.0, 60.0, 255.0) / 255.0, vec4(60.0, 20.0, 40.0, 255.0) / 255.0,
                            vec4(40.0, 60.0, 20.0, 255.0) / 255.0);
  vec4 c;
  if (((cell.x + cell.y) & 1) == 0) {
    c = palette[cell.y % 3];
  } else {
    c = vec4(float(stripes * 30 + index % 5) / 255.0, flat_color.g, flat_color.b, 1.0);
  }
  out_color = c;
  gl_FragDepth = float(stripes) / 8.0;
}
