#version 450
layout(binding = 0) uniform sampler2D image;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() { color = textureGrad(image, uv, vec2(0.1, 0.0), vec2(0.0, 0.1)); }
