#version 450
// Transform feedback of gl_ClipDistance (tests/gsgpu/vk/xfb_test.cc): draw_color.vert's interface,
// the position and two clip distances captured into buffer 0, 24 bytes a vertex. The distances are
// positive over the scene (nothing is clipped), so the frames compare bit for bit.
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
layout(xfb_buffer = 0, xfb_stride = 24) out gl_PerVertex {
  layout(xfb_offset = 0) vec4 gl_Position;
  layout(xfb_offset = 16) float gl_ClipDistance[2];
};
void main() {
  gl_Position = vec4(position, 1.0);
  gl_ClipDistance[0] = position.x + 2.0;
  gl_ClipDistance[1] = 3.0 - 0.5 * position.y;
  v_color = color;
}
