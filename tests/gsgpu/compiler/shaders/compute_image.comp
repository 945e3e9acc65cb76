#version 450
// An image in a compute shader: refused (docs/compiler.md "Compute shaders").
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform sampler2D image;
layout(set = 0, binding = 1) buffer Out { vec4 texel; } result;

void main() { result.texel = textureLod(image, vec2(0.5), 0.0); }
