#version 450
// OpBitReverse (GLSL bitfieldReverse; zink's NIR also finds it in open-coded bit swaps, piglit
// glsl-1.30 open-coded-bitfieldreverse): each word of the buffer reversed in place, uint and int.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Data { uint words[]; } data;

void main() {
  uint i = gl_GlobalInvocationID.x;
  data.words[i] = (i & 1u) == 0u ? bitfieldReverse(data.words[i]) : uint(bitfieldReverse(int(data.words[i])));
}
