#version 450
// Push constants and uniform buffers at two (set, binding) slots: the constant buffer's layout.
layout(push_constant) uniform Constants { vec4 scale; } constants;
layout(set = 0, binding = 0) uniform A { mat4 transform; } a;
layout(set = 1, binding = 3) uniform B { vec4 offset; } b;
layout(location = 0) in vec4 in_position;
void main() { gl_Position = a.transform * (in_position * constants.scale) + b.offset; }
