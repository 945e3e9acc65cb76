#version 450
layout(std430, binding = 1) buffer Data { vec4 data[]; } storage;
layout(location = 0) out vec4 color;
void main() { color = storage.data[int(gl_FragCoord.x)]; }
