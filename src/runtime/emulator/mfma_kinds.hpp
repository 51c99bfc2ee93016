#pragma once
// The MFMA kinds the emulator executes, one row each: shape, operand sizes,
// element type and passes. Lane layouts follow from the row (docs/emulator.md):
//   A: lane l, element e of the lane's A registers holds A[l % M][kpl*(l / M) + e]
//   B: likewise B[kpl*(l / N) + e][l % N]     (kpl = K / (64 / M) elements per lane)
//   C/D: lane l, register r holds D[4*(64/N)*(r/4) + 4*(l/N) + r%4][l % N]
// Passes are gfx950's (LLVM's SISchedule for gfx940+, confirmed by the s_nop
// counts clang-22 emits before reading each kind's result).
#include <cstdint>
#include <string_view>

namespace cdna4::emu {

enum class MfmaElement : uint8_t { bf16, f16, i8 };

struct MfmaKind {
  std::string_view name;  // base opcode name (handler_registry.hpp)
  uint8_t m, n, k;
  uint8_t ab_regs;        // dwords per lane in A and in B
  MfmaElement element;
  uint8_t passes;
};

inline constexpr MfmaKind kMfmaKinds[] = {
    {"V_MFMA_F32_16X16X32_BF16", 16, 16, 32, 4, MfmaElement::bf16, 4},
    {"V_MFMA_F32_32X32X16_BF16", 32, 32, 16, 4, MfmaElement::bf16, 8},
    {"V_MFMA_F32_16X16X16BF16_1K", 16, 16, 16, 2, MfmaElement::bf16, 4},
    {"V_MFMA_F32_32X32X8BF16_1K", 32, 32, 8, 2, MfmaElement::bf16, 8},
    {"V_MFMA_F32_16X16X16F16", 16, 16, 16, 2, MfmaElement::f16, 4},
    {"V_MFMA_F32_32X32X8F16", 32, 32, 8, 2, MfmaElement::f16, 8},
    {"V_MFMA_F32_16X16X32_F16", 16, 16, 32, 4, MfmaElement::f16, 4},
    {"V_MFMA_F32_32X32X16_F16", 32, 32, 16, 4, MfmaElement::f16, 8},
    {"V_MFMA_I32_16X16X32I8", 16, 16, 32, 2, MfmaElement::i8, 4},
    {"V_MFMA_I32_32X32X16I8", 32, 32, 16, 2, MfmaElement::i8, 8},
    {"V_MFMA_I32_16X16X64_I8", 16, 16, 64, 4, MfmaElement::i8, 4},
    {"V_MFMA_I32_32X32X32_I8", 32, 32, 32, 4, MfmaElement::i8, 8},
};

constexpr const MfmaKind* find_mfma_kind(std::string_view base_name) {
  for (const MfmaKind& kind : kMfmaKinds)
    if (kind.name == base_name) return &kind;
  return nullptr;
}

}  // namespace cdna4::emu
