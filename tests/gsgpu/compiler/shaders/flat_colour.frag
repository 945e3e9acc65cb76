#version 450
// bench/graphics' flat fill: one colour from the push constants, nothing read per pixel.
layout(push_constant) uniform Push { vec4 colour; } push;
layout(location = 0) out vec4 result;
void main() { result = push.colour; }
