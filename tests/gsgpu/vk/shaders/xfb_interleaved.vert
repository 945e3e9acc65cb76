#version 450
// Transform feedback (tests/gsgpu/vk/xfb_test.cc): draw_color.vert's interface, with the position
// (a gl_PerVertex member) and the colour captured interleaved into buffer 0, 32 bytes a vertex.
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(xfb_buffer = 0, xfb_stride = 32) out;
layout(location = 0, xfb_buffer = 0, xfb_offset = 16) out vec4 v_color;
out gl_PerVertex {
  layout(xfb_buffer = 0, xfb_offset = 0) vec4 gl_Position;
  float gl_PointSize;
};
void main() {
  gl_Position = vec4(position, 1.0);
  gl_PointSize = 1.0;
  v_color = color;
}
