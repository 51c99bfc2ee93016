#pragma once
// Maps LLVM AMDGPU opcode names (encoding suffixes stripped, e.g. "V_ADD_U32")
// to the emulator's handlers and to the rule that puts the MCInst operands into
// canonical Inst fields.
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "runtime/emulator/program.hpp"

namespace cdna4::emu {

enum class OperandForm : uint8_t {
  Scalar,        // SOP1/SOP2/SOPC/SOPK: defs -> dst, values -> src, first control imm -> offset
  Program,       // SOPP: first control imm -> offset (branches: target resolved)
  Vector,        // VOP1/VOP2/VOP3: defs -> dst[0..1], values -> src, control imms -> clamp, omod
  Compare,       // VOPC: like Vector; without an explicit sdst the mask goes to VCC
  ScalarMemory,  // SMEM: src[0] = sbase, src[1] = soffset register (if any), offset = imm
  LocalMemory,   // DS: src[0] = addr, src[1..] = data; offset (offset0 | offset1 << 8 for 2-address forms)
  BufferMemory,  // MUBUF: src[0] = vdata (stores), vaddr, srsrc, soffset; offset
  GlobalMemory,  // FLAT global: src[0] = vaddr, src[1] = vdata (stores), src[2] = saddr; offset
  ScratchMemory, // FLAT scratch: src[0] = vaddr (if any), src[1] = vdata (stores), src[2] = saddr (if any); offset
  Matrix,        // MFMA: src = A, B, C (scaled f8f6f4: then the A / B scale VGPRs); cbsz/abid/blgp
                 // must be zero, except as the formats of f8f6f4 kinds (matrix_sel in offset)
  Packed,        // VOP3P on 64-bit register pairs: src modifiers -> neg/packed, control imm -> clamp
  VectorControl, // VOP1/VOP3 whose control imms are operation parameters (bitop3, fi, bound_ctrl):
                 // defs/values as Vector, control i -> offset bits [8i+7:8i]; op_sel -> packed kHalfHigh
};

// Flags that tell the decoder which modifiers the handler honours.
namespace hflag {
constexpr uint16_t kFloatModifiers = 1;  // neg/abs on sources, clamp/omod on the result
constexpr uint16_t kImplicitVccIn = 2;   // e32 form reads VCC as its last source (cndmask, addc)
constexpr uint16_t kImplicitVccOut = 4;  // e32 form writes VCC as dst[1] (carry, compare)
constexpr uint16_t kBranch = 8;          // SOPP immediate is a branch offset
constexpr uint16_t kSourceModifiersOnly = 16;  // neg/abs honoured, clamp/omod rejected
constexpr uint16_t kPackedSelectOnly = 32;     // Packed: op_sel honoured; neg, clamp, non-default op_sel_hi rejected
constexpr uint16_t kIntegerClamp = 64;         // integer operation honouring clamp (saturation); omod rejected
constexpr uint16_t kMatrixFormats = 128;       // Matrix: cbsz / blgp are A's / B's f8f6f4 formats
constexpr uint16_t kMatrixScales = 256;        // Matrix: two scale VGPRs, op_sel / op_sel_hi pick their bytes
// Vector: VOP3 op_sel (decoded into packed_sel::kHalfHigh of the operand) honoured on
constexpr uint16_t kOpSelDestination = 512;    // dst[0] (op_sel[3]: the destination's high half)
constexpr uint16_t kOpSelSources = 1024;       // every source (op_sel[s]: source s's high half)
constexpr uint16_t kOpSelShiftSource = 2048;   // src[2] only (v_alignbit/alignbyte: the shift's half)
constexpr uint16_t kOpSel = kOpSelDestination | kOpSelSources | kOpSelShiftSource;
}  // namespace hflag

struct HandlerEntry {
  Handler fn = nullptr;
  OperandForm form = OperandForm::Vector;
  uint16_t flags = 0;
  uint32_t aux = 0;  // family-specific: bytes per lane for memory ops, shape for MFMA, ...
};

class HandlerRegistry {
 public:
  void add(std::string_view name, HandlerEntry entry) { table_[std::string(name)] = entry; }
  const HandlerEntry* find(std::string_view name) const {
    auto it = table_.find(std::string(name));
    return it == table_.end() ? nullptr : &it->second;
  }
  size_t size() const { return table_.size(); }
  template <class F> void for_each(F&& f) const { for (auto& [n, e] : table_) f(n, e); }

 private:
  std::unordered_map<std::string, HandlerEntry> table_;
};

// A row of a VALU handler table: compares (V_CMP*) take the compare operand form.
struct VectorOpEntry {
  const char* name;
  Handler fn;
  uint16_t flags;
};
void add_vector_ops(HandlerRegistry& r, std::span<const VectorOpEntry> ops);

// The registry with every supported instruction (built once).
const HandlerRegistry& handler_registry();

// Per-family registration, one per ops_*.cpp file.
void register_scalar_alu(HandlerRegistry&);
void register_program_control(HandlerRegistry&);
void register_vector_integer(HandlerRegistry&);
void register_vector_integer16(HandlerRegistry&);
void register_vector_float(HandlerRegistry&);
void register_vector_compare(HandlerRegistry&);
void register_vector_packed(HandlerRegistry&);
void register_vector_gfx950(HandlerRegistry&);
void register_vector_transcendental(HandlerRegistry&);
void register_vector_minmax3(HandlerRegistry&);
void register_vector_convert(HandlerRegistry&);
void register_vector_bits(HandlerRegistry&);
void register_matrix(HandlerRegistry&);
void register_scalar_memory(HandlerRegistry&);
void register_local_memory(HandlerRegistry&);
void register_vector_memory(HandlerRegistry&);
void register_vector_atomic(HandlerRegistry&);
void register_flat_memory(HandlerRegistry&);
void register_scalar_store(HandlerRegistry&);
void register_scratch_memory(HandlerRegistry&);
void register_lane_exchange(HandlerRegistry&);

// "V_ADD_U32_e64_gfx9" -> "V_ADD_U32", "V_MFMA_F32_16X16X128_F8F6F4_f8_f4_gfx940_acd"
// -> "V_MFMA_F32_16X16X128_F8F6F4", "V_MUL_F32_dpp_vi" -> "V_MUL_F32" (the DPP /
// SDWA form is told by lane_form_of).
std::string base_opcode_name(std::string_view llvm_name);

}  // namespace cdna4::emu
