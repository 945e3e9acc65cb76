#version 450
// gsgpu's fragment stand-ins: SHADING 0 constant colour (push constants), 1 perspective-correct,
// 2 no-perspective, 3 flat interpolated colour; DUAL 1 adds the second (dual-source) output.
layout(push_constant) uniform Constants {
  vec4 color;
  vec4 color1;
} constants;

#if SHADING == 1
layout(location = 0) in vec4 in_color;
layout(location = 1) in vec4 in_color1;
#elif SHADING == 2
layout(location = 2) noperspective in vec4 in_color;
layout(location = 3) noperspective in vec4 in_color1;
#elif SHADING == 3
layout(location = 4) flat in vec4 in_color;
layout(location = 5) flat in vec4 in_color1;
#endif

layout(location = 0, index = 0) out vec4 out_color;
#if DUAL
layout(location = 0, index = 1) out vec4 out_color1;
#endif

void main() {
#if SHADING == 0
  out_color = constants.color;
#if DUAL
  out_color1 = constants.color1;
#endif
#else
  out_color = in_color;
#if DUAL
  out_color1 = in_color1;
#endif
#endif
}
