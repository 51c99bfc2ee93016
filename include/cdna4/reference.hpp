#pragma once
// CPU reference for GEMM results and bf16 conversions, stated precisely so any
// result can be checked bit for bit.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cdna4 {

float bf16_to_float(uint16_t bits);
// Round to nearest even; a NaN becomes a quiet NaN keeping sign and top payload bits.
uint16_t float_to_bf16(float value);

// C (M x N, row-major) = A (M x K, row-major bf16) * B (K x N, row-major bf16),
// each element one fp32 fused multiply-add chain over k = 0..K-1 starting from
// +0 — the emulator's MFMA arithmetic policy ("fp32-fma-chain-k-order"). bf16
// products are exact in fp32, so every step rounds once.
std::vector<float> reference_gemm(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b, int64_t m,
                                  int64_t n, int64_t k);

// The reference as raw output bits: fp32, or bf16 rounded to nearest even.
std::vector<uint8_t> to_output_bits(const std::vector<float>& c, bool bf16);

// Elements whose raw bits differ (element size 4 or 2); SIZE_MAX if the sizes differ.
size_t differing_elements(const std::vector<uint8_t>& x, const std::vector<uint8_t>& y, size_t element_bytes);

}  // namespace cdna4
