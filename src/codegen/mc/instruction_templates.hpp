#pragma once
// Instruction templates: for each instruction *shape* (mnemonic, operand kinds and
// sizes, register alignment, immediate class, modifiers) one MCInst made by the
// text parser, with the operand slots that hold our operands marked. Every later
// instruction of that shape is the template with its registers, immediates and
// branch target put in those slots.
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCInst.h>

#include "codegen/isa/code.hpp"

namespace cdna4::codegen {

// Thrown when an instruction has no template (the parser rejects its shape, or
// its operands cannot be located in the MCInst): the caller assembles the text
// instead, which either gives the same bytes or the parser's diagnostic.
struct TemplateUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct InstructionTemplate {
  enum class SlotKind : uint8_t { reg, imm, label };
  struct Slot {
    uint8_t mc_operand;  // index into inst's operands
    uint8_t arg;         // index into the instruction's template_args()
    SlotKind kind;
  };
  llvm::MCInst inst;
  std::vector<Slot> slots;
};

// Operand `i` of defs followed by uses.
inline const isa::Arg& nth_arg(const isa::Instruction& inst, size_t i) {
  return i < inst.defs.size() ? inst.defs[i] : inst.uses[i - inst.defs.size()];
}
inline isa::Arg& nth_arg(isa::Instruction& inst, size_t i) {
  return i < inst.defs.size() ? inst.defs[i] : inst.uses[i - inst.defs.size()];
}

// The earlier operand holding exactly the same register as operand `i`, or -1.
// The shape records it, so the parser checks the template with the same aliasing.
int same_register_as(const isa::Instruction& inst, size_t i);

// The operands a template substitutes: defs, uses, then a nonzero "offset:N" modifier.
std::vector<isa::Arg> template_args(const isa::Instruction& inst);

// The value the text parser reads for an immediate: uint32 hex above the inline range.
inline int64_t printed_immediate(int64_t v) { return v >= -16 && v <= 64 ? v : int64_t(uint32_t(v)); }

// Puts the operands of `i`, an instruction of t's shape, into `inst` (a copy of
// t.inst). False when an operand does not fit the slot (a register gfx950 lacks).
bool fill_template(llvm::MCInst& inst, const InstructionTemplate& t, const isa::Instruction& i, llvm::MCContext& ctx);

// Appends the shape of `inst` to `key` (cleared first).
void shape_key(const isa::Instruction& inst, std::string& key);

// Per-process, thread-safe cache of templates.
class TemplateCache {
 public:
  static TemplateCache& process();

  // One entry per line of `code`: the template of each instruction, nullptr for
  // labels and comments. Builds the missing templates in one parse. Throws
  // TemplateUnavailable.
  std::vector<const InstructionTemplate*> lookup(const isa::Code& code);

  size_t size() const;

 private:
  mutable std::shared_mutex mutex_;
  // Never erased: lookups hand out pointers into it.
  std::unordered_map<std::string, std::unique_ptr<InstructionTemplate>> templates_;
};

// Builds one template per instruction, each from a parse of two placeholder
// instances of its shape. Throws TemplateUnavailable.
std::vector<std::unique_ptr<InstructionTemplate>> build_templates(const std::vector<const isa::Instruction*>& examples);

}  // namespace cdna4::codegen
