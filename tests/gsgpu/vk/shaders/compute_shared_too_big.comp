#version 450
// 1.2 MB of shared memory, over maxComputeSharedMemorySize (1 MiB): refused at pipeline creation.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { uint values[]; } data;
shared uint big[300000];

void main() {
  uint i = gl_LocalInvocationIndex;
  big[i * 4000] = data.values[i];
  barrier();
  data.values[i] = big[(63 - i) * 4000];
}
