#version 450
layout(location = 1) flat in vec4 flat_color;
layout(location = 0) out vec4 out_color;

void main() { out_color = flat_color; }
