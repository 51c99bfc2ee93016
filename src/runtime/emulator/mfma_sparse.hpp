#pragma once
// A * B of the sparse (smfmac) MFMAs (ops_matrix_sparse.cpp).
#include <cstdint>

#include "common/mfma_table.hpp"
#include "runtime/emulator/wave.hpp"

namespace cdna4::emu {

// acc (M x N, row-major, holding the accumulator D) += A * B of `in`, a sparse
// MFMA of `kind`: A's kept values, two per group of 4 k, meet the B rows its
// index VGPR (src[3], the set in in.offset) names (gfx950::sparse_index_shift),
// in the order they are stored, each added by one fp32 fma (i8: exact int32,
// wrapping).
void mfma_sparse_multiply(const Wave& w, const Inst& in, const gfx950::MfmaInfo& kind, float* acc);
void mfma_sparse_multiply(const Wave& w, const Inst& in, const gfx950::MfmaInfo& kind, int32_t* acc);

}  // namespace cdna4::emu
