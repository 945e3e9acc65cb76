#version 450
// Transform feedback of gl_ClipDistance (shader_codegen_test.cc): element 0 is captured from the
// device's slot 69 (the first clip distance), after the position.
layout(location = 0) in vec4 position;
layout(xfb_buffer = 0, xfb_stride = 20) out gl_PerVertex {
  layout(xfb_offset = 0) vec4 gl_Position;
  layout(xfb_offset = 16) float gl_ClipDistance[1];
};
void main() {
  gl_Position = position;
  gl_ClipDistance[0] = position.x;
}
