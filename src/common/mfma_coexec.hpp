#pragma once
// gfx950: how long an MFMA keeps vector ALU work of its SIMD from issuing
// (its operands are read through the VALU's register ports). Slots of 4 clocks
// counted from the MFMA's own issue slot; an instruction may issue in the slot
// the function returns. Source: LLVM's gfx942 / gfx950 MFMA co-execution rules,
// fitted to thread traces (ATT) taken on MI350X (llvm/llvm-project pulls
// 233721 and 239095, 2026): an XDL MFMA holds VALU off until
// 1 + (its widest A / B source in bytes) / 16; packed fp32 VALU
// (v_pk_{add,fma,mul}_f32, v_pk_mov_b32) and dot instructions until
// passes + 2, one more when the A source is 16 bytes or wider; a sparse
// (smfmac) MFMA holds VALU until slot 3.
#include <algorithm>
#include <cstdint>
#include <string_view>

namespace cdna4::gfx950 {

struct MfmaCoExec {
  uint8_t valu_slot;         // first slot a VALU instruction may issue in
  uint8_t packed_f32_slot;   // first slot a packed-fp32 or dot VALU instruction may issue in
};

constexpr MfmaCoExec mfma_coexec(uint32_t a_bytes, uint32_t b_bytes, uint32_t passes, bool sparse) {
  const uint32_t widest = std::max(a_bytes, b_bytes);
  const uint32_t valu = sparse ? 3 : 1 + widest / 16;
  const uint32_t packed = passes + 2 + (a_bytes >= 16 ? 1 : 0);
  return {uint8_t(valu), uint8_t(std::max(valu, packed))};
}

// The VALU instructions the packed-fp32 rule holds: v_pk_{add,fma,mul}_f32,
// v_pk_mov_b32 and the dot products (LLVM opcode names, upper case).
constexpr bool packed_f32_or_dot(std::string_view opcode) {
  constexpr std::string_view kPacked[] = {"V_PK_ADD_F32", "V_PK_FMA_F32", "V_PK_MUL_F32", "V_PK_MOV_B32"};
  for (std::string_view p : kPacked)
    if (opcode.substr(0, p.size()) == p) return true;
  return opcode.substr(0, 5) == "V_DOT";
}

}  // namespace cdna4::gfx950
