#pragma once
// Pre-decoded form of a code object's .text: one Inst per machine instruction,
// each carrying its handler and canonical operands, so execution never decodes.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/lane_modifiers.hpp"
#include "common/limits.hpp"
#include "common/wait_state_rules.hpp"

namespace cdna4::emu {

struct Wave;
struct Inst;
using Handler = void (*)(Wave&, const Inst&);

// Scalar register numbers follow the hardware encoding, so VCC, M0 and EXEC are
// plain entries of the scalar file.
namespace sreg {
constexpr uint16_t kGeneralCount = gfx950::kAddressableSgprs;  // s0..s101; the rest are special registers
constexpr uint16_t kFlatScratchLo = gfx950::kAddressableSgprs;
constexpr uint16_t kVccLo = 106;
constexpr uint16_t kM0 = gfx950::kM0;
constexpr uint16_t kExecLo = 126;
constexpr uint16_t kFileSize = 128;
}  // namespace sreg

enum class OperandKind : uint8_t {
  None,
  Sgpr,     // index = scalar register number (see sreg)
  Vgpr,     // index = unified register number (AGPR n -> accum_offset + n)
  Imm,      // inline constant or literal, value in imm
  Scc,      // src_scc
  VccZ,     // src_vccz
  ExecZ,    // src_execz
};

struct Operand {
  OperandKind kind = OperandKind::None;
  uint8_t dwords = 1;
  uint8_t neg = 0;   // VOP3 input modifiers (float sources only)
  uint8_t abs = 0;
  uint16_t index = 0;
  bool is_agpr = false;
  uint8_t packed = 0;  // VOP3P packed fp32 halves: packed_sel bits (neg above is neg_lo there)
  uint64_t imm = 0;
  bool is_reg() const { return kind == OperandKind::Sgpr || kind == OperandKind::Vgpr; }
};

// Which dword of a 64-bit packed source feeds each half of the result, and the
// high half's negation (VOP3P op_sel, op_sel_hi, neg_hi).
namespace packed_sel {
constexpr uint8_t kLowFromHigh = 1;   // op_sel: low result reads dword 1
constexpr uint8_t kHighFromHigh = 2;  // op_sel_hi: high result reads dword 1
constexpr uint8_t kNegHigh = 4;       // neg_hi: negate the value feeding the high result
constexpr uint8_t kHalfHigh = 8;      // 16-bit VOP3 op_sel: a source reads, dst[0] writes, its high half
constexpr uint8_t kSignExtend = 16;   // SDWA sext: the selected integer field is sign-extended
}  // namespace packed_sel

// Vector registers past the architectural file that only the emulator uses:
// the operands a DPP or SDWA instruction prepares for the operation it modifies.
namespace scratch {
constexpr uint16_t kFirst = gfx950::kRegistersPerLane;
constexpr uint16_t kCount = 4;  // DPP: src0 (up to 2 dwords); SDWA: src0, src1, dst
}  // namespace scratch

// f8f6f4 MFMAs: A's and B's formats (cbsz / blgp codes) and, for the scaled
// kinds, the byte of each scale VGPR that op_sel / op_sel_hi pick, in Inst::offset.
namespace matrix_sel {
constexpr int64_t pack(int64_t cbsz, int64_t blgp, int64_t scale_a_byte, int64_t scale_b_byte) {
  return cbsz | blgp << 4 | scale_a_byte << 8 | scale_b_byte << 12;
}
constexpr int format_a(int64_t offset) { return int(offset & 15); }
constexpr int format_b(int64_t offset) { return int(offset >> 4 & 15); }
constexpr int scale_byte_a(int64_t offset) { return int(offset >> 8 & 3); }
constexpr int scale_byte_b(int64_t offset) { return int(offset >> 12 & 3); }
}  // namespace matrix_sel

// A register range an instruction reads or writes; the race checker walks these.
// Memory operations complete asynchronously on one of three in-order queues.
enum class AsyncClass : uint8_t { None = 0, Vector = 1, Lds = 2, Scalar = 3 };

struct RegAccess {
  uint16_t first = 0;
  uint8_t count = 0;
  bool vector = false;
  bool write = false;
};

struct Inst {
  Handler exec = nullptr;
  uint32_t pc = 0;       // byte offset into .text
  uint32_t size = 0;
  uint32_t id = 0;       // index into Program::insts (and names/disasm)
  Operand dst[2];        // dst[0]: vdst/sdst, dst[1]: carry-out / compare mask
  Operand src[5];        // scaled MFMAs: A, B, C, A scale, B scale
  uint8_t num_src = 0;
  uint8_t clamp = 0;
  uint8_t omod = 0;
  int64_t offset = 0;    // memory instruction offset, SOPP/SOPK immediate, matrix_sel
  uint32_t target = 0;   // branch target as instruction index
  uint32_t aux = 0;      // per-family extra (memory dwords, flags); DPP / SDWA: index into Program::lane_modifiers
  AsyncClass async = AsyncClass::None;  // queue a memory instruction's completion goes to
  uint8_t num_access = 0;
  RegAccess access[8];
  uint16_t vgpr_end = 0;  // one past the highest unified vector register it names
  uint8_t sgpr_end = 0;   // one past the highest general SGPR (s0..s101) it names
};

// A DPP or SDWA instruction: the VOP1 / VOP2 / VOPC operation it modifies,
// whose modified operands name scratch registers, and how to prepare them.
struct LaneModifier {
  Inst op;                 // runs after the operands are prepared
  Operand source[2];       // the instruction's own operands that are prepared (DPP: src0)
  // DPP
  int8_t source_lane[gfx950::kWaveSize] = {};  // lane each lane reads src0 from, -1 outside the row / wave
  uint64_t write_lanes = ~0ull;                // row_mask x bank_mask
  bool bound_ctrl = false;                     // an invalid source lane reads 0 instead of disabling the lane
  // SDWA
  uint8_t source_sel[2] = {gfx950::sdwa::kDword, gfx950::sdwa::kDword};  // DWORD sources are not prepared
  bool sign_extend[2] = {false, false};
  Operand dst;                     // the real VGPR destination when dst_sel is not DWORD (op writes scratch)
  uint8_t dst_sel = gfx950::sdwa::kDword;
  uint8_t dst_unused = gfx950::sdwa::kPad;
};

// Registers as bits, coarsely (vector registers four to a bit, scalar ones modulo 64):
// two sets that do not meet share no register; two that meet may.
struct RegisterFootprint {
  uint64_t vector[2] = {0, 0};
  uint64_t scalar = 0;
  bool meets(const RegisterFootprint& o) const {
    return ((vector[0] & o.vector[0]) | (vector[1] & o.vector[1]) | (scalar & o.scalar)) != 0;
  }
  RegisterFootprint operator|(const RegisterFootprint& o) const {
    return {{vector[0] | o.vector[0], vector[1] | o.vector[1]}, scalar | o.scalar};
  }
  void add(bool is_vector, uint32_t reg) {
    if (is_vector) vector[reg / 4 / 64 % 2] |= uint64_t(1) << (reg / 4 % 64);
    else scalar |= uint64_t(1) << (reg % 64);
  }
};

// The wait-state rules (gfx950::kWaitStateRules rows, as bits) an instruction can start as
// producer and end as consumer with some instruction of its program, and how long it
// stays a producer.
struct HazardRows {
  uint32_t starts = 0, ends = 0;
  int lifetime = 0;  // the longest wait a rule can ask after it (0: it starts none)
  uint32_t wait_states = 1;  // what issuing it counts (s_nop: its own count)
  // Every register its operands and accesses read, write, and both together.
  RegisterFootprint reads, writes, touches;
};

struct Program {
  std::vector<Inst> insts;
  std::vector<std::string> names;   // LLVM opcode name per inst
  std::vector<std::string> disasm;  // printed instruction per inst
  std::vector<std::string> errors;  // why an inst cannot execute (empty when it can)
  std::vector<gfx950::HazardProfile> hazard;  // per inst: what the wait-state rules need beyond registers
  std::vector<HazardRows> hazard_rows;        // per inst: the rules it can start and end, from `hazard`
  std::vector<uint8_t> lds_transpose;         // per inst: 1 for a transposing LDS read (common/lds_rules.hpp)
  std::vector<LaneModifier> lane_modifiers;   // DPP / SDWA instructions' operations
  std::vector<int32_t> index_of_dword;  // pc/4 -> inst index, -1 inside an instruction
  uint32_t accum_offset = 0;

  int32_t index_at(uint64_t pc) const {
    uint64_t d = pc / 4;
    return (pc % 4 == 0 && d < index_of_dword.size()) ? index_of_dword[d] : -1;
  }
  std::string describe(const Inst& in) const;  // "<disasm> (NAME) at 0x..."
};

// Decodes the whole text once (thread-safe, cached by content and accum_offset).
std::shared_ptr<const Program> decode_program(const std::vector<uint8_t>& text, uint32_t accum_offset);

}  // namespace cdna4::emu
