#version 450
// A vertex shader without vertex inputs: positions and colours chosen by gl_VertexIndex (which
// includes firstVertex), as full-screen passes and vkcube's shaders do.
layout(location = 0) out vec4 v_color;
void main() {
  const vec2 positions[3] = vec2[](vec2(-0.7, -0.8), vec2(0.8, -0.2), vec2(-0.3, 0.9));
  const vec4 colors[3] = vec4[](vec4(1, 0, 0, 1), vec4(0, 1, 0, 1), vec4(0, 0, 1, 1));
  gl_Position = vec4(positions[gl_VertexIndex % 3], 0.5, 1.0);
  v_color = colors[gl_VertexIndex % 3];
}
