#pragma once
// The emulator's MFMA arithmetic policy, "fp32-fma-chain-k-order":
//   D[i][j] = C[i][j]; for k = 0..K-1 in order: D[i][j] = fma(A[i][k], B[k][j], D[i][j])
// in IEEE fp32, round-to-nearest-even, denormals kept. A bf16 x bf16 product
// (8-bit significands) is exact in fp32 unless it leaves fp32's exponent
// range, and an f16 x f16 product (11-bit significands, exponents well inside
// fp32's) always is, so each step rounds once, exactly as a mul+add of the
// exact product.
#include <cstdint>

namespace cdna4::emu {

inline constexpr const char* kMfmaPolicy = "fp32-fma-chain-k-order";

// acc[M][N] += a[M][K] * b[K][N] under the policy above (row-major arrays).
void mfma_fma_chain(int m, int n, int k, const float* a, const float* b, float* acc);

}  // namespace cdna4::emu
