// gfx950 wait-state rules. The numbers follow the CDNA3 ISA hazard tables as
// LLVM's GCNHazardRecognizer applies them to gfx950, which adds one wait state to
// the rules that involve an XDL (MFMA) result.
#include "codegen/isa/hazards.hpp"

#include <algorithm>
#include <map>

namespace cdna4::codegen::isa {

namespace {

constexpr int kGfx950XdlExtra = 1;

bool any_overlap(const std::vector<Arg>& xs, const std::vector<Arg>& ys) {
  for (const auto& x : xs)
    if (auto rx = std::get_if<Reg>(&x))
      for (const auto& y : ys)
        if (auto ry = std::get_if<Reg>(&y); ry && rx->overlaps(*ry)) return true;
  return false;
}

bool writes_special(const Instruction& i, Special sp) {
  for (const auto& d : i.defs)
    if (auto s = std::get_if<Special>(&d); s && *s == sp) return true;
  return false;
}

bool writes_sgpr(const Instruction& i) {
  for (const auto& d : i.defs) {
    if (auto r = std::get_if<Reg>(&d); r && r->file == RegFile::s) return true;
    if (std::holds_alternative<Special>(d)) return true;
  }
  return false;
}

bool reads_written_sgpr(const Instruction& producer, const Instruction& consumer) {
  for (const auto& d : producer.defs)
    for (const auto& u : consumer.uses) {
      if (auto rd = std::get_if<Reg>(&d)) {
        if (auto ru = std::get_if<Reg>(&u); ru && rd->overlaps(*ru)) return true;
      } else if (d == u) {
        return true;
      }
    }
  return false;
}

// MFMA operands: uses = {srcA, srcB, srcC}.
const Arg& src_c(const Instruction& mfma) { return mfma.uses.at(2); }
std::vector<Arg> src_ab(const Instruction& mfma) { return {mfma.uses.at(0), mfma.uses.at(1)}; }

int xdl_write_then_non_xdl_access(const Instruction& p, const Instruction& c) {
  if (!is_mfma(p) || is_mfma(c)) return 0;
  if (!any_overlap(p.defs, c.uses) && !(is_valu(c) && any_overlap(p.defs, c.defs))) return 0;
  return mfma_passes(p) + 3 + kGfx950XdlExtra;
}

int xdl_write_then_xdl_src_ab(const Instruction& p, const Instruction& c) {
  if (!is_mfma(p) || !is_mfma(c) || !any_overlap(p.defs, src_ab(c))) return 0;
  return mfma_passes(p) + 3 + kGfx950XdlExtra;
}

int xdl_write_then_xdl_src_c(const Instruction& p, const Instruction& c) {
  if (!is_mfma(p) || !is_mfma(c) || !any_overlap(p.defs, {src_c(c)})) return 0;
  const bool same = p.defs.at(0) == src_c(c) && p.mnemonic == c.mnemonic;
  if (same) return mfma_passes(p) == 2 ? 2 : 0;  // back-to-back accumulation is forwarded
  return mfma_passes(p) + 1 + kGfx950XdlExtra;
}

int xdl_read_src_c_then_valu_write(const Instruction& p, const Instruction& c) {
  if (!is_mfma(p) || !(is_valu(c) || is_mfma(c)) || !any_overlap({src_c(p)}, c.defs)) return 0;
  if (is_mfma(c) && c.defs.at(0) == src_c(p)) return 0;
  return mfma_passes(p) - 1 + kGfx950XdlExtra;
}

int valu_write_vgpr_then_xdl_read(const Instruction& p, const Instruction& c) {
  if (!is_valu(p) || !is_mfma(c) || !any_overlap(p.defs, c.uses)) return 0;
  return 2;
}

int valu_write_sgpr_then_vmem_read(const Instruction& p, const Instruction& c) {
  if (!is_valu(p) || !writes_sgpr(p) || !is_vmem(c) || !reads_written_sgpr(p, c)) return 0;
  return 5;
}

int readlane_write_sgpr_then_valu_read(const Instruction& p, const Instruction& c) {
  if (p.mnemonic.rfind("v_readfirstlane", 0) != 0 && p.mnemonic.rfind("v_readlane", 0) != 0) return 0;
  if (!(is_valu(c) || is_mfma(c)) || !reads_written_sgpr(p, c)) return 0;
  return 2;
}

int salu_write_m0_then_lds_dma(const Instruction& p, const Instruction& c) {
  if (!is_salu(p) || !writes_special(p, Special::m0) || !is_lds_dma(c)) return 0;
  return 1;
}

}  // namespace

const std::vector<HazardRule>& gfx950_hazard_rules() {
  static const std::vector<HazardRule> rules = {
      {"xdl-write/valu-vmem-ds-access", xdl_write_then_non_xdl_access},
      {"xdl-write/xdl-srcab", xdl_write_then_xdl_src_ab},
      {"xdl-write/xdl-srcc", xdl_write_then_xdl_src_c},
      {"xdl-srcc-read/valu-write", xdl_read_src_c_then_valu_write},
      {"valu-write-vgpr/xdl-read", valu_write_vgpr_then_xdl_read},
      {"valu-write-sgpr/vmem-read", valu_write_sgpr_then_vmem_read},
      {"readlane-write-sgpr/valu-read", readlane_write_sgpr_then_valu_read},
      {"salu-write-m0/lds-dma", salu_write_m0_then_lds_dma},
  };
  return rules;
}

HazardNeed hazard_between(const Instruction& producer, const Instruction& consumer) {
  HazardNeed need;
  for (const auto& rule : gfx950_hazard_rules()) {
    const int w = rule.required(producer, consumer);
    if (w > need.wait_states) need = {w, rule.name};
  }
  return need;
}

namespace {

constexpr int kMaxLookback = 24;  // longer than any rule's wait

// The instructions issued before the current point, newest last, with the wait
// states that passed since each one issued. Entries point into the input code,
// which outlives every history.
struct History {
  struct Entry {
    const Instruction* inst;
    int age;  // wait states issued after it
  };
  std::vector<Entry> entries;

