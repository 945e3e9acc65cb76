#version 450
// A uniform buffer (set 0, binding 0, std140) read by both stages: a transform, a colour table indexed
// at run time and integer parameters.
layout(set = 0, binding = 0) uniform Parameters {
  mat4 transform;
  vec4 colors[3];
  ivec4 pick;  // x: band height in pixels, y: the colour of the odd bands
} parameters;
layout(location = 0) in vec4 in_position;
layout(location = 1) flat out vec4 flat_color;

void main() {
  gl_Position = parameters.transform * in_position;
  flat_color = parameters.colors[gl_VertexIndex % 3];
}
