#version 450
// A texture declared and never used: Vulkan does not ask the pipeline layout for its binding.
layout(set = 0, binding = 3) uniform sampler2D unused;
layout(location = 0) out vec4 color;
void main() { color = vec4(0.25, 0.5, 0.75, 1.0); }
