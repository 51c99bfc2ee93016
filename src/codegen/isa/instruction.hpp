#pragma once
// One gfx950 instruction as an object: the single source of truth that is printed
// as assembly text (and can be streamed to LLVM MC as an MCInst), and that the
// hazard pass reads (which registers it writes and reads).
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace cdna4::codegen::isa {

enum class RegFile : uint8_t { s, v, a };

struct Reg {
  RegFile file;
  uint16_t index;
  uint16_t count = 1;
  uint16_t last() const { return uint16_t(index + count - 1); }
  bool overlaps(const Reg& o) const { return file == o.file && index <= o.last() && o.index <= last(); }
  Reg sub(int offset, int n = 1) const { return Reg{file, uint16_t(index + offset), uint16_t(n)}; }
  bool operator==(const Reg&) const = default;
};

// vcc, exec, m0, scc, off: registers the hazard rules care about by name.
enum class Special : uint8_t { vcc, exec, m0, scc, off };

struct Imm {
  int64_t value;
  bool hex = false;  // printed in hex even when small (SMEM offsets, as the disassembler does)
  bool operator==(const Imm&) const = default;
};

struct Label {
  std::string name;
  bool operator==(const Label&) const = default;
};

using Arg = std::variant<Reg, Special, Imm, Label>;

struct Instruction {
  std::string mnemonic;
  std::vector<Arg> defs;  // printed first, in order
  std::vector<Arg> uses;  // printed after the defs, in order
  std::string modifiers;      // "offen offset:64 lds", printed last
  std::string comment;

  std::string text() const;  // without the comment
};

bool is_mfma(const Instruction& i);
bool is_valu(const Instruction& i);
bool is_salu(const Instruction& i);
bool is_vmem(const Instruction& i);
bool is_ds(const Instruction& i);
bool is_lds_dma(const Instruction& i);
int mfma_passes(const Instruction& i);  // 0 for non-MFMA
int wait_states(const Instruction& i);  // s_nop N = N + 1, everything else 1

// Register shorthands that read like assembly: s(4), s(4, 2) = s[4:5], v(8, 4), a(0, 4).
inline Reg s(int index, int count = 1) { return Reg{RegFile::s, uint16_t(index), uint16_t(count)}; }
inline Reg v(int index, int count = 1) { return Reg{RegFile::v, uint16_t(index), uint16_t(count)}; }
inline Reg a(int index, int count = 1) { return Reg{RegFile::a, uint16_t(index), uint16_t(count)}; }
inline Imm imm(int64_t value) { return Imm{value}; }
inline Imm hex(int64_t value) { return Imm{value, true}; }
constexpr Special vcc = Special::vcc, exec = Special::exec, m0 = Special::m0, scc = Special::scc, off = Special::off;

std::string to_text(const Arg& op);

}  // namespace cdna4::codegen::isa
