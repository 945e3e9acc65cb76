#version 450
// A 1D texture (capability Sampled1D), as GL's glTexImage1D reaches zink's shaders: one coordinate.
layout(set = 0, binding = 0) uniform sampler1D tex;
layout(location = 0) in float coord;
layout(location = 0) out vec4 color;
void main() { color = texture(tex, coord); }
