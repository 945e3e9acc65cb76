// The textured scenes' fragment shader (texture_test.cc): the texture at the interpolated colour's
// x, y with the implicit LOD (OpImageSampleImplicitLod); gsgpu runs the hand-written program of
// gsgpu_render.cc (v_interp_persp_f32, v_image_sample_implicit, v_export_f32).
#version 450
layout(location = 0) in vec4 in_color;
layout(set = 1, binding = 0) uniform sampler2D tex;
layout(location = 0) out vec4 out_color;

void main() { out_color = texture(tex, in_color.xy); }
