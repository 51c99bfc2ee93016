// Templates from the text parser: each shape is written twice with different
// placeholder operands; the MCInst operands that differ between the two parses
// are ours, and the placeholder values say which of our operands each one holds.
#include <fmt/format.h>
#include <llvm/MC/MCExpr.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSymbol.h>

#include "cdna4/error.hpp"
#include "codegen/mc/assembly_session.hpp"
#include "codegen/mc/immediate_class.hpp"
#include "codegen/mc/instruction_templates.hpp"
#include "codegen/mc/modifier_offset.hpp"
#include "codegen/mc/register_table.hpp"

namespace cdna4::codegen {

namespace {

constexpr int kInstances = 2;
constexpr const char* kPlaceholderLabel = "cdna4_template_target";

// Keeps the instructions the parser emits and nothing else.
class CapturingStreamer : public llvm::MCStreamer {
 public:
  explicit CapturingStreamer(llvm::MCContext& ctx) : llvm::MCStreamer(ctx) {}
  std::vector<llvm::MCInst> instructions;

  void emitInstruction(const llvm::MCInst& inst, const llvm::MCSubtargetInfo&) override {
    instructions.push_back(inst);
  }
  bool emitSymbolAttribute(llvm::MCSymbol*, llvm::MCSymbolAttr) override { return true; }
  void emitCommonSymbol(llvm::MCSymbol*, uint64_t, llvm::Align) override {}
  void emitZerofill(llvm::MCSection*, llvm::MCSymbol*, uint64_t, llvm::Align, llvm::SMLoc) override {}
};

// Placeholder for argument `arg` in instance `instance`: distinct across the
// arguments and instances, same kind, size, alignment and immediate class.
isa::Arg placeholder(const isa::Arg& original, int arg, int instance) {
  const int n = kInstances * arg + instance;
  if (const auto* r = std::get_if<isa::Reg>(&original)) {
    if (r->count > 16) throw TemplateUnavailable("register tuple wider than 16");
    const int spacing = r->file == isa::RegFile::s ? 8 : 20;
    return isa::Reg{r->file, uint16_t(spacing * n + r->index % 4), r->count};
  }
  if (const auto* imm = std::get_if<isa::Imm>(&original)) {
    switch (immediate_class(imm->value)) {
      case ImmediateClass::inline_int: return isa::imm(3 + 2 * n);
      case ImmediateClass::inline_float:
        if (size_t(n) >= kInlineFloatBits.size()) throw TemplateUnavailable("too many float immediates");
        return isa::imm(kInlineFloatBits[size_t(n)]);
      case ImmediateClass::literal16: return isa::imm(0x4000 + 0x101 * n);
      case ImmediateClass::literal32: return isa::imm(0x12340000 + 0x10001 * n);
    }
  }
  if (std::holds_alternative<isa::Label>(original)) return isa::Label{kPlaceholderLabel};
  return original;
}

bool same_operand(const llvm::MCOperand& x, const llvm::MCOperand& y) {
  if (x.isReg()) return y.isReg() && x.getReg() == y.getReg();
  if (x.isImm()) return y.isImm() && x.getImm() == y.getImm();
  if (x.isSFPImm()) return y.isSFPImm() && x.getSFPImm() == y.getSFPImm();
  if (x.isDFPImm()) return y.isDFPImm() && x.getDFPImm() == y.getDFPImm();
  return false;
}

isa::Instruction instance_of(const isa::Instruction& example, int instance) {
  isa::Instruction out{example.mnemonic, {}, {}, example.modifiers, ""};
  const size_t n = example.defs.size() + example.uses.size();
  for (size_t i = 0; i < n; ++i) {
    const int same = same_register_as(example, i);
    isa::Arg p = same >= 0 ? nth_arg(out, size_t(same)) : placeholder(nth_arg(example, i), int(i), instance);
    if (i < example.defs.size()) out.defs.push_back(p);
    else out.uses.push_back(p);
  }
  if (const auto offset = find_modifier_offset(example.modifiers); offset && offset_class(offset->value) != 'x') {
    const int value = (offset_class(offset->value) == '2' ? 0x210 : 0x5210) + 0x10 * instance;
    out.modifiers.replace(offset->begin, offset->end - offset->begin, std::to_string(value));
  }
  return out;
}

// Which argument, if any, put `op` of each instance there.
int argument_in_slot(const std::vector<std::vector<isa::Arg>>& instances, const std::vector<llvm::MCOperand>& ops,
                     InstructionTemplate::SlotKind& kind) {
  const RegisterTable& regs = RegisterTable::gfx950();
  for (size_t arg = 0; arg < instances[0].size(); ++arg) {
    bool all = true;
    for (int k = 0; k < kInstances && all; ++k) {
      const isa::Arg& p = instances[size_t(k)][arg];
      const llvm::MCOperand& op = ops[size_t(k)];
      if (const auto* r = std::get_if<isa::Reg>(&p)) {
        all = op.isReg() && op.getReg() == regs.find(*r);
        kind = InstructionTemplate::SlotKind::reg;
      } else if (const auto* imm = std::get_if<isa::Imm>(&p)) {
        all = op.isImm() && op.getImm() == printed_immediate(imm->value);
        kind = InstructionTemplate::SlotKind::imm;
      } else {
        all = false;
      }
    }
    if (all) return int(arg);
  }
  return -1;
}

std::unique_ptr<InstructionTemplate> identify(const isa::Instruction& example, const llvm::MCInst* parsed) {
  const std::string what = fmt::format("template for '{}'", example.text());
  std::vector<std::vector<isa::Arg>> instances;
  for (int k = 0; k < kInstances; ++k) instances.push_back(template_args(instance_of(example, k)));
  for (int k = 1; k < kInstances; ++k)
    if (parsed[k].getOpcode() != parsed[0].getOpcode() || parsed[k].getNumOperands() != parsed[0].getNumOperands())
      throw TemplateUnavailable(what + ": placeholders change the opcode");

  auto t = std::make_unique<InstructionTemplate>();
  t->inst = parsed[0];
  std::vector<bool> placed(instances[0].size(), false);
  int label_arg = -1;
  for (size_t a = 0; a < instances[0].size(); ++a)
    if (std::holds_alternative<isa::Label>(instances[0][a])) {
      if (label_arg >= 0) throw TemplateUnavailable(what + ": two branch targets");
      label_arg = int(a);
    }
  for (unsigned j = 0; j < parsed[0].getNumOperands(); ++j) {
    std::vector<llvm::MCOperand> ops;
    for (int k = 0; k < kInstances; ++k) ops.push_back(parsed[k].getOperand(j));
    if (ops[0].isExpr()) {
      const auto* ref = llvm::dyn_cast<llvm::MCSymbolRefExpr>(ops[0].getExpr());
      if (!ref || label_arg < 0 || ref->getSymbol().getName() != kPlaceholderLabel)
        throw TemplateUnavailable(what + ": an expression operand that is not a branch target");
      t->slots.push_back({uint8_t(j), uint8_t(label_arg), InstructionTemplate::SlotKind::label});
      placed[size_t(label_arg)] = true;
      continue;
    }
    bool same = true;
    for (int k = 1; k < kInstances; ++k) same = same && same_operand(ops[size_t(k)], ops[0]);
    if (same) continue;  // fixed by the shape: opcode-specific operand, special register, modifier
    InstructionTemplate::SlotKind kind{};
    const int arg = argument_in_slot(instances, ops, kind);
    if (arg < 0) throw TemplateUnavailable(fmt::format("{}: MC operand {} follows no operand", what, j));
    t->slots.push_back({uint8_t(j), uint8_t(arg), kind});
    placed[size_t(arg)] = true;
  }
  for (size_t a = 0; a < placed.size(); ++a) {
    const int same = a < example.defs.size() + example.uses.size() ? same_register_as(example, a) : -1;
    if (same >= 0) placed[a] = placed[size_t(same)];  // the substitution puts the same register there
    if (!placed[a] && !std::holds_alternative<isa::Special>(instances[0][a]))
      throw TemplateUnavailable(fmt::format("{}: operand {} not found in the MCInst", what, a));
  }
  return t;
}

}  // namespace

std::vector<std::unique_ptr<InstructionTemplate>> build_templates(const std::vector<const isa::Instruction*>& examples) {
  std::string text;
  for (const auto* example : examples)
    for (int k = 0; k < kInstances; ++k) text += "\t" + instance_of(*example, k).text() + "\n";

  AssemblySession session(text, "<instruction templates>");
  auto capture = std::make_unique<CapturingStreamer>(session.context());
  CapturingStreamer& captured = *capture;
  session.stream_to(std::move(capture));
  try {
    session.run();
  } catch (const Error& e) {
    throw TemplateUnavailable(e.what());
  }
  if (captured.instructions.size() != examples.size() * kInstances)
    throw TemplateUnavailable(fmt::format("instruction templates: {} lines gave {} instructions",
                                          examples.size() * kInstances, captured.instructions.size()));

  std::vector<std::unique_ptr<InstructionTemplate>> out;
  for (size_t i = 0; i < examples.size(); ++i)
    out.push_back(identify(*examples[i], &captured.instructions[i * kInstances]));
  return out;
}

}  // namespace cdna4::codegen
