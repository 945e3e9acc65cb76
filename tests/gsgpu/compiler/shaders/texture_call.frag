#version 450
layout(set = 2, binding = 15) uniform sampler2D image;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
vec4 shade(sampler2D s, vec2 at) { return texture(s, at) * 0.5; }
void main() { color = shade(image, uv); }
