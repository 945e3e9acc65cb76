#version 450
// texture() on an unsigned-integer combined image sampler at set 0, binding 1; the texel's integers
// are written as n / 255 so that 0..255 reach the RGBA8 target exactly.
layout(set = 0, binding = 1) uniform usampler2D image;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() { color = vec4(texture(image, uv)) / 255.0; }
