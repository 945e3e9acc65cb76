#version 450
// An inclusive prefix sum of each work-group's 64 values (Hillis-Steele: log2(64) steps through
// shared memory, a barrier around each), then each group's total added into a running counter with
// an atomic. Tests compute shaders' Workgroup memory, barriers, WorkgroupId and storage-buffer atomics.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Input { uint values[]; } src;
layout(set = 0, binding = 1) buffer Output { uint total; uint pad[3]; uint sums[]; } dst;
layout(push_constant) uniform Push { uint count; } push;

shared uint scratch[64];

void main() {
  uint local = gl_LocalInvocationID.x;
  uint index = gl_WorkGroupID.x * 64 + local;
  scratch[local] = index < push.count ? src.values[index] : 0;
  barrier();
  for (uint step = 1; step < 64; step *= 2) {
    uint add = local >= step ? scratch[local - step] : 0;
    barrier();
    scratch[local] += add;
    barrier();
  }
  if (index < push.count) dst.sums[index] = scratch[local];
  if (local == 63) atomicAdd(dst.total, scratch[63]);
}
