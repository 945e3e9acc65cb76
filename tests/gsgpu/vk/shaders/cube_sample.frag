#version 450
// A cube map sampled along directions whose major axis is face push.tint.x's (0 +x, 1 -x, 2 +y,
// 3 -y, 4 +z, 5 -z) at distance 1, the other two components from the vertex colour's red and
// green mapped to [-push.tint.y, push.tint.y]: beyond 1 they cross into the neighbouring faces
// (cube_texture_test.cc).
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(set = 0, binding = 0) uniform samplerCube cube;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  vec2 p = (v_color.rg * 2.0 - 1.0) * push.tint.y;
  int face = int(push.tint.x);
  float major = (face & 1) == 0 ? 1.0 : -1.0;
  vec3 dir = face < 2 ? vec3(major, p.x, p.y) : face < 4 ? vec3(p.x, major, p.y) : vec3(p.x, p.y, major);
  out_color = texture(cube, dir);
}
