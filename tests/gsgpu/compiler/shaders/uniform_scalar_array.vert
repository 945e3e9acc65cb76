#version 450
// std140 pads each float of an array to 16 bytes (ArrayStride 16): the loads follow the stride.
layout(binding = 0) uniform Weights { float weights[4]; } w;
layout(location = 0) in vec4 in_position;
void main() { gl_Position = in_position * w.weights[gl_VertexIndex & 3]; }