  void pass(int states) {
    for (auto& e : entries) e.age += states;
    std::erase_if(entries, [](const Entry& e) { return e.age > kMaxLookback; });
  }
  void issue(const Instruction& i) {
    pass(wait_states(i));
    entries.push_back({&i, 0});
  }
  // A join point: whichever predecessor is closer decides.
  void merge(const History& other) { entries.insert(entries.end(), other.entries.begin(), other.entries.end()); }
  int missing_states(const Instruction& consumer) const {
    int missing = 0;
    for (const auto& e : entries) missing = std::max(missing, hazard_between(*e.inst, consumer).wait_states - e.age);
    return missing;
  }
};

bool is_branch(const Instruction& i) { return i.mnemonic.rfind("s_cbranch", 0) == 0 || i.mnemonic == "s_branch"; }

// One forward walk; `loop_tails` holds, per branch target, the history at the
// branch of the previous walk.
Code one_pass(const Code& in, const std::map<std::string, History>& loop_tails,
              std::map<std::string, History>& tails_out) {
  Code out;
  out.lines.reserve(in.lines.size() + in.lines.size() / 4);
  History h;
  for (const auto& line : in.lines) {
    if (line.kind == Line::Kind::label) {
      if (auto it = loop_tails.find(line.text); it != loop_tails.end()) h.merge(it->second);
    } else if (line.kind == Line::Kind::instruction) {
      for (int missing = h.missing_states(line.inst); missing > 0;) {
        const int n = std::min(missing, 8);
        out.s_nop(n - 1);
        h.pass(n);
        missing -= n;
      }
      h.issue(line.inst);
      if (is_branch(line.inst)) tails_out[std::get<Label>(line.inst.uses.at(0)).name] = h;
    }
    out.lines.push_back(line);
  }
  return out;
}

}  // namespace

Code insert_hazard_nops(const Code& code) {
  // Each walk sees the previous walk's loop tails at the loop heads; nops only
  // grow, so a few walks reach the fixed point.
  std::map<std::string, History> tails;
  Code out;
  for (int walk = 0; walk < 8; ++walk) {
    std::map<std::string, History> new_tails;
    Code next = one_pass(code, tails, new_tails);
    const bool stable = walk > 0 && next.lines.size() == out.lines.size();
    out = std::move(next);
    tails = std::move(new_tails);
    if (stable) return out;
  }
  return out;
}

}  // namespace cdna4::codegen::isa
