; Escape-time Mandelbrot set: out[y * width + x] = iterations (at most 256) of z = z^2 + c for
; c = (-2 + x * sx, -1.5 + y * sy). Arguments: out (8 bytes), sx (f32), sy (f32).
; 2-D grid, one work-item per pixel; lanes leave the loop as they escape (divergence).
.kernel mandelbrot
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0        ; out
  s_load_b32 s10, s[0:1], 8           ; sx
  s_load_b32 s11, s[0:1], 12          ; sy
  v_special v[0:1], global_id_x
  v_special v[2:3], global_id_y
  v_cvt_f32_u32 v4, v0
  v_cvt_f32_u32 v5, v2
  v_mad_f32 v4, v4, s10, -2.0         ; cr
  v_mad_f32 v5, v5, s11, -1.5         ; ci
  v_mov_b32 v6, 0                     ; zr
  v_mov_b32 v7, 0                     ; zi
  v_mov_b32 v8, 0                     ; iterations
loop:
  v_mul_f32 v9, v6, v6                ; zr^2
  v_mul_f32 v10, v7, v7               ; zi^2
  v_add_f32 v11, v9, v10
  v_cmp_ogt_f32 v12, v11, 4.0
  v_branch_nz v12, done, done         ; escaped lanes wait at done
  v_mul_f32 v13, v6, v7
  v_sub_f32 v6, v9, v10
  v_add_f32 v6, v6, v4                ; zr = zr^2 - zi^2 + cr
  v_mad_f32 v7, v13, 2.0, v5          ; zi = 2 zr zi + ci
  v_add_u32 v8, v8, 1
  v_cmp_lt_u32 v12, v8, 256
  v_branch_nz v12, loop, done
done:
  s_special s[12:13], global_size_x
  v_mul_lo_u64 v[14:15], v[2:3], s[12:13]
  v_add_u64 v[14:15], v[14:15], v[0:1]
  v_shl_b64 v[14:15], v[14:15], 2
  v_add_u64 v[14:15], v[14:15], s[2:3]
  global_store_b32 v[14:15], v8, 0
  s_end
