#version 450
// The draw tests' fragment shader: the interpolated colour times a tint from push constants (the
// driver's constant buffer, docs/compiler.md "Constant buffer").
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  out_color = v_color * push.tint;
}
