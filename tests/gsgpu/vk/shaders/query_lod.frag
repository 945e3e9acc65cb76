#version 450
// textureQueryLod (OpImageQueryLod) written to an R32G32_SFLOAT target (query_lod_test.cc): the
// coordinates are the vertex colour's red / green cubed times push.tint.xy, so the LOD grows across
// the quad (rho = 3 u^2 du/dx · scale in texels) from magnified to past the last level.
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(set = 0, binding = 0) uniform sampler2D image;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  vec2 uv = v_color.rg * v_color.rg * v_color.rg * push.tint.xy;
  out_color = vec4(textureQueryLod(image, uv), 0.0, 1.0);
}
