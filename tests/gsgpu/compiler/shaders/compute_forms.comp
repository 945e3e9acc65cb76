#version 450
// The compute forms the compiler takes (docs/compiler.md "Compute shaders"): a uniform block, a
// storage buffer with a runtime array (SPIR-V 1.0's BufferBlock), shared memory and a barrier, every
// id built-in, an atomic, push constants, a size from a WorkgroupSize specialization constant (default 1).
layout(local_size_x_id = 0, local_size_y = 4) in;
layout(constant_id = 0) const uint kWidth = 8;
layout(set = 0, binding = 0) uniform Params { uint scale; } params;
layout(set = 1, binding = 3) buffer Data { uint counter; uint values[]; } data;
layout(push_constant) uniform Push { uint bias; } push;
shared uint tile[32];

void main() {
  uint i = gl_LocalInvocationIndex;
  tile[i] = data.values[gl_GlobalInvocationID.x] * params.scale;
  barrier();
  uint other = tile[31 - i] + gl_WorkGroupID.y + gl_NumWorkGroups.z + gl_LocalInvocationID.y + push.bias;
  data.values[gl_GlobalInvocationID.x] = other;
  atomicAdd(data.counter, 1);
}
