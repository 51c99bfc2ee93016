#include "codegen/mc/instruction_templates.hpp"

#include <mutex>

#include <llvm/MC/MCExpr.h>

#include "codegen/mc/immediate_class.hpp"
#include "codegen/mc/modifier_offset.hpp"
#include "codegen/mc/register_table.hpp"

namespace cdna4::codegen {

namespace {

// The key is only compared, never read: operands go in as raw bytes.
class KeyWriter {
 public:
  explicit KeyWriter(std::string& key) : key_(key) {}
  ~KeyWriter() { key_.append(buf_, len_); }
  void put(char c) {
    if (len_ == sizeof buf_) spill();
    buf_[len_++] = c;
  }
  void put(std::string_view text) {
    if (len_ + text.size() > sizeof buf_) spill();
    if (text.size() > sizeof buf_) return void(key_.append(text));
    text.copy(buf_ + len_, text.size());
    len_ += text.size();
  }

 private:
  void spill() {
    key_.append(buf_, len_);
    len_ = 0;
  }
  std::string& key_;
  char buf_[192];
  size_t len_ = 0;
};

void put_arg(KeyWriter& key, const isa::Arg& arg) {
  if (const auto* r = std::get_if<isa::Reg>(&arg)) {
    key.put(char('a' + int(r->file)));
    key.put(char(r->count));
    // Tuples must be aligned (the parser rejects e.g. s[3:4]): the template keeps the alignment.
    if (r->count > 1) key.put(char(r->index % 4));
  } else if (const auto* sp = std::get_if<isa::Special>(&arg)) {
    key.put('S');
    key.put(char(*sp));
  } else if (const auto* imm = std::get_if<isa::Imm>(&arg)) {
    key.put('#');
    key.put(char(immediate_class(imm->value)));
  } else {
    key.put('L');
  }
}

}  // namespace

int same_register_as(const isa::Instruction& inst, size_t i) {
  const auto* r = std::get_if<isa::Reg>(&nth_arg(inst, i));
  if (!r) return -1;
  for (size_t j = 0; j < i; ++j)
    if (const auto* earlier = std::get_if<isa::Reg>(&nth_arg(inst, j)); earlier && *earlier == *r) return int(j);
  return -1;
}

bool fill_template(llvm::MCInst& inst, const InstructionTemplate& t, const isa::Instruction& i, llvm::MCContext& ctx) {
  const RegisterTable& regs = RegisterTable::gfx950();
  const size_t n = i.defs.size() + i.uses.size();
  for (const auto& slot : t.slots) {
    llvm::MCOperand& op = inst.getOperand(slot.mc_operand);
    if (slot.arg >= n) {  // the "offset:N" modifier
      const auto offset = find_modifier_offset(i.modifiers);
      if (!offset || slot.kind != InstructionTemplate::SlotKind::imm) return false;
      op.setImm(offset->value);
      continue;
    }
    const isa::Arg& arg = nth_arg(i, slot.arg);
    switch (slot.kind) {
      case InstructionTemplate::SlotKind::reg: {
        const auto* r = std::get_if<isa::Reg>(&arg);
        const llvm::MCRegister reg = r ? regs.find(*r) : llvm::MCRegister();
        if (!reg) return false;
        op.setReg(reg);
        break;
      }
      case InstructionTemplate::SlotKind::imm: {
        const auto* imm = std::get_if<isa::Imm>(&arg);
        if (!imm) return false;
        op.setImm(printed_immediate(imm->value));
        break;
      }
      case InstructionTemplate::SlotKind::label: {
        const auto* label = std::get_if<isa::Label>(&arg);
        if (!label) return false;
        op = llvm::MCOperand::createExpr(llvm::MCSymbolRefExpr::create(ctx.getOrCreateSymbol(label->name), ctx));
        break;
      }
    }
  }
  return true;
}

void shape_key(const isa::Instruction& inst, std::string& key) {
  key.clear();
  KeyWriter w(key);
  w.put(inst.mnemonic);
  const size_t n = inst.defs.size() + inst.uses.size();
  for (size_t i = 0; i < n; ++i) {
    w.put(',');
    put_arg(w, nth_arg(inst, i));
    if (const int same = same_register_as(inst, i); same >= 0) {
      w.put('=');
      w.put(char(same));
    }
  }
  w.put('|');
  const auto offset = find_modifier_offset(inst.modifiers);
  if (!offset || offset_class(offset->value) == 'x') return w.put(inst.modifiers);
  const std::string_view mods = inst.modifiers;
  w.put(mods.substr(0, offset->begin));
  w.put('#');
  w.put(offset_class(offset->value));
  w.put(mods.substr(offset->end));
}

std::vector<isa::Arg> template_args(const isa::Instruction& inst) {
  std::vector<isa::Arg> out(inst.defs.begin(), inst.defs.end());
  out.insert(out.end(), inst.uses.begin(), inst.uses.end());
  if (const auto offset = find_modifier_offset(inst.modifiers); offset && offset_class(offset->value) != 'x')
    out.push_back(isa::imm(offset->value));
  return out;
}

TemplateCache& TemplateCache::process() {
  static TemplateCache cache;
  return cache;
}

size_t TemplateCache::size() const {
  std::shared_lock lock(mutex_);
  return templates_.size();
}

std::vector<const InstructionTemplate*> TemplateCache::lookup(const isa::Code& code) {
  std::vector<const InstructionTemplate*> out(code.lines.size(), nullptr);
  std::vector<std::pair<size_t, std::string>> missing;  // line, shape
  {
    std::string key;
    std::shared_lock lock(mutex_);
    for (size_t i = 0; i < code.lines.size(); ++i) {
      if (code.lines[i].kind != isa::Line::Kind::instruction) continue;
      shape_key(code.lines[i].inst, key);
      if (auto it = templates_.find(key); it != templates_.end()) out[i] = it->second.get();
      else missing.emplace_back(i, key);
    }
  }
  if (missing.empty()) return out;

  // One example per missing shape; the parse runs without the lock.
  std::unordered_map<std::string_view, size_t> example_of;
  std::vector<const isa::Instruction*> examples;
  for (const auto& [line, key] : missing)
    if (example_of.emplace(key, examples.size()).second) examples.push_back(&code.lines[line].inst);
  auto built = build_templates(examples);

  std::unique_lock lock(mutex_);
  std::vector<const InstructionTemplate*> resolved(examples.size());
  for (const auto& [key, index] : example_of)
    resolved[index] = templates_.try_emplace(std::string(key), std::move(built[index])).first->second.get();
  for (const auto& [line, key] : missing) out[line] = resolved[example_of.at(key)];
  return out;
}

}  // namespace cdna4::codegen
