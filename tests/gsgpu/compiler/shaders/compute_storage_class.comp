#version 450
// compute_forms.comp compiled for SPIR-V 1.3 (glslang --target-env vulkan1.1): its storage buffer is a
// Block in the StorageBuffer storage class.
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
