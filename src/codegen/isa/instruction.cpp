#include "codegen/isa/instruction.hpp"

#include <mutex>
#include <unordered_set>

#include <fmt/format.h>

#include "common/mfma_table.hpp"
#include "common/limits.hpp"

namespace cdna4::codegen::isa {

Label::Label(std::string_view n) {
  static std::mutex mutex;
  static std::unordered_set<std::string> names;  // nodes never move: views into them stay valid
  std::lock_guard<std::mutex> lock(mutex);
  name = *names.emplace(n).first;
}

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.starts_with(prefix); }

std::string reg_text(const Reg& r) {
  const char prefix = r.file == RegFile::s ? 's' : r.file == RegFile::v ? 'v' : 'a';
  if (r.count == 1) return fmt::format("{}{}", prefix, r.index);
  return fmt::format("{}[{}:{}]", prefix, r.index, r.last());
}

// 32-bit patterns the hardware has as inline float constants; the assembler
// encodes them inline and the disassembler prints them as floats.
const char* inline_float(uint32_t bits) {
  switch (bits) {
    case 0x3f000000: return "0.5";
    case 0xbf000000: return "-0.5";
    case 0x3f800000: return "1.0";
    case 0xbf800000: return "-1.0";
    case 0x40000000: return "2.0";
    case 0xc0000000: return "-2.0";
    case 0x40800000: return "4.0";
    case 0xc0800000: return "-4.0";
    case 0x3e22f983: return "0.15915494";
    default: return nullptr;
  }
}

// Printed as the disassembler prints it, so text and decoded bytes read the same.
std::string imm_text(const Imm& i) {
  if (i.hex) return fmt::format("0x{:x}", uint32_t(i.value));
  if (i.value >= -16 && i.value <= 64) return fmt::format("{}", i.value);
  if (const char* f = inline_float(uint32_t(i.value))) return f;
  return fmt::format("0x{:x}", uint32_t(i.value));
}

}  // namespace

std::string to_text(const Arg& op) {
  struct Printer {
    std::string operator()(const Reg& r) const { return reg_text(r); }
    std::string operator()(Special sp) const {
      static const char* names[] = {"vcc", "exec", "m0", "scc", "off"};
      return names[int(sp)];
    }
    std::string operator()(const Imm& i) const { return imm_text(i); }
    std::string operator()(const Label& l) const { return std::string(l.name); }
  };
  return std::visit(Printer{}, op);
}

std::string Instruction::text() const {
  std::string out(mnemonic);
  bool first = true;
  auto add = [&](const Arg& op) {
    out += first ? " " : ", ";
    first = false;
    out += to_text(op);
  };
  for (const auto& d : defs) add(d);
  for (const auto& u : uses) add(u);
  if (!modifiers.empty()) out += " " + modifiers;
  return out;
}

gfx950::InstClass inst_class(const Instruction& i) { return gfx950::classify(i.mnemonic); }

bool is_lds_dma(const Instruction& i) {
  return starts_with(i.mnemonic, "buffer_load") && i.modifiers.find("lds") != std::string::npos;
}

std::string modifier_text(const MfmaModifiers& m, bool scaled) {
  std::string out;
  auto add = [&](const std::string& text) { out += (out.empty() ? "" : " ") + text; };
  auto bits = [](uint8_t b) { return fmt::format("[{},{},{}]", b & 1, (b >> 1) & 1, (b >> 2) & 1); };
  if (scaled && m.op_sel) add("op_sel:" + bits(m.op_sel));
  if (scaled && m.op_sel_hi != 7) add("op_sel_hi:" + bits(m.op_sel_hi));
  if (m.cbsz) add(fmt::format("cbsz:{}", m.cbsz));
  if (m.abid) add(fmt::format("abid:{}", m.abid));
  if (m.blgp) add(fmt::format("blgp:{}", m.blgp));
  return out;
}

int mfma_passes(const Instruction& i) {
  // A kernel repeats one or two MFMAs: the last table search answers most calls.
  thread_local std::string last_mnemonic;
  thread_local const gfx950::MfmaInfo* last_kind = nullptr;
  if (i.mnemonic != last_mnemonic) {
    last_kind = gfx950::find_mfma(i.mnemonic);
    last_mnemonic = i.mnemonic;
  }
  const gfx950::MfmaInfo* kind = last_kind;
  if (!kind) return 0;
  auto format = [](uint8_t code) { return gfx950::f8f6f4_element(code).value_or(gfx950::Element::fp8); };
  return gfx950::mfma_passes(*kind, format(i.mfma.cbsz), format(i.mfma.blgp));
}

int wait_states(const Instruction& i) {
  if (i.mnemonic == "s_nop" && !i.uses.empty()) return gfx950::nop_wait_states(std::get<Imm>(i.uses[0]).value);
  return 1;
}

}  // namespace cdna4::codegen::isa
