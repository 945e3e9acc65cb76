#version 450
// A textured quad: position and texture coordinate per vertex (texture_draw_test.cc).
layout(location = 0) in vec2 position;
layout(location = 1) in vec2 uv_in;
layout(location = 0) out vec2 uv;
void main() {
  uv = uv_in;
  gl_Position = vec4(position, 0.5, 1.0);
}
