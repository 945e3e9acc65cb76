#version 450
// noperspective_clip_test.cc: a colour without perspective on vertices of different w. w comes from
// the colour's alpha (w = 0.5 + 3 a) and scales the position (the same place on screen), and
// gl_ClipDistance[0] = (x + 0.35) w cuts the triangle at x = -0.35 in normalised coordinates.
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 0) noperspective out vec4 v_color;
out gl_PerVertex {
  vec4 gl_Position;
  float gl_ClipDistance[1];
};
void main() {
  float w = 0.5 + 3.0 * color.a;
  gl_Position = vec4(position * w, w);
  gl_ClipDistance[0] = (position.x + 0.35) * w;
  v_color = vec4(color.rgb, 1.0);
}
