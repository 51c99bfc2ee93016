#pragma once
// A * B of the f8f6f4 MFMAs (ops_matrix_f8f6f4.cpp).
#include "common/mfma_table.hpp"
#include "runtime/emulator/wave.hpp"

namespace cdna4::emu {

// acc (M x N, row-major, holding C) += A * B of `in`, an MFMA of `kind`: A and B
// in the formats cbsz / blgp name, scaled kinds times the E8M0 scales op_sel /
// op_sel_hi pick, under the fp32-fma-chain-k-order policy (mfma_arithmetic.hpp).
void mfma_f8f6f4_multiply(const Wave& w, const Inst& in, const gfx950::MfmaInfo& kind, float* acc);

}  // namespace cdna4::emu
