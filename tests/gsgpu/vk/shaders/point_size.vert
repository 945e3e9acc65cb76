#version 450
// draw_color.vert's interface with gl_PointSize from the position's w slot: the draw tests' vertex
// z carries the size (point_size_test.cc), the depth is 0.5.
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
void main() {
  gl_Position = vec4(position.xy, 0.5, 1.0);
  gl_PointSize = position.z;
  v_color = color;
}
