#version 450
// textureGrad with constant gradients from the push constant: d/dx = push.tint.xy, d/dy =
// push.tint.zw, the coordinates from the vertex colour (texture_grad_test.cc).
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(set = 0, binding = 0) uniform sampler2D image;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() { out_color = textureGrad(image, v_color.rg, push.tint.xy, push.tint.zw); }
