; C = A x B for n x n row-major binary32 matrices, one work-item per element of C
; (column = global id x, row = global id y). Arguments: A, B, C (8 bytes each), n (u32).
.kernel sgemm
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0        ; A
  s_load_b64 s[4:5], s[0:1], 8        ; B
  s_load_b64 s[6:7], s[0:1], 16       ; C
  s_load_b32 s8, s[0:1], 24           ; n
  s_zext_u64_u32 s[10:11], s8
  s_shl_b64 s[12:13], s[10:11], 2     ; bytes per row
  v_special v[0:1], global_id_x       ; column
  v_special v[2:3], global_id_y       ; row
  v_mul_lo_u64 v[4:5], v[2:3], s[12:13]
  v_add_u64 v[4:5], v[4:5], s[2:3]    ; &A[row][0]
  v_shl_b64 v[6:7], v[0:1], 2
  v_add_u64 v[6:7], v[6:7], s[4:5]    ; &B[0][column]
  v_mov_b32 v8, 0                     ; accumulator
  s_mov_b32 s14, s8                   ; k iterations left
loop:
  global_load_b32 v9, v[4:5], 0
  global_load_b32 v10, v[6:7], 0
  v_mad_f32 v8, v9, v10, v8
  v_add_u64 v[4:5], v[4:5], 4
  v_add_u64 v[6:7], v[6:7], s[12:13]
  s_sub_u32 s14, s14, 1
  s_cbranch_nz s14, loop
  v_mul_lo_u64 v[12:13], v[2:3], s[10:11]
  v_add_u64 v[12:13], v[12:13], v[0:1]
  v_shl_b64 v[12:13], v[12:13], 2
  v_add_u64 v[12:13], v[12:13], s[6:7]
  global_store_b32 v[12:13], v8, 0
  s_end
