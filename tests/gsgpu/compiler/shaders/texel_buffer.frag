#version 450
// A uniform texel buffer (samplerBuffer): no texture record describes one in a draw yet.
layout(set = 0, binding = 0) uniform samplerBuffer texels;
layout(location = 0) out vec4 color;
void main() { color = texelFetch(texels, 3); }
