#pragma once
// Immediates of one class select the same MCInst layout and pass the same parser
// checks: inline integers, inline floats, 16-bit and 32-bit literals.
#include <array>
#include <cstdint>

#include "codegen/mc/instruction_templates.hpp"

namespace cdna4::codegen {

enum class ImmediateClass : char { inline_int = 'i', inline_float = 'f', literal16 = 'h', literal32 = 'l' };

// The 32-bit float inline constants: +-0.5, +-1, +-2, +-4, 1/(2 pi).
inline constexpr std::array<uint32_t, 9> kInlineFloatBits = {0x3f000000, 0xbf000000, 0x3f800000,
                                                             0xbf800000, 0x40000000, 0xc0000000,
                                                             0x40800000, 0xc0800000, 0x3e22f983};

inline ImmediateClass immediate_class(int64_t value) {
  const int64_t printed = printed_immediate(value);
  if (printed >= -16 && printed <= 64) return ImmediateClass::inline_int;
  for (uint32_t bits : kInlineFloatBits)
    if (printed == int64_t(bits)) return ImmediateClass::inline_float;
  return printed <= 0xffff ? ImmediateClass::literal16 : ImmediateClass::literal32;
}

}  // namespace cdna4::codegen
