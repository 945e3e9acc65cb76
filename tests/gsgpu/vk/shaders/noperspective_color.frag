#version 450
// noperspective_clip_test.cc: the colour interpolated linearly in screen space.
layout(location = 0) noperspective in vec4 v_color;
layout(location = 0) out vec4 out_color;
void main() {
  out_color = v_color;
}
