#include "codegen/entry_pieces.hpp"

#include <bit>

namespace cdna4::codegen {

using namespace isa;

namespace {

void descriptor(Code& c, Reg desc, Reg ptr, Arg bytes) {
  c.s_mov_b32(desc.sub(0), ptr.sub(0));
  c.s_and_b32(desc.sub(1), ptr.sub(1), imm(0xffff));
  c.s_mov_b32(desc.sub(2), bytes);
  c.s_mov_b32(desc.sub(3), imm(0x20000));
}

}  // namespace

void buffer_descriptor(Code& c, Reg desc, Reg ptr, int64_t bytes) { descriptor(c, desc, ptr, imm(bytes)); }
void buffer_descriptor(Code& c, Reg desc, Reg ptr, Reg bytes) { descriptor(c, desc, ptr, bytes); }

void s_divide(Code& c, Reg q, Reg x, uint32_t d) {
  const int l = 31 - std::countl_zero(d);
  if (std::has_single_bit(d)) {
    c.s_lshr_b32(q, x, imm(l));
    return;
  }
  const uint64_t m = ((uint64_t(1) << (32 + l)) + d - 1) / d;
  c.s_mul_hi_u32(q, x, imm(int64_t(m)));
  c.s_lshr_b32(q, q, imm(l));
}

}  // namespace cdna4::codegen
