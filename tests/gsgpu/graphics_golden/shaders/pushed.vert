#version 450
// Push constants in both stages: the transform and the fragment shader's tint and stripe width come
// from vkCmdPushConstants on lavapipe and from SHADER_STATE's constant buffer on gsgpu.
layout(push_constant) uniform Constants {
  mat4 transform;
  vec4 tint;
  int stripe_width;
} constants;
layout(location = 0) in vec4 in_position;
layout(location = 1) in vec4 in_color;
layout(location = 1) flat out vec4 flat_color;

void main() {
  gl_Position = constants.transform * in_position;
  flat_color = in_color;
}
