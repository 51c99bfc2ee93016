#include "codegen/mc/direct_encoding.hpp"

#include <atomic>
#include <cstring>
#include <mutex>

#include <llvm/ADT/SmallVector.h>
#include <llvm/MC/MCFixup.h>

#include "codegen/mc/immediate_class.hpp"
#include "codegen/mc/modifier_offset.hpp"
#include "codegen/mc/register_table.hpp"

namespace cdna4::codegen {

namespace {

std::atomic<bool> direct_on{true};

constexpr int kTrials = 32;

bool emit(const InstructionTemplate& t, const isa::Instruction& inst, const EmitterContext& mc,
          EncodedInstruction& out) {
  llvm::MCInst mcinst = t.inst;
  if (!fill_template(mcinst, t, inst, mc.ctx)) return false;
  llvm::SmallVector<char, 16> bytes;
  llvm::SmallVector<llvm::MCFixup, 1> fixups;
  mc.emitter.encodeInstruction(mcinst, bytes, fixups, mc.sti);
  if (!fixups.empty() || bytes.empty() || bytes.size() > 16) return false;
  char padded[16] = {};
  std::memcpy(padded, bytes.data(), bytes.size());
  std::memcpy(&out.lo, padded, 8);
  std::memcpy(&out.hi, padded + 8, 8);
  out.size = uint8_t(bytes.size());
  return true;
}

// `inst` with argument `arg` set to `value`, and every argument holding the same
// register with it (the template ties them). False when that is not an
// instruction of the template's shape.
bool with_value(isa::Instruction& inst, size_t arg, int64_t value) {
  const size_t n = inst.defs.size() + inst.uses.size();
  if (arg == n) {
    const auto offset = find_modifier_offset(inst.modifiers);
    if (!offset || value <= 0 || offset_class(value) != offset_class(offset->value)) return false;
    inst.modifiers.replace(offset->begin, offset->end - offset->begin, std::to_string(value));
    return true;
  }
  isa::Arg& a = nth_arg(inst, arg);
  if (auto* imm = std::get_if<isa::Imm>(&a)) {
    // Within one class: inline integers 0..64 are 128 | v, literals are a dword of their own.
    const int64_t old = printed_immediate(imm->value);
    if (value < 0 || value > 0xffffffff || old < 0 || immediate_class(value) != immediate_class(old)) return false;
    imm->value = value;
    return true;
  }
  auto* r = std::get_if<isa::Reg>(&a);
  if (!r) return false;
  const isa::Reg old = *r;
  if (value < 0 || value >= 256) return false;
  isa::Reg changed = old;
  changed.index = uint16_t(value);
  if (!RegisterTable::gfx950().find(changed)) return false;
  for (size_t i = 0; i < n; ++i) {
    if (auto* o = std::get_if<isa::Reg>(&nth_arg(inst, i))) {
      if (*o == old) *o = changed;
      else if (o->overlaps(changed)) return false;
    }
  }
  return true;
}

int measurable_bits(const isa::Instruction& inst, size_t arg) {
  if (arg == inst.defs.size() + inst.uses.size()) return 16;
  const isa::Arg& a = nth_arg(inst, arg);
  if (std::holds_alternative<isa::Reg>(a)) return 8;
  const auto* imm = std::get_if<isa::Imm>(&a);
  if (!imm || printed_immediate(imm->value) < 0) return 0;  // negative inline integers are not linear
  switch (immediate_class(imm->value)) {
    case ImmediateClass::inline_int: return 7;
    case ImmediateClass::literal16: return 16;
    case ImmediateClass::literal32: return 32;
    case ImmediateClass::inline_float: return 0;
  }
  return 0;
}

// Register tuples keep their alignment within a shape (see shape_key).
int first_bit(const isa::Instruction& inst, size_t arg) {
  if (arg == inst.defs.size() + inst.uses.size()) return 0;
  const auto* r = std::get_if<isa::Reg>(&nth_arg(inst, arg));
  return r && r->count > 1 ? 2 : 0;
}

}  // namespace

bool argument_value(const isa::Instruction& inst, size_t arg, int64_t& value) {
  const size_t n = inst.defs.size() + inst.uses.size();
  if (arg == n) {
    const auto offset = find_modifier_offset(inst.modifiers);
    if (!offset) return false;
    value = offset->value;
    return true;
  }
  const isa::Arg& a = nth_arg(inst, arg);
  if (const auto* r = std::get_if<isa::Reg>(&a)) value = r->index;
  else if (const auto* imm = std::get_if<isa::Imm>(&a)) value = printed_immediate(imm->value);
  else return false;
  return true;
}

std::unique_ptr<DirectEncoding> DirectEncoding::measure(const InstructionTemplate& t, const isa::Instruction& example,
                                                        const EmitterContext& mc) {
  auto d = std::make_unique<DirectEncoding>();
  if (!emit(t, example, mc, d->measured_)) return nullptr;
  for (const auto& slot : t.slots) {
    if (slot.kind == InstructionTemplate::SlotKind::label) return nullptr;
    bool seen = false;
    for (const auto& o : d->operands_) seen |= o.arg == slot.arg;
    if (seen) continue;
    Operand o;
    o.arg = slot.arg;
    if (!argument_value(example, slot.arg, o.measured)) return nullptr;
    o.flip.resize(32);
    const int bits = measurable_bits(example, slot.arg);
    for (int b = first_bit(example, slot.arg); b < bits; ++b) {
      // From the measured value, else from a neighbour of it: both ends must be valid.
      for (int c = -1; c < bits; ++c) {
        if (c == b) continue;
        const int64_t from = c < 0 ? o.measured : o.measured ^ (int64_t(1) << c);
        isa::Instruction x = example, y = example;
        EncodedInstruction ex, ey;
        if (!with_value(x, slot.arg, from) || !with_value(y, slot.arg, from ^ (int64_t(1) << b))) continue;
        if (!emit(t, x, mc, ex) || !emit(t, y, mc, ey) || ex.size != d->measured_.size || ey.size != ex.size)
          continue;
        o.flip[size_t(b)] = ex;
        o.flip[size_t(b)] ^= ey;
        o.flippable |= uint32_t(1) << b;
        break;
      }
    }
    d->operands_.push_back(std::move(o));
  }
  // The contributions must add up: random combinations against the emitter.
  uint64_t state = 0x9e3779b97f4a7c15ull ^ uint64_t(example.mnemonic.size());
  for (int trial = 0; trial < kTrials; ++trial) {
    isa::Instruction x = example;
    bool valid = true;
    for (const auto& o : d->operands_) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      valid = valid && (o.flippable == 0 || with_value(x, o.arg, o.measured ^ int64_t(uint32_t(state >> 32) & o.flippable)));
    }
    if (!valid) continue;
    EncodedInstruction actual, predicted;
    if (!emit(t, x, mc, actual) || !d->encode(x, predicted) || !(actual == predicted)) return nullptr;
  }
  return d;
}

