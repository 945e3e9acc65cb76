#version 450
// A reduction without images: each work-group of 128 sums its 128 values with a tree through shared
// memory (a barrier per level) and writes its partial sum, its maximum and its group id.
layout(local_size_x = 128) in;
layout(set = 0, binding = 0) readonly buffer Input { uint values[]; } src;
layout(set = 0, binding = 1) writeonly buffer Output { uvec4 partial[]; } dst;

shared uint sums[128];
shared uint maxima[128];

void main() {
  uint local = gl_LocalInvocationIndex;
  uint v = src.values[gl_GlobalInvocationID.x];
  sums[local] = v;
  maxima[local] = v;
  barrier();
  for (uint half_ = 64; half_ > 0; half_ >>= 1) {
    if (local < half_) {
      sums[local] += sums[local + half_];
      maxima[local] = max(maxima[local], maxima[local + half_]);
    }
    barrier();
  }
  if (local == 0) dst.partial[gl_WorkGroupID.x] = uvec4(sums[0], maxima[0], gl_WorkGroupID.x, gl_NumWorkGroups.x);
}
