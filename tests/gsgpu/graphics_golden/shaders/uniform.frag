#version 450
// Horizontal bands of the provoking vertex's table colour and a table colour the buffer picks.
layout(set = 0, binding = 0) uniform Parameters {
  mat4 transform;
  vec4 colors[3];
  ivec4 pick;
} parameters;
layout(location = 1) flat in vec4 flat_color;
layout(location = 0) out vec4 out_color;

void main() {
  int band = int(gl_FragCoord.y) / parameters.pick.x;
  out_color = (band & 1) == 0 ? flat_color : parameters.colors[parameters.pick.y];
}
