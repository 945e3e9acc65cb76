#version 450
// draw_ubo.vert's interface with a uniform block in the scalar layout (VK_EXT_scalar_block_layout):
// members at their scalar alignment, a vec3 array of stride 12 read at a run-time index.
#extension GL_EXT_scalar_block_layout : require
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
layout(scalar, set = 0, binding = 0) uniform Scalar {
  float a;     // 0
  vec3 b;      // 4
  vec3 c[2];   // 16, stride 12
  vec2 d;      // 40
  float e[3];  // 48, stride 4
  vec3 f;      // 60
  int g;       // 72
} u;
void main() {
  gl_Position = vec4(position + vec3(u.a, u.b.z, 0.0), 1.0);
  v_color = vec4(u.c[u.g].y, u.e[2], u.f.z, u.d.x) * color;
}
