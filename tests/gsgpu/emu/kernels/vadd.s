; c[i] = a[i] + b[i] (u32); arguments: a, b, c as 64-bit buffer addresses
.kernel vadd
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0
  s_load_b64 s[4:5], s[0:1], 8
  s_load_b64 s[6:7], s[0:1], 16
  v_special v[0:1], global_id_x
  v_shl_b64 v[2:3], v[0:1], 2
  v_add_u64 v[4:5], v[2:3], s[2:3]
  global_load_b32 v6, v[4:5], 0
  v_add_u64 v[4:5], v[2:3], s[4:5]
  global_load_b32 v7, v[4:5], 0
  v_add_u32 v8, v6, v7
  v_add_u64 v[4:5], v[2:3], s[6:7]
  global_store_b32 v[4:5], v8, 0
  s_end
