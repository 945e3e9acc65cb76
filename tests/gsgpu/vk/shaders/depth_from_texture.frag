#version 450
// gl_FragDepth from a depth texture, as zink's glDrawPixels(GL_DEPTH_COMPONENT) (a sampled
// texture) and its depth read-back blit (texelFetch) write it: push.tint.x > 0.5 fetches texel
// (v_color.rg * 8), otherwise samples at v_color.rg (frag_depth_texture_test.cc).
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 out_color;
layout(set = 0, binding = 0) uniform sampler2D image;
layout(push_constant) uniform Push {
  vec4 tint;
} push;
void main() {
  float d = push.tint.x > 0.5 ? texelFetch(image, ivec2(v_color.rg * 7.99), 0).r : texture(image, v_color.rg).r;
  gl_FragDepth = d;
  out_color = vec4(d, 0.0, 0.0, 1.0);
}
