#version 450
// draw_color.frag with a flat colour: every fragment takes the provoking vertex's colour
// (provoking_vertex_test.cc).
layout(location = 0) flat in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  out_color = v_color * push.tint;
}
