#version 450
// Separate images and samplers, explicit LODs, a bias, a fetch and a size query.
layout(set = 1, binding = 2) uniform texture2D albedo;
layout(set = 1, binding = 3) uniform sampler point_sampler;
layout(set = 0, binding = 1) uniform sampler2DArray layers;
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
  vec4 a = textureLod(sampler2D(albedo, point_sampler), uv, 1.5);
  vec4 b = texture(sampler2D(albedo, point_sampler), uv, 0.25);
  vec4 c = texture(layers, vec3(uv, 1.0));
  ivec2 size = textureSize(sampler2D(albedo, point_sampler), 0);
  vec4 d = texelFetch(sampler2D(albedo, point_sampler), ivec2(uv * vec2(size)), 0);
  color = a + b + c + d;
}
