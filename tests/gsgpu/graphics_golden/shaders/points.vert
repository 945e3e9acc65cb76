#version 450
// Point sprites sized by the shader: gl_PointSize from the vertex index (slot 68 on gsgpu).
layout(location = 0) in vec4 in_position;
layout(location = 1) in vec4 in_color;
layout(location = 1) flat out vec4 flat_color;

void main() {
  gl_Position = in_position;
  gl_PointSize = float(1 + 2 * (gl_VertexIndex % 4));
  flat_color = in_color;
}
