#version 450
// Specialization constants: the work-group width (local_size_x_id), a 32-bit multiplier, a signed
// 32-bit bias and a boolean, each written into the output so the values used are visible.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kMultiplier = 3;
layout(constant_id = 2) const int kBias = -5;
layout(constant_id = 3) const bool kNegate = false;
layout(set = 0, binding = 0) buffer Out { uint width; uint pad[3]; int values[]; } result;

void main() {
  uint i = gl_GlobalInvocationID.x;
  int v = int(i * kMultiplier) + kBias;
  result.values[i] = kNegate ? -v : v;
  if (i == 0) result.width = gl_WorkGroupSize.x;
}