bool DirectEncoding::encode(const isa::Instruction& inst, EncodedInstruction& out) const {
  out = measured_;
  for (const auto& o : operands_) {
    int64_t value;
    if (!argument_value(inst, o.arg, value)) return false;
    const int64_t change = value ^ o.measured;
    if (change < 0 || (change & ~int64_t(o.flippable)) != 0) return false;
    for (uint32_t bits = uint32_t(change); bits; bits &= bits - 1) out ^= o.flip[size_t(__builtin_ctz(bits))];
  }
  return true;
}

DirectEncodings& DirectEncodings::process() {
  static DirectEncodings cache;
  return cache;
}

std::vector<const DirectEncoding*> DirectEncodings::lookup(const isa::Code& code,
                                                           const std::vector<const InstructionTemplate*>& templates,
                                                           const EmitterContext& mc) {
  std::vector<const DirectEncoding*> out(templates.size(), nullptr);
  if (!direct_on.load()) return out;
  std::vector<size_t> missing;
  {
    std::shared_lock lock(mutex_);
    for (size_t i = 0; i < templates.size(); ++i) {
      if (!templates[i]) continue;
      if (auto it = measured_.find(templates[i]); it != measured_.end()) out[i] = it->second.get();
      else missing.push_back(i);
    }
  }
  if (missing.empty()) return out;
  std::unordered_map<const InstructionTemplate*, std::unique_ptr<DirectEncoding>> made;
  for (size_t i : missing)
    if (!made.count(templates[i])) made.emplace(templates[i], DirectEncoding::measure(*templates[i], code.lines[i].inst, mc));
  std::unique_lock lock(mutex_);
  for (auto& [t, d] : made) measured_.try_emplace(t, std::move(d));
  for (size_t i : missing) out[i] = measured_.at(templates[i]).get();
  return out;
}

bool set_direct_encoding(bool on) { return direct_on.exchange(on); }

}  // namespace cdna4::codegen
