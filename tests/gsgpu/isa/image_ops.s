; Every image instruction form (docs/isa.md section 8b), for the gsgpu-as / gsgpu-dis round trip.
.kernel image_ops
  s_special s[0:1], arg_ptr
  s_load_b64 s[2:3], s[0:1], 0          ; the IMAGE_DESC's VA
  v_image_load v[4:7], s[2:3], v[8:11]
  v_image_fetch v[12:15], s[2:3], v[8:11], 0x14
  v_image_sample v[16:19], v[0:1], v[8:11], s4   ; per-lane descriptor VAs, sampler in a register
  v_image_sample v[16:19], s[2:3], v[8:11], s4, 241   ; texel offset (1, -1, 0): imm19 fields x 3:0, y 7:4
  v_image_load v[4:7], s[2:3], v[8:11], 3840             ; offset (0, 0, -1)
  v_image_store s[2:3], v[8:11], v[252:255]
  v_image_query v20, s[2:3], 0, width
  v_image_query v21, s[2:3], v22, height
  v_image_query v23, s[2:3], 0, depth
  v_image_query v23, s[2:3], 0, array_size
  v_image_query v23, s[2:3], 0, channel_order
  v_image_query v23, s[2:3], 0, data_type
  v_image_query v23, s[2:3], 0, mip_levels
  s_end
