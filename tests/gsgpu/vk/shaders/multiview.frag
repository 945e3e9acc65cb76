#version 450
#extension GL_EXT_multiview : require
// The multiview test's fragment shader: view 0 the interpolated colour, any other view its
// complement, times draw_color.frag's push-constant tint.
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  vec4 c = gl_ViewIndex == 0 ? v_color : vec4(1.0 - v_color.rgb, 1.0);
  out_color = c * push.tint;
}
