#version 450
// Positions in clip space, as the benchmark's vertex buffer holds them.
layout(location = 0) in vec2 position;
void main() { gl_Position = vec4(position, 0.5, 1.0); }
