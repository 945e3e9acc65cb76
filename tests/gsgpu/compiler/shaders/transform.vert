#version 450
// A vertex shader with a model-view-projection built from constants through a called function,
// matrix products, varyings of every interpolation and the vertex / instance index built-ins.
layout(location = 0) in vec4 in_position;
layout(location = 1) in vec4 in_color;
layout(location = 0) out vec4 color;
layout(location = 1) noperspective out vec2 uv;
layout(location = 2) flat out int index;

mat4 rotation_z(float angle) {
  float c = cos(angle), s = sin(angle);
  return mat4(c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);
}

void main() {
  mat4 scale = mat4(vec4(0.8, 0, 0, 0), vec4(0, 0.8, 0, 0), vec4(0, 0, 1, 0), vec4(0, 0, 0, 1));
  mat4 mvp = rotation_z(0.25) * scale;
  gl_Position = mvp * in_position;
  color = in_color;
  uv = in_position.xy * 0.5 + 0.5;
  index = gl_VertexIndex + 100 * gl_InstanceIndex;
}
