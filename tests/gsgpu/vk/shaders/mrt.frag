#version 450
// Four colour outputs (Locations 0..3) for the several-colour-attachment tests: the interpolated
// colour times the tint, the colour swizzled, its complement, and the pixel position with a value
// chosen by the colour (exact in float targets: interpolation's last bits are not Vulkan's to fix).
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out0;
layout(location = 1) out vec4 out1;
layout(location = 2) out vec4 out2;
layout(location = 3) out vec4 out3;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  out0 = v_color * push.tint;
  out1 = v_color.bgra;
  out2 = vec4(1.0) - v_color;
  out3 = vec4(gl_FragCoord.xy / 64.0, v_color.r > 0.5 ? 1.0 : 0.25, 0.75);
}
