#version 450
// One colour from the push constants: the cost is rasterising and writing pixels.
layout(push_constant) uniform Push { vec4 colour; } push;
layout(location = 0) out vec4 result;
void main() { result = push.colour; }
