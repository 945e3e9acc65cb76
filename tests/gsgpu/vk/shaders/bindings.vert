#version 450
// Push constants at the end of their 128 bytes and uniform buffers at the first, a middle and the
// last (set, binding) of the constant buffer's table (gsgpu/vk/binding_model.h).
layout(push_constant) uniform Constants { layout(offset = 112) vec4 tail; } constants;
layout(set = 0, binding = 0) uniform A { vec4 a; } first;
layout(set = 2, binding = 7) uniform B { vec4 b; } middle;
layout(set = 3, binding = 15) uniform C { vec4 c; } last;
layout(location = 0) in vec4 in_position;
void main() { gl_Position = in_position * constants.tail + first.a + middle.b + last.c; }
