#version 450
// Every matrix instruction: matrix x vector, vector x matrix, matrix x matrix, matrix x scalar,
// transpose, outer product, and a matrix read column by column with a run-time index.
layout(location = 0) in vec4 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 0) out vec3 normal;

void main() {
  mat4 m = mat4(1.0) * 0.5;
  mat3 n = transpose(mat3(m)) * outerProduct(in_normal, vec3(1.0, 2.0, 3.0));
  vec4 p = in_position * transpose(m * m);
  normal = n[gl_VertexIndex % 3] + in_normal * n;
  gl_Position = p;
}
