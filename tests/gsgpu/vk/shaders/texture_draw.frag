#version 450
// GLSL's texture() on a combined image sampler at set 0, binding 1 (as vkcube's).
layout(set = 0, binding = 1) uniform sampler2D image;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() { color = texture(image, uv); }
