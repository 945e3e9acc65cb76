; x[i] = x[i] * k in place; arguments: x (64-bit address) at 0, k (u32) at 8
.kernel scale
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0
  s_load_b32 s4, s[0:1], 8
  v_special v[0:1], global_id_x
  v_shl_b64 v[2:3], v[0:1], 2
  v_add_u64 v[2:3], v[2:3], s[2:3]
  global_load_b32 v4, v[2:3], 0
  v_mul_lo_u32 v4, v4, s4
  global_store_b32 v[2:3], v4, 0
  s_end
