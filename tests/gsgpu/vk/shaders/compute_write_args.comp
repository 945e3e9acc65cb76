#version 450
// Writes the arguments of the indirect commands that follow it in the same command buffer: a
// VkDispatchIndirectCommand at 0, a VkDrawIndirectCommand at 16 and a VkDrawIndexedIndirectCommand
// at 32, from push constants (so the test picks them) and the invocation's own id.
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Args {
  uvec4 dispatch_args;  // x, y, z, unused
  uvec4 draw_args;      // vertexCount, instanceCount, firstVertex, firstInstance
  uint indexed_args[5]; // indexCount, instanceCount, firstIndex, vertexOffset, firstInstance
} args;
layout(push_constant) uniform Push { uvec4 dispatch_args; uvec4 draw_args; } push;

void main() {
  args.dispatch_args = push.dispatch_args + uvec4(gl_GlobalInvocationID.x);
  args.draw_args = push.draw_args;
  args.indexed_args[0] = push.draw_args.x;
  args.indexed_args[1] = push.draw_args.y;
  args.indexed_args[2] = 0;
  args.indexed_args[3] = 0;
  args.indexed_args[4] = 0;
}
