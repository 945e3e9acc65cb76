#version 450
#extension GL_EXT_multiview : require
// gl_ViewIndex in a vertex shader: a word at constant-buffer byte 640 (docs/compiler.md).
layout(location = 0) in vec4 position;
void main() { gl_Position = position + vec4(float(gl_ViewIndex), 0.0, 0.0, 0.0); }
