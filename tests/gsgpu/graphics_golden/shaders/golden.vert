#version 450
// The pass-through vertex stage of gsgpu's stand-ins: position = attribute 0, the colours are passed
// on unchanged, once per interpolation the fragment shaders may pick.
layout(location = 0) in vec4 in_position;
layout(location = 1) in vec4 in_color;
layout(location = 2) in vec4 in_color1;

layout(location = 0) out vec4 smooth_color;
layout(location = 1) out vec4 smooth_color1;
layout(location = 2) noperspective out vec4 linear_color;
layout(location = 3) noperspective out vec4 linear_color1;
layout(location = 4) flat out vec4 flat_color;
layout(location = 5) flat out vec4 flat_color1;

#ifdef POINTS
// Point lists must write PointSize; the pipeline specializes it to the scene's size.
layout(constant_id = 0) const float kPointSize = 1.0;
#endif

void main() {
  gl_Position = in_position;
#ifdef POINTS
  gl_PointSize = kPointSize;
#endif
  smooth_color = in_color;
  smooth_color1 = in_color1;
  linear_color = in_color;
  linear_color1 = in_color1;
  flat_color = in_color;
  flat_color1 = in_color1;
}
