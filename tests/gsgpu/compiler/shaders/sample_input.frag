#version 450
layout(location = 0) sample in vec4 shade;
layout(location = 0) out vec4 color;
void main() { color = shade; }
