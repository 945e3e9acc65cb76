#version 450
// Transform feedback's forms (shader_codegen_test.cc): gl_Position as a gl_PerVertex member, a vec3
// at a Location and a float at Location 1 Component 2 (zink splits outputs into components like
// this), into two buffers.
layout(location = 0) in vec4 position;
layout(xfb_buffer = 0, xfb_stride = 28) out gl_PerVertex {
  layout(xfb_offset = 0) vec4 gl_Position;
};
layout(location = 2, xfb_buffer = 0, xfb_offset = 16) out vec3 normal;
layout(location = 1, component = 2, xfb_buffer = 2, xfb_offset = 8, xfb_stride = 12) out float fog;
layout(location = 0) out vec4 not_captured;
void main() {
  gl_Position = position;
  normal = position.zyx;
  fog = position.w * 2.0;
  not_captured = position;
}
