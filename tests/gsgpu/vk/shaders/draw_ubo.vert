#version 450
// draw_color.vert with the position moved by a uniform buffer at (set 0, binding 0): the driver's
// descriptor table entry in the constant buffer (docs/vulkan-driver.md "Resource binding").
layout(location = 0) in vec3 position;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
layout(set = 0, binding = 0) uniform Offset {
  vec4 offset;
} u;
void main() {
  gl_Position = vec4(position + u.offset.xyz, 1.0);
  v_color = color;
}
