#version 450
layout(binding = 0) uniform sampler2D heights;
layout(location = 0) in vec2 uv;
void main() { gl_Position = vec4(uv, textureLod(heights, uv, 0.0).r, 1.0); }
