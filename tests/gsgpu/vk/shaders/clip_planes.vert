#version 450
// draw_ubo.vert's interface with two user clip planes and one cull plane from the uniform buffer
// (set 0, binding 0): gl_ClipDistance[i] = dot(position, clip[i]), gl_CullDistance[0] likewise.
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
layout(set = 0, binding = 0) uniform Planes {
  vec4 clip[2];
  vec4 cull;
} u;
out gl_PerVertex {
  vec4 gl_Position;
  float gl_ClipDistance[2];
  float gl_CullDistance[1];
};
void main() {
  vec4 p = vec4(position, 1.0);
  gl_Position = p;
  gl_ClipDistance[0] = dot(p, u.clip[0]);
  gl_ClipDistance[1] = dot(p, u.clip[1]);
  gl_CullDistance[0] = dot(p, u.cull);
  v_color = color;
}
