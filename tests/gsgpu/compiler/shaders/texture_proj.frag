#version 450
// textureProj (OpImageSampleProjImplicitLod), as zink's fixed-function texturing samples: s / q and
// t / q, then the implicit-LOD sample.
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(location = 0) in vec4 coord;
layout(location = 0) out vec4 color;
void main() { color = textureProj(tex, coord); }
