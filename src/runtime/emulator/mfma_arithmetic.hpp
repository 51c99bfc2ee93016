#pragma once
// The emulator's MFMA arithmetic policy, "fp32-fma-chain-k-order":
//   D[i][j] = C[i][j]; for k = 0..K-1 in order: D[i][j] = fma(A[i][k], B[k][j], D[i][j])
// in IEEE fp32, round-to-nearest-even, denormals kept. A bf16 x bf16 product
// (8-bit significands) is exact in fp32 unless it leaves fp32's exponent
// range, and an f16 x f16 product (11-bit significands, exponents well inside
// fp32's) always is, so each step rounds once, exactly as a mul+add of the
// exact product. Every NaN in D is the default NaN (common/nan_rules.hpp).
//
// The second policy, "cdna3-fused-groups" (EmulatorOptions::mfma_policy), adds
// groups of products fused with the accumulator as CDNA3's matrix cores do
// (common/mfma_fused_groups.hpp, measured by MMA-Sim).
#include <cstdint>

#include "cdna4/vocabulary.hpp"
#include "common/mfma_table.hpp"

namespace cdna4::emu {

inline constexpr const char* kMfmaPolicy = "fp32-fma-chain-k-order";

// acc[M][N] += a[M][K] * b[K][N] under the policy above (row-major arrays), NaNs as the default NaN.
void mfma_fma_chain(int m, int n, int k, const float* a, const float* b, float* acc);

// The same under cdna3-fused-groups, A's elements of type ta and B's of type tb.
void mfma_fused_groups(int m, int n, int k, const float* a, const float* b, float* acc, gfx950::Element ta,
                       gfx950::Element tb);

// acc += a * b under `policy`: the emulator's float MFMAs and the CPU references
// that follow them (A's elements of type ta, B's of type tb).
void mfma_accumulate(MfmaPolicy policy, int m, int n, int k, const float* a, const float* b, float* acc,
                     gfx950::Element ta, gfx950::Element tb);

// The same with A stored k-major (a_k_major[K][M]), as the emulator unpacks it.
void mfma_accumulate_k_major_a(MfmaPolicy policy, int m, int n, int k, const float* a_k_major, const float* b,
                               float* acc, gfx950::Element ta, gfx950::Element tb);

// v_mfma_f32_16x16x32_bf16 (n 16) and v_mfma_f32_32x32x16_bf16 (n 32) under
// fp32-fma-chain-k-order on the registers themselves: a, b, c (null: every C
// element is c_imm) and d point at the first register of each operand,
// kRegisterStride dwords (one per lane) a register. False, touching nothing,
// where the host has no path for it (the caller unpacks).
inline constexpr int kRegisterStride = 64;
bool mfma_bf16_in_registers(int n, const uint32_t* a, const uint32_t* b, const uint32_t* c, uint32_t c_imm,
                            uint32_t* d);

}  // namespace cdna4::emu
