; c[i] = a[i] + b[i] over binary32 arrays, addressed as scalar base + vector offset: the byte
; offset i * 4 is computed once and each access adds its array's pointer from a scalar pair.
; Arguments (8-byte slots): a, b, c. One work-item per element, 1-D grid.
.kernel vadd_sbase
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0        ; a
  s_load_b64 s[4:5], s[0:1], 8        ; b
  s_load_b64 s[6:7], s[0:1], 16       ; c
  v_special v[0:1], global_id_x
  v_shl_b64 v[0:1], v[0:1], 2         ; byte offset of element i
  global_load_b32 v6, v[0:1], s[2:3], 0
  global_load_b32 v7, v[0:1], s[4:5], 0
  v_add_f32 v6, v6, v7
  global_store_b32 v[0:1], v6, s[6:7], 0
  s_end
