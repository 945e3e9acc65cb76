#version 450
layout(binding = 0) uniform samplerCube sky;
layout(location = 0) in vec3 direction;
layout(location = 0) out vec4 color;
void main() { color = texture(sky, direction); }
