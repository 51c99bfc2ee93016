#pragma once
// CPU reference for GEMM results and bf16 conversions, stated precisely so any
// result can be checked bit for bit.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <cdna4/schedule.hpp>

namespace cdna4 {

float bf16_to_float(uint16_t bits);
// Round to nearest even; a NaN becomes a quiet NaN keeping sign and top payload bits.
uint16_t float_to_bf16(float value);

// C (M x N, row-major) = A (M x K, row-major bf16) * B (K x N, row-major bf16),
// each element one fp32 fused multiply-add chain over k = 0..K-1 starting from
// +0 — the emulator's MFMA arithmetic policy ("fp32-fma-chain-k-order"). bf16
// products are exact in fp32, so every step rounds once. A NaN result is
// gfx950's default NaN 0xffc00000, as every MFMA writes it (docs/emulator.md, "NaN results").
std::vector<float> reference_gemm(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b, int64_t m,
                                  int64_t n, int64_t k);

// Operand elements as gfx950's MFMAs read them: bf16 and f16 (IEEE), and the
// low-precision DataType fp8, bf8, fp6, bf6 and fp4 of the f8f6f4 MFMAs (OCP formats, subnormals kept): fp8 E4M3 (bias 7, no
// infinities, S.1111.111 is NaN, max 448), bf8 E5M2 (bias 15, IEEE infinities
// and NaNs, max 57344), fp6 E2M3 (bias 1, max 7.5), bf6 E3M2 (bias 3, max 28),
// fp4 E2M1 (bias 1, max 6); the last three have no infinity or NaN. `bits` are
// the low 16, 8, 6 or 4 bits.
float decode_element(DataType type, uint32_t bits);
// Round to nearest even. Beyond the largest finite value bf8 goes to infinity,
// fp8, fp6, bf6 and fp4 saturate to that value; NaN becomes bf8 0x7e / fp8 0x7f
// (with its sign), and saturates like an infinity of its sign in fp6, bf6, fp4.
uint32_t encode_element(DataType type, float value);
// Element i at bits [w*i, w*i + w) of the byte string, little-endian (w = 16, 8,
// 6, 4: fp6 packs 4 elements in 3 bytes, fp4 2 per byte, low nibble first).
std::vector<uint8_t> pack_elements(DataType type, std::span<const uint32_t> codes);
// One matrix of an operand stored in `layout` (rows `ld` elements apart, its
// first element at element `first` of `data`) in the order reference_gemm takes
// it: A as M x K, B as K x N, row-major, packed. `mn` is M for A, N for B.
std::vector<uint8_t> reference_operand(DataType type, std::span<const uint8_t> data, Layout layout, Operand op,
                                       int64_t mn, int64_t k, int64_t ld, int64_t first = 0);

// C (M x N, row-major fp32) = (A x scale_a) * (B x scale_b): A M x K and B K x N
// row-major, packed as pack_elements, of any operand type (bf16 and f16 take no scales). Scales
// are E8M0 bytes (2^(e - 127), 255 NaN), one per 32 consecutive k (OCP
// Microscaling): scale_a M x K/32 row-major (row i, block k/32), scale_b K/32 x N
// row-major; empty = 1.0. Each element is one fp32 chain over k in order from
// +0, each step adding the exact scaled product with one rounding (to nearest
// even), as the emulator's f8f6f4 MFMA policy; NaN results are 0xffc00000.
std::vector<float> reference_gemm(DataType type_a, std::span<const uint8_t> a, DataType type_b,
                                  std::span<const uint8_t> b, int64_t m, int64_t n, int64_t k,
                                  std::span<const uint8_t> scale_a = {}, std::span<const uint8_t> scale_b = {});

// The same under an MFMA arithmetic policy (docs/emulator.md, "MFMA arithmetic
// policies"): fp32-fma-chain-k-order is the function above; cdna3-fused-groups
// adds k in groups of 8 (bf16 x bf16, f16 x f16) or 16 (fp8 / bf8 x fp8 / bf8,
// even and odd k apart) from k = 0, each group fused with the accumulator as
// CDNA3's matrix cores do (MMA-Sim), a last partial group as if padded with
// zeros (NaN results 0xffc00000); other types and scales throw cdna4::Error.
std::vector<float> reference_gemm(MfmaPolicy policy, DataType type_a, std::span<const uint8_t> a, DataType type_b,
                                  std::span<const uint8_t> b, int64_t m, int64_t n, int64_t k,
                                  std::span<const uint8_t> scale_a = {}, std::span<const uint8_t> scale_b = {});

// The fused epilogue on the fp32 product `acc` (M x N row-major), per element
// in this order, each step one fp32 operation rounded to nearest even:
//   x = alpha * acc;  x = fma(beta, C[i][j], x) (with C);  x = x + bias[i or j];
// then e.activation's steps on x (t and u scratch), as its row in
// src/common/activations.hpp lists them (docs/codegen.md shows every row): mul
// a * b, add a + b, fma(a, b, c) (a NaN result: the first NaN operand quieted, else
// 0xffc00000, as v_mul / v_add / v_fma_f32), max = maxNum(a, b) (a NaN operand yields the
// other), fp32 constants by bit pattern, and exp2 / rcp as the emulator computes
// v_exp_f32 / v_rcp_f32 (common/transcendental.hpp: the double-precision result
// rounded once; a gfx950 may differ by 1 ulp). The result is x. C is M x N
// row-major (ldc_in elements a row, 0 = N) in e.c's type; bias has M or N elements
// of e.bias_type.
std::vector<float> reference_epilogue(const std::vector<float>& acc, int64_t m, int64_t n, const Epilogue& e,
                                      float alpha, float beta, std::span<const uint8_t> c,
                                      std::span<const uint8_t> bias, int64_t ldc_in = 0);

// The reference as raw output bits: fp32, or bf16 rounded to nearest even.
std::vector<uint8_t> to_output_bits(const std::vector<float>& c, bool bf16);
// The same for out = f32, bf16 or f16 (f16: nearest even, beyond 65504 to
// infinity, NaN the quiet 0x7e00 with its sign, as the kernels' v_cvt_f16_f32).
std::vector<uint8_t> to_output_bits(const std::vector<float>& c, DataType out);

// Elements whose raw bits differ (element size 4 or 2); SIZE_MAX if the sizes differ.
size_t differing_elements(const std::vector<uint8_t>& x, const std::vector<uint8_t>& y, size_t element_bytes);

}  // namespace cdna4
