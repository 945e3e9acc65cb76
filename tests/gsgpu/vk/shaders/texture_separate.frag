#version 450
// A sampled image and a sampler in bindings of their own (set 0, bindings 1 and 2), combined in
// the shader: textureLod on the left half of the target, texelFetch of level 1 on the right.
layout(set = 0, binding = 1) uniform texture2D image;
layout(set = 0, binding = 2) uniform sampler image_sampler;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
  if (uv.x < 0.5)
    color = textureLod(sampler2D(image, image_sampler), uv, 2.0);
  else
    color = texelFetch(sampler2D(image, image_sampler), ivec2(uv * 16.0), 1);
}
