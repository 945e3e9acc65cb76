#version 450
// Texel offsets (ConstOffset) on each sample form: implicit, explicit LOD, fetch, depth compare.
layout(binding = 0) uniform sampler2D image;
layout(binding = 1) uniform sampler2DShadow shadow;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
  color = textureOffset(image, uv, ivec2(1, 0)) + textureLodOffset(image, uv, 2.0, ivec2(-8, 7)) +
          texelFetchOffset(image, ivec2(uv), 1, ivec2(0, -1)) + vec4(textureOffset(shadow, vec3(uv, 0.5), ivec2(2, 3)));
}
