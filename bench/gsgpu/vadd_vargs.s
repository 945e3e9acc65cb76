; c[i] = a[i] + b[i] as the OpenCL compiler lowers it: the argument pointer in a vector register pair
; and each argument read by a vector load in which every lane reads the same address.
; Arguments (8-byte slots): a, b, c. One work-item per element, 1-D grid.
.kernel vadd_vargs
  v_special v[8:9], arg_ptr
  global_load_b64 v[10:11], v[8:9], 0   ; a
  global_load_b64 v[12:13], v[8:9], 8   ; b
  global_load_b64 v[14:15], v[8:9], 16  ; c
  v_special v[0:1], global_id_x
  v_shl_b64 v[0:1], v[0:1], 2           ; byte offset of element i
  v_add_u64 v[2:3], v[0:1], v[10:11]
  global_load_b32 v6, v[2:3], 0
  v_add_u64 v[4:5], v[0:1], v[12:13]
  global_load_b32 v7, v[4:5], 0
  v_add_f32 v6, v6, v7
  v_add_u64 v[2:3], v[0:1], v[14:15]
  global_store_b32 v[2:3], v6, 0
  s_end
