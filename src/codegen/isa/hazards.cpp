// gfx950 wait-state rules. The numbers follow the CDNA3 ISA hazard tables as
// LLVM's GCNHazardRecognizer applies them to gfx950, which adds one wait state to
// the rules that involve an XDL (MFMA) result.
#include "codegen/isa/hazards.hpp"

#include <algorithm>
#include <bit>
#include <map>

namespace cdna4::codegen::isa {

namespace {

constexpr int kGfx950XdlExtra = 1;

template <class Xs, class Ys>
bool overlaps_any(const Xs& xs, const Ys& ys) {
  for (const Reg& x : xs)
    for (const Reg& y : ys)
      if (x.overlaps(y)) return true;
  return false;
}

template <class Xs>
bool overlaps_any(const Xs& xs, const Reg& y) {
  for (const Reg& x : xs)
    if (x.overlaps(y)) return true;
  return false;
}

bool writes_sgpr(const HazardFacts& f) {
  if (!f.special_defs.empty()) return true;
  for (const Reg& r : f.defs)
    if (r.file == RegFile::s) return true;
  return false;
}

bool reads_written_sgpr(const HazardFacts& p, const HazardFacts& c) {
  for (const Reg& d : p.defs)
    if (d.file == RegFile::s && overlaps_any(c.uses, d)) return true;
  for (Special d : p.special_defs)
    if (std::find(c.special_uses.begin(), c.special_uses.end(), d) != c.special_uses.end()) return true;
  return false;
}

int xdl_write_then_non_xdl_access(const HazardFacts& p, const HazardFacts& c) {
  if (p.cls != HazardFacts::mfma || c.cls == HazardFacts::mfma) return 0;
  if (!overlaps_any(p.defs, c.uses) && !(c.cls == HazardFacts::valu && overlaps_any(p.defs, c.defs))) return 0;
  return p.passes + 3 + kGfx950XdlExtra;
}

int xdl_write_then_xdl_src_ab(const HazardFacts& p, const HazardFacts& c) {
  if (p.cls != HazardFacts::mfma || c.cls != HazardFacts::mfma) return 0;
  if (!overlaps_any(p.defs, c.src_a) && !overlaps_any(p.defs, c.src_b)) return 0;
  return p.passes + 3 + kGfx950XdlExtra;
}

int xdl_write_then_xdl_src_c(const HazardFacts& p, const HazardFacts& c) {
  if (p.cls != HazardFacts::mfma || c.cls != HazardFacts::mfma || !overlaps_any(p.defs, c.src_c)) return 0;
  if (p.defs.front() == c.src_c && p.passes == c.passes)
    return p.passes == 2 ? 2 : 0;  // back-to-back accumulation is forwarded
  return p.passes + 1 + kGfx950XdlExtra;
}

int xdl_read_src_c_then_valu_write(const HazardFacts& p, const HazardFacts& c) {
  if (p.cls != HazardFacts::mfma || (c.cls != HazardFacts::valu && c.cls != HazardFacts::mfma)) return 0;
  if (!overlaps_any(c.defs, p.src_c)) return 0;
  if (c.cls == HazardFacts::mfma && c.defs.front() == p.src_c) return 0;
  return p.passes - 1 + kGfx950XdlExtra;
}

int valu_write_vgpr_then_xdl_read(const HazardFacts& p, const HazardFacts& c) {
  if (p.cls != HazardFacts::valu || c.cls != HazardFacts::mfma || !overlaps_any(p.defs, c.uses)) return 0;
  return 2;
}

int valu_write_sgpr_then_vmem_read(const HazardFacts& p, const HazardFacts& c) {
  if (p.cls != HazardFacts::valu || c.cls != HazardFacts::vmem || !writes_sgpr(p) || !reads_written_sgpr(p, c))
    return 0;
  return 5;
}

int readlane_write_sgpr_then_valu_read(const HazardFacts& p, const HazardFacts& c) {
  if (!p.readlane || (c.cls != HazardFacts::valu && c.cls != HazardFacts::mfma) || !reads_written_sgpr(p, c))
    return 0;
  return 2;
}

// gfx940+: a transcendental result read by a non-transcendental VALU (LLVM's
// hasTransForwardingHazard, TransDefWaitstates = 1).
int trans_write_then_valu_read(const HazardFacts& p, const HazardFacts& c) {
  if (!p.trans || c.cls != HazardFacts::valu || c.trans || !overlaps_any(p.defs, c.uses)) return 0;
  return 1;
}

int salu_write_m0_then_lds_dma(const HazardFacts& p, const HazardFacts& c) {
  return p.cls == HazardFacts::salu && p.writes_m0 && c.lds_dma ? 1 : 0;
}

}  // namespace

HazardFacts HazardFacts::of(const Instruction& i) {
  HazardFacts f;
  if (is_mfma(i)) f.cls = mfma;
  else if (is_valu(i)) f.cls = valu;
  else if (is_salu(i)) f.cls = salu;
  else if (is_vmem(i)) f.cls = vmem;
  else if (is_ds(i)) f.cls = ds;
  f.lds_dma = f.cls == vmem && is_lds_dma(i);
  if (f.cls == valu) {  // the mnemonic checks below only concern VALU instructions
    f.readlane = i.mnemonic.rfind("v_readfirstlane", 0) == 0 || i.mnemonic.rfind("v_readlane", 0) == 0;
    for (const char* t : {"v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_"})
      f.trans = f.trans || i.mnemonic.rfind(t, 0) == 0;
  }
  f.passes = f.cls == mfma ? mfma_passes(i) : 0;  // a table search by mnemonic: MFMAs only
  for (const Arg& a : i.defs) {
    if (const Reg* r = std::get_if<Reg>(&a)) f.defs.push_back(*r);
    else if (const Special* s = std::get_if<Special>(&a)) f.special_defs.push_back(*s);
  }
  for (const Arg& a : i.uses) {
    if (const Reg* r = std::get_if<Reg>(&a)) f.uses.push_back(*r);
    else if (const Special* s = std::get_if<Special>(&a)) f.special_uses.push_back(*s);
  }
  f.writes_m0 = std::find(f.special_defs.begin(), f.special_defs.end(), Special::m0) != f.special_defs.end();
  const auto mask_of = [](const Reg& r) {
    const uint64_t run = r.count >= 64 ? ~uint64_t(0) : (uint64_t(1) << r.count) - 1;
    return std::rotl(run, (int(r.file) * 21 + r.index) % 64);
  };
  for (const Reg& r : f.defs) f.produced_mask |= mask_of(r);
  f.touched_mask = f.produced_mask;
  for (const Reg& r : f.uses) f.touched_mask |= mask_of(r);
  if (f.cls == mfma) {  // uses = {srcA, srcB, srcC}
    f.src_a = std::get<Reg>(i.uses.at(0));
    f.src_b = std::get<Reg>(i.uses.at(1));
    f.src_c = std::get<Reg>(i.uses.at(2));
    f.produced_mask |= mask_of(f.src_c);
  }
  return f;
}

const std::vector<HazardRule>& gfx950_hazard_rules() {
  static const std::vector<HazardRule> rules = {
      {"xdl-write/valu-vmem-ds-access", HazardFacts::mfma, xdl_write_then_non_xdl_access},
      {"xdl-write/xdl-srcab", HazardFacts::mfma, xdl_write_then_xdl_src_ab},
      {"xdl-write/xdl-srcc", HazardFacts::mfma, xdl_write_then_xdl_src_c},
      {"xdl-srcc-read/valu-write", HazardFacts::mfma, xdl_read_src_c_then_valu_write},
      {"valu-write-vgpr/xdl-read", HazardFacts::valu, valu_write_vgpr_then_xdl_read},
      {"valu-write-sgpr/vmem-read", HazardFacts::valu, valu_write_sgpr_then_vmem_read},
      {"readlane-write-sgpr/valu-read", HazardFacts::valu, readlane_write_sgpr_then_valu_read},
      {"salu-write-m0/lds-dma", HazardFacts::salu, salu_write_m0_then_lds_dma},
      {"trans-write/valu-read", HazardFacts::valu, trans_write_then_valu_read},
  };
  return rules;
}

namespace {

// The rules per producer class.
const std::vector<std::vector<HazardRule>>& rules_after() {
  static const std::vector<std::vector<HazardRule>> by_class = [] {
    std::vector<std::vector<HazardRule>> out(HazardFacts::ds + 1);
    for (const auto& rule : gfx950_hazard_rules()) out[rule.producer].push_back(rule);
    return out;
  }();
  return by_class;
}

HazardNeed need_between(const HazardFacts& p, const HazardFacts& c) {
  HazardNeed need;
  for (const auto& rule : rules_after()[p.cls]) {
    const int w = rule.required(p, c);
    if (w > need.wait_states) need = {w, rule.name};
  }
  return need;
}

}  // namespace

HazardNeed hazard_between(const Instruction& producer, const Instruction& consumer) {
  return need_between(HazardFacts::of(producer), HazardFacts::of(consumer));
}

namespace {

// Upper bound of the rules' waits with `f` as producer (0: it starts no hazard).
// An entry older than this can be forgotten.
int longest_wait_after(const HazardFacts& f) {
  if (f.cls == HazardFacts::mfma) return f.passes + 3 + kGfx950XdlExtra;
  if (f.cls == HazardFacts::valu) return 5;
  if (f.writes_m0) return 1;
  return 0;
}

// Only these read what the rules guard.
bool can_wait(const HazardFacts& f) {
  return f.cls == HazardFacts::mfma || f.cls == HazardFacts::valu || f.cls == HazardFacts::vmem ||
         f.cls == HazardFacts::ds;
}

// The instructions issued before the current point, oldest first, stamped with
// the wait-state clock at their issue. Entries point into the facts of the input
// code, which outlive every history.
struct History {
  struct Entry {
    const HazardFacts* facts;
    int issued;    // clock when it issued
    int lifetime;  // the longest wait any rule can ask after it
  };
  std::vector<Entry> entries;  // may hold expired entries until the next prune
  int now = 0;

