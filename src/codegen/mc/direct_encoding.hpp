#pragma once
// Direct encoding of templated instructions. For one template, LLVM's code emitter
// encodes a measured instance and, for every operand bit it can flip, the
// instance with that bit flipped; the XOR of the two is what the bit contributes.
// Random combinations of flips are then checked against the emitter. An
// instruction differing from the measured instance only in measured bits is
// encoded as the instance's bytes XOR those contributions, with no MCInst and
// no emitter call; branch targets, unmeasured bits and templates whose fields
// failed the check go through the emitter as before.
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCSubtargetInfo.h>

#include "codegen/mc/instruction_templates.hpp"

namespace cdna4::codegen {

// Up to 16 bytes of one instruction's encoding.
struct EncodedInstruction {
  uint64_t lo = 0, hi = 0;
  uint8_t size = 0;
  bool operator==(const EncodedInstruction&) const = default;
  EncodedInstruction& operator^=(const EncodedInstruction& o) {
    lo ^= o.lo;
    hi ^= o.hi;
    return *this;
  }
};

// What the emitter needs to encode probes.
struct EmitterContext {
  const llvm::MCCodeEmitter& emitter;
  const llvm::MCSubtargetInfo& sti;
  llvm::MCContext& ctx;
};

class DirectEncoding {
 public:
  // Measures `t` around `example`, an instruction of its shape. Null when the
  // template cannot be encoded directly (a branch target, fixups, a field the
  // check found not to be linear).
  static std::unique_ptr<DirectEncoding> measure(const InstructionTemplate& t, const isa::Instruction& example,
                                                 const EmitterContext& mc);

  // `inst` (of the measured template) encoded, or false when it needs the emitter.
  bool encode(const isa::Instruction& inst, EncodedInstruction& out) const;

 private:
  struct Operand {
    uint8_t arg;              // index into template_args()
    int64_t measured;         // register index or immediate of the measured instance
    uint32_t flippable = 0;   // bits whose contribution was measured
    std::vector<EncodedInstruction> flip;  // contribution of each bit
  };
  EncodedInstruction measured_;
  std::vector<Operand> operands_;
};

// Per-process, thread-safe: one measurement per template, made on first use.
class DirectEncodings {
 public:
  static DirectEncodings& process();
  // One entry per line: the template's direct encoding, or null.
  std::vector<const DirectEncoding*> lookup(const isa::Code& code,
                                            const std::vector<const InstructionTemplate*>& templates,
                                            const EmitterContext& mc);

 private:
  std::shared_mutex mutex_;
  std::unordered_map<const InstructionTemplate*, std::unique_ptr<DirectEncoding>> measured_;
};

// The value an argument contributes to the encoding: a register's index, an
// immediate as the parser reads it, the "offset:N" modifier. Labels have none.
bool argument_value(const isa::Instruction& inst, size_t arg, int64_t& value);

}  // namespace cdna4::codegen
