#version 450
// Golden scenes of compiled shaders (docs/graphics.md "Golden images"): a model-view-projection
// matrix built in the shader, through a called function, times the position; the colour passed on
// smooth and flat, a no-perspective coordinate and the vertex / instance index.
// ROTATE 0: an exact transform (entries of few bits, so both renderers compute the same positions);
// 1: a rotation from sin / cos and a perspective divide.
layout(location = 0) in vec4 in_position;
layout(location = 1) in vec4 in_color;
layout(location = 0) out vec4 smooth_color;
layout(location = 1) flat out vec4 flat_color;
layout(location = 2) noperspective out vec2 uv;
layout(location = 3) flat out int index;

mat4 model_view_projection() {
#if ROTATE
  float c = cos(0.3), s = sin(0.3);
  mat4 rotation = mat4(c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
  mat4 perspective = mat4(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0.5, 0.25, 0, 0, 0.25, 1);
  return perspective * rotation;
#else
  mat4 scale = mat4(0.75, 0, 0, 0, 0, 0.75, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
  mat4 translate = mat4(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.125, -0.0625, 0, 1);
  return translate * scale;
#endif
}

void main() {
#if ROTATE
  gl_Position = in_position * transpose(model_view_projection());  // vector x matrix, transposed
#else
  gl_Position = model_view_projection() * in_position;
#endif
  smooth_color = in_color;
  flat_color = in_color;
  uv = in_position.xy * 0.5 + 0.5;
  index = gl_VertexIndex + 3 * gl_InstanceIndex;
}
