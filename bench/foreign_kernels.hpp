#pragma once
// Facts about foreign gfx950 code objects (HipKittens, AITER: GEMMs and
// attention forward): how to launch them (kernarg layout, grid, block, LDS)
// and how they read their data. No code or binary of theirs: the user builds and fetches them as
// docs/emulator.md ("Foreign kernels") describes. bench_foreign runs them on
// the emulator, bench_model through the timing model (docs/model.md).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "attention_reference.hpp"
#include "cdna4/runtime.hpp"

namespace foreign {

// B (N x K) in AITER's shuffle_weight(layout=(16, 16)) order (aiter/ops/shuffle.py)
// with E = 16 / element bytes: view as [N/16][16][K/32][32/E][E], permute to
// [N/16][K/32][32/E][16][E]: 16 rows x 16 bytes of k per 256-byte block
// (bf16: [4][8], fp8: [2][16]).
template <class T>
std::vector<T> aiter_preshuffle(const std::vector<T>& b, int64_t n, int64_t k) {
  constexpr int64_t per_row = 16 / sizeof(T);
  std::vector<T> out(b.size());
  size_t o = 0;
  for (int64_t n0 = 0; n0 < n / 16; ++n0)
    for (int64_t k0 = 0; k0 < k / 32; ++k0)
      for (int64_t kk = 0; kk < 32 / per_row; ++kk)
        for (int64_t n1 = 0; n1 < 16; ++n1)
          for (int64_t e = 0; e < per_row; ++e)
            out[o++] = b[size_t((n0 * 16 + n1) * k + k0 * 32 + kk * per_row + e)];
  return out;
}

// HipKittens, github.com/HazyResearch/HipKittens @ f09e9685c4c6aaa41fb3ebd4fe4ca664938589e1,
// kernels/gemm/bf16fp32/mi350x/256_256_64_32_with{16x32,32x16}.cpp: kernel
// _Z8micro_tk13micro_globals, shape fixed at compile time (M = N = K), one by-value
// argument `micro_globals` of 152 bytes: three kittens::gl<bf16, -1, -1, -1, -1>
// (a at 0, b at 48, c at 96; each: data pointer +0, batch +8, depth +16,
// rows +24, cols +32, all 8 bytes, 8 bytes of padding) and hipStream_t at 144
// (unused). a = A (M x K), b = B (N x K), c = C (M x N) bf16, all row-major with
// batch = depth = 1: C = A * B^T, fp32 accumulation, C stored as the top 16 bits
// of the fp32 sum (truncation: convertor<bf16, float> in
// include/common/base_types.cuh is "truncation only"). Grid
// (N/256)*(M/256) workgroups in x, block 512 (8 waves, 2 x 4), dynamic LDS
// 160000 bytes (MAX_SHARED_MEMORY). 16x32: v_mfma_f32_16x16x32_bf16, LDS
// As[2][2]/Bs[2][2] of 128x64; 32x16: v_mfma_f32_32x32x16_bf16, As[2]/Bs[2] of
// 256x64. The 32x16 kernel's XCD remap (wgid % 8) * (NUM_WGS / 8) + wgid / 8
// needs a multiple of 8 workgroups, so its 512^3 build maps all 4 to tile 0.
inline std::string hipkittens_file(const std::string& dir, const std::string& variant, int64_t size) {
  return dir + "/hipkittens_256x256x64_" + variant + "_" + std::to_string(size) + ".hsaco";
}

// `tile`: the kernel's square output tile (256; analysis/bf16_gemm's kernel_1024
// and kernel_2048 use 128).
inline cdna4::LaunchStats launch_hipkittens(cdna4::Device& dev, const cdna4::Kernel& kernel, int64_t size,
                                            const cdna4::Buffer& a, const cdna4::Buffer& b, const cdna4::Buffer& c,
                                            cdna4::LaunchOptions opt, int64_t tile = 256) {
  cdna4::KernargBlock g(152);
  auto gl = [&](size_t at, const cdna4::Buffer& buf) {
    g.pointer(at, buf).put<uint64_t>(at + 8, 1).put<uint64_t>(at + 16, 1);
    g.put<uint64_t>(at + 24, uint64_t(size)).put<uint64_t>(at + 32, uint64_t(size));
  };
  gl(0, a);
  gl(48, b);
  gl(96, c);
  opt.dynamic_lds = 160000;
  return dev.launch(kernel, {uint32_t((size / tile) * (size / tile))}, {512}, g, opt);
}

// HipKittens' per-size bf16 GEMMs whose MI355X figures the repository publishes
// (analysis/bf16_gemm/mi350x/kernel_{size}.cpp, mi355x_bf16_gemm.json; same
// commit): the 8-wave kernel above with M = N = K = size, 128x128 output tiles
// at 1024 and 2048 (64 and 256 workgroups), 256x256 from 4096. Same kernel name,
// kernarg and launch; built as docs/model.md "Calibration protocol" says, as
// DIR/hipkittens_bf16_kernel_{size}.hsaco.
inline int64_t hipkittens_bf16_tile(int64_t size) { return size <= 2048 ? 128 : 256; }

// HipKittens (same commit), kernels/gemm/fp8fp32/FP8_8wave/8_wave.cu: kernel
// matmul_device<M, N, K> (_Z13matmul_deviceILi<M>ELi<N>ELi<K>EEvN7kittens2glI14__hip_fp8_e4m3...),
// shape fixed at compile time (main()'s constexpr M, N, K), three by-value
// kittens::gl with every dimension static, 16 bytes each (data pointer +0):
// a at 0 (fp8 e4m3 A, M x K), b at 16 (fp8 e4m3 B, N x K), c at 32 (bf16 C,
// M x N), all row-major; 48 bytes of kernarg, no hidden arguments. C = A * B^T
// with fp32 accumulation (v_mfma_f32_16x16x128_f8f6f4, OCP e4m3 on gfx950),
// stored as the top 16 bits of the fp32 sum (convertor<bf16, float>, as the bf16
// kernels). Grid M * N / (256 * 256) workgroups in x, block 512 (8 waves,
// 2 x 4), LDS 131072 bytes fixed by the code object (As[2][2] / Bs[2][2] of
// 128 x 128 fp8), no dynamic LDS. Built with clang-22 at 1024^3 it uses 256
// VGPRs and spills 4 of them: 20 bytes of private segment per lane
// (scratch_store_dwordx4 / scratch_load_dwordx4).
inline std::string hipkittens_fp8_file(const std::string& dir, int64_t size) {
  return dir + "/hipkittens_fp8_8wave_" + std::to_string(size) + ".hsaco";
}

inline cdna4::LaunchStats launch_hipkittens_fp8(cdna4::Device& dev, const cdna4::Kernel& kernel, int64_t m,
                                                int64_t n, const cdna4::Buffer& a, const cdna4::Buffer& b,
                                                const cdna4::Buffer& c, cdna4::LaunchOptions opt) {
  cdna4::KernargBlock g(48);
  g.pointer(0, a).pointer(16, b).pointer(32, c);
  return dev.launch(kernel, {uint32_t(m * n / (256 * 256))}, {512}, g, opt);
}

// HipKittens (same commit), kernels/gemm/fp8fp32/FP8_4wave/4_wave.cu: the kernel
// whose MI355X figures analysis/fp8_gemm/mi350x/mi355x_fp8_gemm.json holds
// (analysis/README.md, "FP8 GEMM": FP8_4wave with M, N, K set in the file).
// `#define SIZE` picks the kernel: matmul_device_1024 (64x64 output tiles) at
// 1024, matmul_device_2048 (128x128) at 2048, matmul_device (256x256) above;
// same three-gl kernarg as the 8-wave kernel (hidden arguments follow), block
// 256 (4 waves, 2 x 2), grid (size / tile)^2 in x, LDS fixed by the code object.
// Built as DIR/hipkittens_fp8_4wave_{size}.hsaco (docs/model.md).
inline int64_t hipkittens_fp8_4wave_tile(int64_t size) { return size == 1024 ? 64 : size == 2048 ? 128 : 256; }

inline std::string hipkittens_fp8_4wave_file(const std::string& dir, int64_t size) {
  return dir + "/hipkittens_fp8_4wave_" + std::to_string(size) + ".hsaco";
}

inline cdna4::LaunchStats launch_hipkittens_fp8_4wave(cdna4::Device& dev, const cdna4::Kernel& kernel, int64_t size,
                                                      const cdna4::Buffer& a, const cdna4::Buffer& b,
                                                      const cdna4::Buffer& c, cdna4::LaunchOptions opt) {
  cdna4::KernargBlock g(48);
  g.pointer(0, a).pointer(16, b).pointer(32, c);
  const int64_t tiles = size / hipkittens_fp8_4wave_tile(size);
  return dev.launch(kernel, {uint32_t(tiles * tiles)}, {256}, g, opt);
}

// AITER, github.com/ROCm/aiter @ e4048607a535ace3a2b51ded31b1c8c2d45c0879:
// hsa/gfx950/bf16gemm/*.co (one kernel each, _ZN5aiter<len><file stem>E) with
// bf16gemm_fp32bf16.csv, launched as csrc/py_itfs_cu/asm_gemm_a16w16.cu does.
// Kernarg: struct KernelArgs, every field in its own 16-byte slot:
//   D 0, C 16, A 32, B 48 (pointers); alpha 64, beta 80 (float); stride_D0 96,
//   stride_D1 112, stride_C0 128, stride_C1 144, stride_A0 160, stride_A1 176,
//   stride_B0 192, stride_B1 208 (u32, bytes); M 224, N 240, K 256, splitk 272,
//   is_out_b16 288 (u32); Bias 304 (pointer); add_bias 320 (u32); semaphore 336
//   (pointer; only in the 352-byte kernels, the others' kernarg is 336 bytes).
// The launcher sets C = 0, alpha = 1, beta = 0, stride_D0 = stride_C0 = N * out
// element size, stride_A0 = stride_B0 = K * 2, the *1 strides 0, no bias.
// A = M x K, B = N x K (row-major, or pre-shuffled when the csv's bPreshuffle
// is 1: the "bpreshuffle"/"bshuffle" kernels), D = M x N row-major, fp32 or bf16
// (is_out_b16). Grid (N / tileN, ceil(M / tileM), splitK), block 256, LDS fixed
// by the code object (160 KiB for 256x256, 64 KiB for the others). Constraints:
// K % 64 == 0, N % tileN == 0. splitK: 1 for kernels whose csv splitK is 0; for
// the others (the _clean kernels) max(2, min(CUs / tiles, 16, K / 64)) with the
// tile count ceil(M / tileM) * N / tileN (CUs = 256 on MI355X), and then a
// zeroed semaphore of 16 x 64 u32 (one per output tile, grid x * y <= 1024):
// split 0 zeroes its D tile and stores splitK to its semaphore, every split
// waits for it, adds its partial with global_atomic_add_f32 (pk_add_bf16 for
// bf16 D) and decrements it (s_atomic_dec), so it is 0 again at the end.
struct AiterKernel {
  const char* stem;
  int tile_m, tile_n;
  bool preshuffle, split;  // csv bPreshuffle and splitK columns
};
inline const AiterKernel kAiterKernels[] = {
    {"bf16gemm_bf16_tn_256x256", 256, 256, false, false},
    {"bf16gemm_bf16_tn_256x256_bpreshuffle", 256, 256, true, false},
    {"bf16gemm_fp32bf16_tn_32x64_pf3_splitk", 32, 64, false, false},
    {"bf16gemm_fp32bf16_tn_48x64_pf3_splitk", 48, 64, false, false},
    {"bf16gemm_fp32bf16_tn_64x64_pf3_splitk", 64, 64, false, false},
    {"bf16gemm_fp32bf16_tn_96x64_pf3_splitk", 96, 64, false, false},
    {"bf16gemm_fp32bf16_tn_32x64_bshuffle_splitk", 32, 64, true, false},
    {"bf16gemm_fp32bf16_tn_48x64_bshuffle_splitk", 48, 64, true, false},
    {"bf16gemm_fp32bf16_tn_64x64_bshuffle_splitk", 64, 64, true, false},
    {"bf16gemm_fp32bf16_tn_96x64_bshuffle_splitk", 96, 64, true, false},
    {"bf16gemm_fp32bf16_tn_128x64_bshuffle_splitk", 128, 64, true, false},
    {"bf16gemm_fp32bf16_tn_160x64_bshuffle_splitk", 160, 64, true, false},
    {"bf16gemm_fp32bf16_tn_32x64_splitk_clean", 32, 64, false, true},
    {"bf16gemm_fp32bf16_tn_48x64_splitk_clean", 48, 64, false, true},
    {"bf16gemm_fp32bf16_tn_64x64_splitk_clean", 64, 64, false, true},
    {"bf16gemm_fp32bf16_tn_80x64_splitk_clean", 80, 64, false, true},
    {"bf16gemm_fp32bf16_tn_96x64_splitk_clean", 96, 64, false, true},
    {"bf16gemm_fp32bf16_tn_32x64_bshuffle_splitk_clean", 32, 64, true, true},
    {"bf16gemm_fp32bf16_tn_48x64_bshuffle_splitk_clean", 48, 64, true, true},
    {"bf16gemm_fp32bf16_tn_64x64_bshuffle_splitk_clean", 64, 64, true, true},
    {"bf16gemm_fp32bf16_tn_80x64_bshuffle_splitk_clean", 80, 64, true, true},
    {"bf16gemm_fp32bf16_tn_96x64_bshuffle_splitk_clean", 96, 64, true, true},
    {"bf16gemm_fp32bf16_tn_128x64_bshuffle_splitk_clean", 128, 64, true, true},
    {"bf16gemm_fp32bf16_tn_160x64_bshuffle_splitk_clean", 160, 64, true, true},
};

inline uint32_t aiter_split(const AiterKernel& ak, int64_t m, int64_t n, int64_t k) {
  const int64_t tiles = (m + ak.tile_m - 1) / ak.tile_m * (n / ak.tile_n);
  return ak.split ? uint32_t(std::max<int64_t>(2, std::min({256 / tiles, int64_t(16), k / 64}))) : 1;
}

// D (fp32, or bf16 when out_bf16) = A * B^T; `sema` is the zeroed split-K
// semaphore block (16 x 64 u32), used when split > 1.
inline cdna4::LaunchStats launch_aiter(cdna4::Device& dev, const cdna4::Kernel& kernel, const AiterKernel& ak,
                                       int64_t m, int64_t n, int64_t k, const cdna4::Buffer& a,
                                       const cdna4::Buffer& b, const cdna4::Buffer& d, const cdna4::Buffer& sema,
                                       bool out_bf16, cdna4::LaunchOptions opt) {
  const uint32_t split = aiter_split(ak, m, n, k), out_bytes = out_bf16 ? 2 : 4;
  cdna4::KernargBlock g(kernel.info().kernarg_bytes());
  g.pointer(0, d).put<uint64_t>(16, 0).pointer(32, a).pointer(48, b).put<float>(64, 1.0f).put<float>(80, 0.0f);
  g.put<uint32_t>(96, uint32_t(n) * out_bytes).put<uint32_t>(128, uint32_t(n) * out_bytes);
  g.put<uint32_t>(160, uint32_t(k) * 2).put<uint32_t>(192, uint32_t(k) * 2);
  g.put<uint32_t>(224, uint32_t(m)).put<uint32_t>(240, uint32_t(n)).put<uint32_t>(256, uint32_t(k));
  g.put<uint32_t>(272, split).put<uint32_t>(288, out_bf16 ? 1 : 0).put<uint64_t>(304, 0).put<uint32_t>(320, 0);
  if (g.size() >= 344) g.put<uint64_t>(336, split > 1 ? sema.address() : 0);
  const cdna4::Dim3 grid(uint32_t(n / ak.tile_n), uint32_t((m + ak.tile_m - 1) / ak.tile_m), split);
  return dev.launch(kernel, grid, {256}, g, opt);
}

// AITER's fp8 blockscale GEMMs (same commit): hsa/gfx950/fp8gemm_blockscale/
// fp8gemm_bf16_blockscale_BpreShuffle_{tileM}x128.co (_ZN5aiter<len><stem>E) with
// fp8gemm_bf16_blockscale.csv, launched as
// csrc/py_itfs_cu/asm_a8w8_blockscale_bpreshuffle.cu does (the reference:
// op_tests/test_gemm_a8w8_blockscale.py run_torch). Kernarg: packed struct
// KernelArgs of 256 bytes, every field in its own 16-byte slot: pointers C 0,
// A 16, B 32, a_scale 48, b_scale 64, bias 80; u32 m 96, n 112, k 128, lda
// 144, ldb 160 (elements = bytes: K), ldc 176 (bytes: N * 2), ks 192 (split-K,
// 1), scale_m 208 (M), scale_n 224 (N / 128), scale_k 240 (K / 128).
// A (M x K) and B (N x K, pre-shuffled as aiter_preshuffle) OCP fp8 e4m3;
// a_scale fp32 per token and 128 k, stored k-block major ([K/128][M]: the test
// passes x_scale transposed); b_scale fp32 per 128 x 128 block ([N/128][K/128]);
// bias fp32 [N] (the launcher passes a zeroed one when there is none); C bf16
// M x N row-major: C[i][j] = bias[j] + sum over k-blocks kb of
// a_scale[kb][i] * b_scale[j/128][kb] * sum_{k in kb} A[i][k] B[j][k], fp32
// accumulation (v_mfma_f32_16x16x32_fp8_fp8 per k-block, v_pk_fma_f32 with the
// scale product), stored truncated to bf16 (v_perm_b32 of the high halves).
// Constraints N % 128 == 0, K % 128 == 0. Grid (N / 128 * ks, ceil(M / tileM),
// 1), block 256, LDS fixed by the code object (64 KiB).
struct AiterBlockscale {
  const char* stem;
  int tile_m;
};
inline const AiterBlockscale kAiterBlockscale[] = {
    {"fp8gemm_bf16_blockscale_BpreShuffle_128x128", 128}, {"fp8gemm_bf16_blockscale_BpreShuffle_96x128", 96},
    {"fp8gemm_bf16_blockscale_BpreShuffle_80x128", 80},   {"fp8gemm_bf16_blockscale_BpreShuffle_64x128", 64},
    {"fp8gemm_bf16_blockscale_BpreShuffle_48x128", 48},   {"fp8gemm_bf16_blockscale_BpreShuffle_32x128", 32},
};

struct BlockscaleBuffers {
  const cdna4::Buffer &a, &b, &a_scale, &b_scale, &bias, &c;
};

inline cdna4::LaunchStats launch_aiter_blockscale(cdna4::Device& dev, const cdna4::Kernel& kernel,
                                                  const AiterBlockscale& ab, int64_t m, int64_t n, int64_t k,
                                                  const BlockscaleBuffers& io, cdna4::LaunchOptions opt) {
  cdna4::KernargBlock g(256);
  g.pointer(0, io.c).pointer(16, io.a).pointer(32, io.b).pointer(48, io.a_scale).pointer(64, io.b_scale);
  g.pointer(80, io.bias).put<uint32_t>(96, uint32_t(m)).put<uint32_t>(112, uint32_t(n)).put<uint32_t>(128, uint32_t(k));
  g.put<uint32_t>(144, uint32_t(k)).put<uint32_t>(160, uint32_t(k)).put<uint32_t>(176, uint32_t(n) * 2);
  g.put<uint32_t>(192, 1).put<uint32_t>(208, uint32_t(m)).put<uint32_t>(224, uint32_t(n / 128));
  g.put<uint32_t>(240, uint32_t(k / 128));
  const cdna4::Dim3 grid(uint32_t(n / 128), uint32_t((m + ab.tile_m - 1) / ab.tile_m), 1);
  return dev.launch(kernel, grid, {256}, g, opt);
}

// AITER's f8_block_scale_mi350_x{32,128}.co (hsa/gfx950, same commit; kernel
// f8_block_scale_mi350_x128, no mangling): the code objects are shipped but their
// launcher left the repository in 06de6e9aee; it is
// csrc/py_itfs_cu/asm_mi350_a8w8_blockscale.cu at its parent
// e742eeb891decb9aac64536016a9d5da2d71c1da (mi350_a8w8_blockscale_asm, reached
// through aiter.gemm_a8w8_blockscale(..., isBpreshuffled=True) for m >= 16,
// k >= 512, bf16 out). Kernarg: packed struct KernelArgs of 368 bytes, every
// field in its own 16-byte slot: pointers C 0, X 16 (A), W 32 (B), XC 48,
// XQ 64 (a_scale), WQ 80 (b_scale), tmp0..2 96..128; u32 K 144, N 160, M 176,
// eprt_cnt 192 (1), Xs 208 (K bytes), Ws 224 (K bytes), Cs 240 (N * 2),
// tmp0..3 256..304, splitk 320 (0), activation 336 (0); pointer tmp3 352 (the
// launcher leaves the unnamed fields uninitialized; zero here). Same data as
// the kernels above, B pre-shuffled the same way, a_scale [K/128][M], b_scale
// [N/128][K/128] (the launcher's comment says [K/128, N/128]; the test's
// tensor, and the layout that makes the result exact, is [N/128][K/128]), no
// bias. C bf16 rounded to nearest even. Tile 128 x 256 (x32: 32 x 256, which
// the launcher picks for M <= 32): grid (ceil(N / 256), ceil(M / tileM)), block
// 256, LDS fixed (64 KiB). N % 128 == 0, K % 128 == 0, M >= 16, K >= 512.
inline cdna4::LaunchStats launch_aiter_blockscale_mi350(cdna4::Device& dev, const cdna4::Kernel& kernel, int tile_m,
                                                        int64_t m, int64_t n, int64_t k, const BlockscaleBuffers& io,
                                                        cdna4::LaunchOptions opt) {
  cdna4::KernargBlock g(368);
  g.pointer(0, io.c).pointer(16, io.a).pointer(32, io.b).pointer(64, io.a_scale).pointer(80, io.b_scale);
  g.put<uint32_t>(144, uint32_t(k)).put<uint32_t>(160, uint32_t(n)).put<uint32_t>(176, uint32_t(m));
  g.put<uint32_t>(192, 1).put<uint32_t>(208, uint32_t(k)).put<uint32_t>(224, uint32_t(k));
  g.put<uint32_t>(240, uint32_t(n) * 2);
  const cdna4::Dim3 grid(uint32_t((n + 255) / 256), uint32_t((m + tile_m - 1) / tile_m), 1);
  return dev.launch(kernel, grid, {256}, g, opt);
}

// ---- attention forward ----

struct AttentionBuffers {
  const cdna4::Buffer &q, &k, &v, &o, &lse;  // BSHD Q/K/V/O, LSE [B][Hq][S] fp32
};

// AITER fmha_v3_fwd, github.com/ROCm/aiter @ e4048607a535ace3a2b51ded31b1c8c2d45c0879:
// hsa/gfx950/fmha_v3_fwd/*.co with fmha_fwd.csv (ts_qo), launched as
// csrc/cpp_itfs/mha_fwd.cu (fmha_fwd_v3, init_fmha_fwd_v3_args, get_grid_dim)
// does for batch mode with the strides csrc/py_itfs_cu/asm_mha_fwd.cu takes from
// BSHD tensors. Kernarg: struct fmha_fwd_v3_args (csrc/include/mha_fwd.h),
// packed, every field in its own 16-byte slot: pointers O 0, Q 16, K 32, V 48,
// LSE 64; then u32 (float for scalar) scalar 80, seq_len 96, Seqs 112, Ts 128,
// Hs 144, Bs 160, gqa 176, k_Seqs 192, k_Hs 208, k_Bs 224, opt 240, lse 256,
// kv_seq_len 272, qk_head_dim 288, v_head_dim 304, q_head_num 320, v_Seqs 336,
// v_Hs 352, v_Bs 368, o_Seqs 384, o_Hs 400, o_Bs 416; pointers qseq 432,
// kseq 448; lse_Hs 464; pointers qseq_padding 480, kseq_padding 496, then
// (fp8 code objects only; the bf16 ones take 512 bytes) q/k/v_descale 512,
// 528, 544 and u32 descale strides q_Bs 560, q_Hs 576, k_Bs 592, k_Hs 608,
// v_Bs 624, v_Hs 640 (656 bytes). Strides are in bytes: Seqs = Hq * D * in
// bytes, Ts = ts_qo * Seqs, Hs = D * in bytes, Bs = S * Seqs (K/V with Hkv),
// o_* with 2-byte bf16 O, lse_Hs = 4 S; gqa = Hq / Hkv; opt 5, minus 2 for a
// causal mask when Hq % 8 != 0 or S > 16384; lse 1 (write LSE). fp8 ("fp8bf16"):
// Q, K, V OCP e4m3 with per-tensor fp32 descales ([1]: strides 0), O bf16.
// Grid (ceil(ceil(S / ts_qo) / t), Hq, B) with t = 2 for a causal mask (one
// workgroup takes a head and a tail tile), block 512, LDS fixed (160 KiB).
struct AiterFmha {
  const char* file;  // under hsa/gfx950
  bool fp8, causal;
  int ts_qo;
};
inline const AiterFmha kAiterFmha[] = {
    {"fmha_v3_fwd/fwd_hd128_bf16.co", false, false, 256},
    {"fmha_v3_fwd/fwd_hd128_bf16_causal.co", false, true, 256},
    {"fmha_v3_fwd/fwd_hd128_fp8.co", true, false, 256},
    {"fmha_v3_fwd/fwd_hd128_fp8_causal.co", true, true, 256},
};

// `descale` holds the three per-tensor descales (Q, K, V) for fp8, else unused.
inline cdna4::LaunchStats launch_aiter_fmha(cdna4::Device& dev, const cdna4::Kernel& kernel, const AiterFmha& f,
                                            const AttentionShape& s, const AttentionBuffers& io,
                                            const cdna4::Buffer& descale, cdna4::LaunchOptions opt) {
  const uint32_t in = f.fp8 ? 1 : 2, out = 2, d = uint32_t(s.dim), S = uint32_t(s.seqlen);
  const uint32_t q_row = uint32_t(s.heads_q) * d, kv_row = uint32_t(s.heads_kv) * d;
  cdna4::KernargBlock g(kernel.info().kernarg_bytes());
  g.pointer(0, io.o).pointer(16, io.q).pointer(32, io.k).pointer(48, io.v).pointer(64, io.lse);
  g.put<float>(80, float(1.0 / std::sqrt(double(s.dim)))).put<uint32_t>(96, S);
  g.put<uint32_t>(112, q_row * in).put<uint32_t>(128, uint32_t(f.ts_qo) * q_row * in);
  g.put<uint32_t>(144, d * in).put<uint32_t>(160, S * q_row * in).put<uint32_t>(176, uint32_t(s.heads_q / s.heads_kv));
  g.put<uint32_t>(192, kv_row * in).put<uint32_t>(208, d * in).put<uint32_t>(224, S * kv_row * in);
  const bool downgrade = f.causal && (s.heads_q % 8 != 0 || s.seqlen > 16384);
  g.put<uint32_t>(240, downgrade ? 3 : 5).put<uint32_t>(256, 1).put<uint32_t>(272, S);
  g.put<uint32_t>(288, d).put<uint32_t>(304, d).put<uint32_t>(320, uint32_t(s.heads_q));
  g.put<uint32_t>(336, kv_row * in).put<uint32_t>(352, d * in).put<uint32_t>(368, S * kv_row * in);
  g.put<uint32_t>(384, q_row * out).put<uint32_t>(400, d * out).put<uint32_t>(416, S * q_row * out);
  g.put<uint64_t>(432, 0).put<uint64_t>(448, 0).put<uint32_t>(464, 4 * S).put<uint64_t>(480, 0).put<uint64_t>(496, 0);
  if (f.fp8) {
    g.pointer(512, descale).pointer(528, descale.address() + 4).pointer(544, descale.address() + 8);
    for (size_t at = 560; at <= 640; at += 16) g.put<uint32_t>(at, 0);
  }
  const uint32_t tiles = uint32_t((s.seqlen + f.ts_qo - 1) / f.ts_qo), split = f.causal ? 2 : 1;
  const cdna4::Dim3 grid((tiles + split - 1) / split, uint32_t(s.heads_q), uint32_t(s.batch));
  return dev.launch(kernel, grid, {512}, g, opt);
}

// HipKittens attention forward, github.com/HazyResearch/HipKittens @
// f09e9685c4c6aaa41fb3ebd4fe4ca664938589e1, kernels/attn/gqa/kernel.cpp (d 128),
// kernel_d64.cpp (d 64) and the same in kernels/attn/gqa_causal, built as the
// GEMMs are (docs/emulator.md) with the sizes their Makefiles pass set to
// ATTN_B=1 ATTN_H=4 ATTN_H_KV=2 ATTN_N=256 (the kernel maps workgroup x to head
// (x % G) * G + x / G with G = H / H_KV, a permutation only when H = H_KV^2),
// as hipkittens_attn_{gqa,gqa_causal}_d{128,64}.hsaco. Kernel
// _Z10attend_kerILi<D>EEv12attn_globalsIXT_EE, one by-value argument of 248
// bytes: five kittens::gl (data pointer +0, batch, depth, rows, cols at +8..+32
// as 8-byte integers, 48 bytes each) Qg 0, Kg 48, Vg 96, Og 144 (bf16, (B, S, H,
// D): BSHD) and L_vec 192 (fp32, (B, H, 1, S)), then hipStream_t at 240.
// softmax scale 1/sqrt(D) (with log2 e) compiled in; O stored truncated to
// bf16 (convertor<bf16, float>), L_vec the natural-log LSE. Grid (H,
// ceil(S / 256), B), block 512, dynamic LDS 160000 bytes.
inline constexpr int64_t kHipKittensAttentionBatch = 1, kHipKittensAttentionHeads = 4,
                         kHipKittensAttentionKvHeads = 2, kHipKittensAttentionSeqlen = 256;

inline std::string hipkittens_attention_file(const std::string& dir, bool causal, int64_t dim) {
  return dir + "/hipkittens_attn_" + (causal ? "gqa_causal" : "gqa") + "_d" + std::to_string(dim) + ".hsaco";
}

inline cdna4::LaunchStats launch_hipkittens_attention(cdna4::Device& dev, const cdna4::Kernel& kernel,
                                                      const AttentionShape& s, const AttentionBuffers& io,
                                                      cdna4::LaunchOptions opt) {
  cdna4::KernargBlock g(248);
  auto gl = [&](size_t at, const cdna4::Buffer& buf, int64_t batch, int64_t depth, int64_t rows, int64_t cols) {
    g.pointer(at, buf).put<uint64_t>(at + 8, uint64_t(batch)).put<uint64_t>(at + 16, uint64_t(depth));
    g.put<uint64_t>(at + 24, uint64_t(rows)).put<uint64_t>(at + 32, uint64_t(cols));
  };
  gl(0, io.q, s.batch, s.seqlen, s.heads_q, s.dim);
  gl(48, io.k, s.batch, s.seqlen, s.heads_kv, s.dim);
  gl(96, io.v, s.batch, s.seqlen, s.heads_kv, s.dim);
  gl(144, io.o, s.batch, s.seqlen, s.heads_q, s.dim);
  gl(192, io.lse, s.batch, s.heads_q, 1, s.seqlen);
  opt.dynamic_lds = 160000;
  const cdna4::Dim3 grid(uint32_t(s.heads_q), uint32_t((s.seqlen + 255) / 256), uint32_t(s.batch));
  return dev.launch(kernel, grid, {512}, g, opt);
}

// Published MI355X bf16 GEMM throughput (TFLOP/s, M = N = K), the figures the
// timing model is calibrated against (docs/model.md).
struct Published {
  const char* kernel;
  double at_4096, at_8192;
};
inline constexpr Published kPublished[] = {
    {"HipKittens 256x256x64, 8 waves", 1413, 1610},
    {"AITER asm bf16", 1114, 1591},
    {"hipBLASLt", 1433, 1575},
    {"Triton", 934, 1091},
};

}  // namespace foreign
