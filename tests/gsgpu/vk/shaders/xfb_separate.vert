#version 450
// Transform feedback (tests/gsgpu/vk/xfb_test.cc): the position into buffer 1 (16 bytes a vertex),
// the colour's red and green and a computed value into buffer 3 at bytes 4..15 of 20 (bytes 0..3
// and 16..19 of each vertex are not written); blue and alpha are not captured.
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
layout(location = 1, xfb_buffer = 3, xfb_offset = 4, xfb_stride = 20) out vec2 captured_rg;
layout(location = 2, xfb_buffer = 3, xfb_offset = 12) out float captured_sum;
layout(xfb_buffer = 1, xfb_stride = 16) out gl_PerVertex {
  layout(xfb_offset = 0) vec4 gl_Position;
  float gl_PointSize;
};
void main() {
  gl_Position = vec4(position, 1.0);
  gl_PointSize = 1.0;
  v_color = color;
  captured_rg = color.rg;
  captured_sum = position.x + position.y + color.b;
}
