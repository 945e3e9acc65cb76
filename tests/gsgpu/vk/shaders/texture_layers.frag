#version 450
// A 2D array texture (combined image sampler at set 0, binding 1): layer 0, 1, 2 across the
// target's thirds (the layer coordinate is rounded to the nearest layer).
layout(set = 0, binding = 1) uniform sampler2DArray layers;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() { color = texture(layers, vec3(uv, floor(uv.x * 3.0) + 0.25)); }
