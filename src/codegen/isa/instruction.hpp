#pragma once
// One gfx950 instruction as an object: the single source of truth that is printed
// as assembly text (and can be streamed to LLVM MC as an MCInst), and that the
// hazard pass reads (which registers it writes and reads).
#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/instruction_class.hpp"

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

// A branch target. Names are interned (stored once per process), so a label is
// a plain view that instructions copy for free.
struct Label {
  std::string_view name;
  Label() = default;
  explicit Label(std::string_view n);
  bool operator==(const Label&) const = default;
};

using Arg = std::variant<Reg, Special, Imm, Label>;

// Up to N operands in place: kernels are built from thousands of instructions
// that are copied and moved around, so operands live inside them, not on the heap.
template <int N>
class ArgList {
 public:
  ArgList() = default;
  ArgList(std::initializer_list<Arg> args) {
    for (const Arg& a : args) push_back(a);
  }
  void push_back(const Arg& a) {
    if (n_ == N) throw std::length_error("instruction: more operands than it has room for");
    items_[n_++] = a;
  }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  Arg& operator[](size_t i) { return items_[i]; }
  const Arg& operator[](size_t i) const { return items_[i]; }
  const Arg& at(size_t i) const {
    if (i >= n_) throw std::out_of_range("instruction: no such operand");
    return items_[i];
  }
  const Arg& front() const { return at(0); }
  Arg* begin() { return items_.data(); }
  Arg* end() { return items_.data() + n_; }
  const Arg* begin() const { return items_.data(); }
  const Arg* end() const { return items_.data() + n_; }
  bool operator==(const ArgList& o) const { return std::equal(begin(), end(), o.begin(), o.end()); }

 private:
  std::array<Arg, N> items_{};
  uint8_t n_ = 0;
};

// An MFMA's modifiers (CDNA 4 ISA guide 7.1): cbsz / blgp name an f8f6f4 kind's A / B
// format (otherwise cbsz and abid broadcast A blocks); op_sel / op_sel_hi, one bit per
// source, pick the scale bytes of v_mfma_scale_*.
struct MfmaModifiers {
  uint8_t cbsz = 0, abid = 0, blgp = 0;
  uint8_t op_sel = 0, op_sel_hi = 0;
  bool operator==(const MfmaModifiers&) const = default;
};
// As LLVM's disassembler prints them ("op_sel_hi:[0,0,0] cbsz:2 blgp:4"); `scaled`: v_mfma_scale_*.
std::string modifier_text(const MfmaModifiers& m, bool scaled);

struct Instruction {
  std::string_view mnemonic;  // static storage: a literal or a table entry
  ArgList<2> defs;            // printed first, in order
  ArgList<6> uses;            // printed after the defs, in order
  std::string modifiers;      // "offen offset:64 lds", printed last (MFMAs: modifier_text of `mfma`)
  std::string comment;
  MfmaModifiers mfma{};       // MFMAs only

  std::string text() const;  // without the comment
};

gfx950::InstClass inst_class(const Instruction& i);
inline bool is_mfma(const Instruction& i) { return inst_class(i) == gfx950::InstClass::mfma; }
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
