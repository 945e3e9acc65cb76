#version 450
// A buffer copy and transform over a 2D grid of invocations: out[y * width + x] = in[...] * scale +
// bias (uniform buffer) as float, and the index bits mixed in as integers. Tests a uniform block and
// two storage buffers read and written in compute, gl_GlobalInvocationID in two dimensions and
// gl_NumWorkGroups.
layout(local_size_x = 8, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform Params { float scale; float bias; uint width; uint height; } params;
layout(set = 0, binding = 1) readonly buffer Input { float values[]; } src;
layout(set = 0, binding = 2) writeonly buffer Output { uvec4 shape; vec2 results[]; } dst;

void main() {
  uvec2 at = gl_GlobalInvocationID.xy;
  if (at.x >= params.width || at.y >= params.height) return;
  uint i = at.y * params.width + at.x;
  float v = src.values[i] * params.scale + params.bias;
  dst.results[i] = vec2(v, uintBitsToFloat((i << 8) ^ gl_WorkGroupID.y));
  if (i == 0) dst.shape = uvec4(gl_NumWorkGroups, gl_WorkGroupSize.x * gl_WorkGroupSize.y);
}