  bool live(const Entry& e) const { return now - e.issued < e.lifetime; }
  void pass(int states) { now += states; }
  void issue(const HazardFacts& f, int states) {
    pass(states);
    const int lifetime = longest_wait_after(f);
    if (!lifetime) return;
    if (entries.size() >= 32) std::erase_if(entries, [&](const Entry& e) { return !live(e); });
    entries.push_back({&f, now, lifetime});
  }
  // A join point: whichever predecessor is closer decides.
  void merge(const History& other) {
    for (const auto& e : other.entries)
      if (other.live(e)) entries.push_back({e.facts, now - (other.now - e.issued), e.lifetime});
  }
  int missing_states(const HazardFacts& consumer) const {
    int missing = 0;
    for (const auto& e : entries) {
      if (!live(e)) continue;
      if (!(e.facts->produced_mask & consumer.touched_mask) && e.facts->special_defs.empty()) continue;
      missing = std::max(missing, need_between(*e.facts, consumer).wait_states - (now - e.issued));
    }
    return missing;
  }
  // The same live entries at the same ages.
  bool same_as(const History& o) const {
    auto a = entries.begin(), b = o.entries.begin();
    while (true) {
      while (a != entries.end() && !live(*a)) ++a;
      while (b != o.entries.end() && !o.live(*b)) ++b;
      if (a == entries.end() || b == o.entries.end()) return a == entries.end() && b == o.entries.end();
      if (a->facts != b->facts || a->lifetime != b->lifetime || now - a->issued != o.now - b->issued) return false;
      ++a, ++b;
    }
  }
};

bool is_branch(const Instruction& i) { return i.mnemonic.rfind("s_cbranch", 0) == 0 || i.mnemonic == "s_branch"; }

// One forward walk's results: the wait states each line needs before it, the
// history at each branch (the tail its target sees next walk) and at each label.
struct Walk {
  std::vector<int> nops;
  std::map<std::string, History> tails, heads;
};

// One forward walk. `prev` is the previous walk (null for the first), whose
// tails this walk sees at their branch targets. Past a target the two walks
// can differ only until `max_lifetime` wait states have passed since the last
// line where they differed: every entry older than that has expired in both,
// the younger ones have the same ages, so from there this walk repeats the
// previous one, and skips to the next branch target.
Walk one_walk(const Code& code, const std::vector<HazardFacts>& facts, const Walk* prev, int max_lifetime) {
  Walk w;
  w.nops.assign(code.lines.size(), 0);
  History h;
  bool repeating = false;  // this walk is known to equal the previous one here
  int last_difference = 0;
  for (size_t n = 0; n < code.lines.size(); ++n) {
    const Line& line = code.lines[n];
    if (line.kind == Line::Kind::label) {
      const History* tail = nullptr;
      if (prev)
        if (auto it = prev->tails.find(line.text); it != prev->tails.end()) tail = &it->second;
      if (repeating) {
        if (!tail) continue;
        h = prev->heads.at(line.text);
        repeating = false;
      }
      w.heads[line.text] = h;
      if (tail) {
        h.merge(*tail);
        last_difference = h.now;
      }
    } else if (line.kind == Line::Kind::instruction) {
      const bool branch = is_branch(line.inst);
      if (repeating) {
        w.nops[n] = prev->nops[n];
        if (branch) {
          const std::string target(std::get<Label>(line.inst.uses.at(0)).name);
          w.tails[target] = prev->tails.at(target);  // the previous walk's history here, which this one repeats
        }
        continue;
      }
      w.nops[n] = can_wait(facts[n]) ? std::max(0, h.missing_states(facts[n])) : 0;
      if (prev && w.nops[n] != prev->nops[n]) last_difference = h.now;
      h.pass(w.nops[n]);
      h.issue(facts[n], wait_states(line.inst));
      if (branch) w.tails[std::string(std::get<Label>(line.inst.uses.at(0)).name)] = h;
      repeating = prev && h.now - last_difference >= max_lifetime;
    }
  }
  return w;
}

}  // namespace

Code insert_hazard_nops(Code code) {
  std::vector<HazardFacts> facts(code.lines.size());
  for (size_t n = 0; n < code.lines.size(); ++n)
    if (code.lines[n].kind == Line::Kind::instruction) facts[n] = HazardFacts::of(code.lines[n].inst);
  // Each walk sees the previous walk's loop tails at the loop heads; waits only
  // grow, so a few walks reach the fixed point. A walk's waits depend only on
  // the tails it starts from, so once a walk ends with the tails it started
  // from, another would repeat it.
  int max_lifetime = 0;
  for (const HazardFacts& f : facts) max_lifetime = std::max(max_lifetime, longest_wait_after(f));
  Walk walk = one_walk(code, facts, nullptr, max_lifetime);
  for (int n = 1; n < 8 && !walk.tails.empty(); ++n) {
    Walk next = one_walk(code, facts, &walk, max_lifetime);
    const bool stable = next.tails.size() == walk.tails.size() &&
                        std::equal(next.tails.begin(), next.tails.end(), walk.tails.begin(),
                                   [](const auto& x, const auto& y) { return x.first == y.first && x.second.same_as(y.second); });
    walk = std::move(next);
    if (stable) break;
  }
  // The s_nops go in place: lines move back from the end, each once, and those
  // before the first s_nop stay where they are.
  const std::vector<int>& nops = walk.nops;
  auto s_nops = [](int states) { return (states + 15) / 16; };  // s_nop 15 (16 states) is the longest
  size_t extra = 0;
  for (int states : nops) extra += size_t(s_nops(states));
  const size_t old_size = code.lines.size();
  code.lines.resize(old_size + extra);
  Code nop;
  for (size_t n = old_size, to = old_size + extra; to != n;) {
    --n;
    code.lines[--to] = std::move(code.lines[n]);
    for (int missing = nops[n], k = s_nops(missing); k > 0; --k) {
      const int states = k == s_nops(missing) && missing % 16 ? missing % 16 : 16;  // the remainder goes last
      nop.lines.clear();
      nop.s_nop(states - 1);
      code.lines[--to] = std::move(nop.lines.back());
    }
  }
  return code;
}

}  // namespace cdna4::codegen::isa
