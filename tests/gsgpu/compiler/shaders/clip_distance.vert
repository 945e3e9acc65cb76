#version 450
layout(location = 0) in vec4 in_position;
void main() { gl_Position = in_position; gl_ClipDistance[0] = in_position.x; }
