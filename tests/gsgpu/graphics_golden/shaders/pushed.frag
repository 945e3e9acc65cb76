#version 450
// Vertical stripes of the push-constant tint and the flat colour (exact values).
layout(push_constant) uniform Constants {
  mat4 transform;
  vec4 tint;
  int stripe_width;
} constants;
layout(location = 1) flat in vec4 flat_color;
layout(location = 0) out vec4 out_color;

void main() {
  int stripe = int(gl_FragCoord.x) / constants.stripe_width;
  out_color = (stripe & 1) == 0 ? constants.tint : flat_color;
}
