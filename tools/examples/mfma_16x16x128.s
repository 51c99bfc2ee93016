// C[16x16] (f32) = A[16x128] (bf16, row-major) * Bt[16x128]^T (bf16, row-major),
// one wave. The four 16x32 k-chunks of A and Bt are staged through LDS with
// LDS-DMA loads (lane l writes LDS at M0 + inst_offset + 16*l); the wave waits for two loads
// at a time (vmcnt 6, 4, 2, 0) and runs one MFMA per chunk.
// Kernel arguments: A, Bt, C (global pointers).
	.amdhsa_code_object_version 5
	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.text
	.globl mfma_16x16x128
	.p2align 8
	.type mfma_16x16x128,@function
mfma_16x16x128:
	s_load_dwordx2 s[4:5], s[0:1], 0x0        // A
	s_load_dwordx2 s[6:7], s[0:1], 0x8        // Bt
	s_load_dwordx2 s[8:9], s[0:1], 0x10       // C
	v_and_b32 v1, 15, v0                      // row i = lane % 16
	v_lshrrev_b32 v2, 4, v0                   // lane / 16
	v_lshlrev_b32 v3, 8, v1                   // i * 256 bytes (row of 128 bf16)
	v_lshlrev_b32 v4, 4, v2                   // (lane / 16) * 16 bytes
	v_add_u32 v3, v3, v4                      // global byte offset of chunk 0
	v_lshlrev_b32 v5, 4, v0                   // LDS byte offset: lane * 16
	s_mov_b32 s14, 4096                       // num_records: 16 x 128 bf16
	s_mov_b32 s15, 0x20000
	s_mov_b32 s18, 4096
	s_mov_b32 s19, 0x20000
	s_mov_b32 s22, 1024                       // C: 16 x 16 f32
	s_mov_b32 s23, 0x20000
	s_waitcnt lgkmcnt(0)
	s_mov_b32 s12, s4
	s_and_b32 s13, s5, 0xffff
	s_mov_b32 s16, s6
	s_and_b32 s17, s7, 0xffff
	s_mov_b32 s20, s8
	s_and_b32 s21, s9, 0xffff
	// Eight LDS-DMA loads: A chunk c -> LDS c*1024, Bt chunk c -> LDS 4096 + c*1024.
	// The chunk's global step goes in soffset: an instruction offset would move
	// the LDS address too (LDS = M0 + inst_offset + 16*lane).
	s_mov_b32 s24, 64
	s_mov_b32 s25, 128
	s_mov_b32 s26, 192
	s_mov_b32 m0, 0
	s_nop 0
	buffer_load_dwordx4 v3, s[12:15], 0 offen lds
	s_mov_b32 m0, 0x1000
	s_nop 0
	buffer_load_dwordx4 v3, s[16:19], 0 offen lds
	s_mov_b32 m0, 0x400
	s_nop 0
	buffer_load_dwordx4 v3, s[12:15], s24 offen lds
	s_mov_b32 m0, 0x1400
	s_nop 0
	buffer_load_dwordx4 v3, s[16:19], s24 offen lds
	s_mov_b32 m0, 0x800
	s_nop 0
	buffer_load_dwordx4 v3, s[12:15], s25 offen lds
	s_mov_b32 m0, 0x1800
	s_nop 0
	buffer_load_dwordx4 v3, s[16:19], s25 offen lds
	s_mov_b32 m0, 0xc00
	s_nop 0
	buffer_load_dwordx4 v3, s[12:15], s26 offen lds
	s_mov_b32 m0, 0x1c00
	s_nop 0
	buffer_load_dwordx4 v3, s[16:19], s26 offen lds
	v_accvgpr_write_b32 a0, 0
	v_accvgpr_write_b32 a1, 0
	v_accvgpr_write_b32 a2, 0
	v_accvgpr_write_b32 a3, 0
	s_waitcnt vmcnt(6)
	s_barrier
	ds_read_b128 v[8:11], v5
	ds_read_b128 v[12:15], v5 offset:4096
	s_waitcnt vmcnt(4)
	s_barrier
	ds_read_b128 v[16:19], v5 offset:1024
	ds_read_b128 v[20:23], v5 offset:5120
	s_waitcnt vmcnt(2)
	s_barrier
	ds_read_b128 v[24:27], v5 offset:2048
	ds_read_b128 v[28:31], v5 offset:6144
	s_waitcnt vmcnt(0)
	s_barrier
	ds_read_b128 v[32:35], v5 offset:3072
	ds_read_b128 v[36:39], v5 offset:7168
	s_waitcnt lgkmcnt(0)
	s_setprio 1
	v_mfma_f32_16x16x32_bf16 a[0:3], v[8:11], v[12:15], a[0:3]
	v_mfma_f32_16x16x32_bf16 a[0:3], v[16:19], v[20:23], a[0:3]
	v_mfma_f32_16x16x32_bf16 a[0:3], v[24:27], v[28:31], a[0:3]
	v_mfma_f32_16x16x32_bf16 a[0:3], v[32:35], v[36:39], a[0:3]
	s_setprio 0
	s_nop 7
	s_nop 7
	// D[i][j] lives in lane 16*(i/4) + j, register i%4.
	v_lshlrev_b32 v6, 2, v1                   // j * 4
	v_lshlrev_b32 v7, 8, v2                   // (lane / 16) * 4 rows * 64 bytes
	v_add_u32 v6, v6, v7
	v_accvgpr_read_b32 v40, a0
	v_accvgpr_read_b32 v41, a1
	v_accvgpr_read_b32 v42, a2
	v_accvgpr_read_b32 v43, a3
	buffer_store_dword v40, v6, s[20:23], 0 offen
	buffer_store_dword v41, v6, s[20:23], 0 offen offset:64
	buffer_store_dword v42, v6, s[20:23], 0 offen offset:128
	buffer_store_dword v43, v6, s[20:23], 0 offen offset:192
	s_endpgm
	.size mfma_16x16x128, .-mfma_16x16x128

	.rodata
	.p2align 6
	.amdhsa_kernel mfma_16x16x128
		.amdhsa_group_segment_fixed_size 8192
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 24
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 52
		.amdhsa_next_free_sgpr 27
		.amdhsa_accum_offset 48
		.amdhsa_reserve_vcc 1
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: mfma_16x16x128
    .symbol: mfma_16x16x128.kd
    .kernarg_segment_size: 24
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 8192
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 29
    .vgpr_count: 52
    .agpr_count: 4
    .max_flat_workgroup_size: 64
    .args:
      - { .name: a, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }
      - { .name: bt, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: read_only }
      - { .name: c, .offset: 16, .size: 8, .value_kind: global_buffer, .address_space: global, .actual_access: write_only }
...
	.end_amdgpu_metadata
