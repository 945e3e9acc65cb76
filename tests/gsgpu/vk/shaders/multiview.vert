#version 450
#extension GL_EXT_multiview : require
// The multiview test's vertex shader (render_pass_ext_test.cc): draw_color.vert's inputs, the
// triangle moved right by 0.4 per view, so each layer shows where its view index reached the
// vertex stage.
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
void main() {
  gl_Position = vec4(position.x + 0.4 * float(gl_ViewIndex), position.yz, 1.0);
  v_color = color;
}
