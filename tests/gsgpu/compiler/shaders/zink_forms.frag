#version 450
// The forms zink 22.3 gives a GL 2.1 fragment shader (measured with ZINK_DEBUG=spirv under glmark2):
// each uniform buffer an array of one block, gl_FragColor written to all eight gl_FragData
// Locations, each a colour target of its own on gsgpu. The block array is indexed at run
// time, as zink's shaders do (with capability UniformBufferArrayDynamicIndexing): every in-bounds
// index of a one-block array is 0.
layout(std140, set = 0, binding = 0) uniform UboBlock { vec4 base[2]; } ubo[1];
layout(push_constant) uniform Push { int index; } push;
layout(location = 0) out vec4 frag_data0;
layout(location = 1) out vec4 frag_data1;
layout(location = 7) out vec4 frag_data7;
void main() {
  vec4 c = ubo[push.index].base[1];
  frag_data0 = c;
  frag_data1 = c;
  frag_data7 = c;
}
