// The code generator's matcher of gfx950's wait-state rules (common/wait_state_rules.hpp):
// which registers two instructions share, in the operands the emitter wrote.
#include "codegen/isa/hazards.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include "common/limits.hpp"

namespace cdna4::codegen::isa {

namespace {

using gfx950::HazardClass;

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

// Whether the operands of `p` and `c` meet as `rule` says (their classes already fit the rule).
bool operands_meet(HazardRule rule, const HazardFacts& p, const HazardFacts& c) {
  const bool same_src_c = !p.defs.empty() && !c.defs.empty() && p.defs.front() == c.src_c &&
                          p.profile.passes == c.profile.passes;
  switch (rule) {
    case HazardRule::MfmaResultReadByValuOrMemory: return overlaps_any(p.defs, c.uses);
    case HazardRule::MfmaResultOverwrittenByValu: return overlaps_any(p.defs, c.defs);
    case HazardRule::MfmaResultReadAsSrcAB: return overlaps_any(p.defs, c.src_a) || overlaps_any(p.defs, c.src_b);
    case HazardRule::MfmaResultReadAsOtherSrcC: return overlaps_any(p.defs, c.src_c) && !same_src_c;
    case HazardRule::TwoPassMfmaResultReadAsSrcC: return overlaps_any(p.defs, c.src_c) && same_src_c;
    case HazardRule::MfmaSrcCOverwritten:  // an MFMA accumulating into the same registers reads them in time
      return overlaps_any(c.defs, p.src_c) && !(c.profile.cls == HazardClass::mfma && c.defs.front() == p.src_c);
    case HazardRule::ValuResultReadByMfma: return overlaps_any(p.defs, c.uses);
    case HazardRule::ValuSgprReadByVmem: return writes_sgpr(p) && reads_written_sgpr(p, c);
    case HazardRule::ReadlaneSgprReadByValu:
    case HazardRule::ValuSgprReadByValu: return reads_written_sgpr(p, c);
    case HazardRule::M0WrittenBeforeLdsDma: return true;
    case HazardRule::TransResultReadByValu: return overlaps_any(p.defs, c.uses);
    case HazardRule::ValuResultReadByDpp:
    case HazardRule::ValuResultReadByPermlaneSwap:
    case HazardRule::ValuResultReadByReadlane:
      for (const Reg& d : p.defs)
        if (d.file == RegFile::v && overlaps_any(c.uses, d)) return true;
      return false;
    case HazardRule::ValuExecWriteBeforeDpp:
    case HazardRule::ValuExecWriteBeforeLaneAccess:
    case HazardRule::ValuExecWriteBeforeMfma:
    case HazardRule::CmpxBeforePermlaneSwap: return true;
    case HazardRule::ValuSgprReadAsLaneSelect: return c.lane_select.count && overlaps_any(p.defs, c.lane_select);
    case HazardRule::None: break;
  }
  return false;
}

// The rules per producer class.
const std::vector<std::vector<const gfx950::WaitStateRule*>>& rules_after() {
  static const std::vector<std::vector<const gfx950::WaitStateRule*>> by_class = [] {
    std::vector<std::vector<const gfx950::WaitStateRule*>> out(int(HazardClass::ds) + 1);
    for (const auto& rule : gfx950::kWaitStateRules) out[int(rule.producer)].push_back(&rule);
    return out;
  }();
  return by_class;
}

HazardNeed need_between(const HazardFacts& p, const HazardFacts& c) {
  HazardNeed need;
  for (const gfx950::WaitStateRule* rule : rules_after()[int(p.profile.cls)]) {
    if (!gfx950::producer_fits(*rule, p.profile) || !gfx950::consumer_fits(*rule, c.profile)) continue;
    const int w = gfx950::wait_states(*rule, p.profile.passes);
    if (w > need.wait_states && operands_meet(rule->id, p, c)) need = {w, rule};
  }
  return need;
}

}  // namespace

HazardFacts HazardFacts::of(const Instruction& i) {
  HazardFacts f;
  gfx950::HazardProfile& h = f.profile;
  h.cls = gfx950::hazard_class(inst_class(i));
  h.lds_dma = h.cls == HazardClass::vmem && is_lds_dma(i);
  if (h.cls == HazardClass::valu) {  // the mnemonic checks below only concern VALU instructions
    h.readlane = gfx950::is_readlane(i.mnemonic);
    h.transcendental = gfx950::is_transcendental(i.mnemonic);
    h.dpp = gfx950::is_dpp(i.mnemonic);
    h.lane_access = gfx950::is_lane_access(i.mnemonic);
    h.lane_select = gfx950::has_lane_select(i.mnemonic);
    h.permlane = gfx950::is_permlane(i.mnemonic);
    h.cmpx = gfx950::is_cmpx(i.mnemonic);
  }
  h.passes = h.cls == HazardClass::mfma ? mfma_passes(i) : 0;  // a table search by mnemonic: MFMAs only
  if (h.cls == HazardClass::mfma && !h.passes)
    throw std::invalid_argument(std::string(i.mnemonic) +
                                " is not in gfx950's MFMA table (common/mfma_table.hpp): its wait states are unknown");
  for (const Arg& a : i.defs) {
    if (const Reg* r = std::get_if<Reg>(&a)) f.defs.push_back(*r);
    else if (const Special* s = std::get_if<Special>(&a)) f.special_defs.push_back(*s);
  }
  if (h.permlane) f.uses = f.defs;  // v_permlane*_swap x, y reads both registers it writes
  for (const Arg& a : i.uses) {
    if (const Reg* r = std::get_if<Reg>(&a)) f.uses.push_back(*r);
    else if (const Special* s = std::get_if<Special>(&a)) f.special_uses.push_back(*s);
  }
  const auto defines = [&](Special r) {
    return std::find(f.special_defs.begin(), f.special_defs.end(), r) != f.special_defs.end();
  };
  h.writes_m0 = defines(Special::m0);
  h.writes_exec = h.cls == HazardClass::valu && (h.cmpx || defines(Special::exec));
  const auto mask_of = [](const Reg& r) {
    const uint64_t run = r.count >= 64 ? ~uint64_t(0) : (uint64_t(1) << r.count) - 1;
    return std::rotl(run, (int(r.file) * 21 + r.index) % 64);
  };
  for (const Reg& r : f.defs) f.produced_mask |= mask_of(r);
  f.touched_mask = f.produced_mask;
  for (const Reg& r : f.uses) f.touched_mask |= mask_of(r);
  if (h.lane_select && i.uses.size() > 1)  // uses = {source, lane select}
    if (const Reg* r = std::get_if<Reg>(&i.uses[1]); r && r->file == RegFile::s) f.lane_select = *r;
  if (h.cls == HazardClass::mfma) {  // uses = {srcA, srcB, srcC}
    f.src_a = std::get<Reg>(i.uses.at(0));
    f.src_b = std::get<Reg>(i.uses.at(1));
    f.src_c = std::get<Reg>(i.uses.at(2));
    f.produced_mask |= mask_of(f.src_c);
  }
  return f;
}

namespace {

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
    const int lifetime = gfx950::longest_wait_after(f.profile);
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
      if (!(e.facts->produced_mask & consumer.touched_mask) && e.facts->special_defs.empty() &&
          !e.facts->profile.writes_exec)
        continue;
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

bool is_branch(const Instruction& i) { return inst_class(i) == gfx950::InstClass::branch; }

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
      w.nops[n] = gfx950::can_consume(facts[n].profile.cls) ? std::max(0, h.missing_states(facts[n])) : 0;
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
  for (const HazardFacts& f : facts) max_lifetime = std::max(max_lifetime, gfx950::longest_wait_after(f.profile));
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
  auto s_nops = [](int states) { return (states + gfx950::kMaxNopStates - 1) / gfx950::kMaxNopStates; };
  size_t extra = 0;
  for (int states : nops) extra += size_t(s_nops(states));
  const size_t old_size = code.lines.size();
  code.lines.resize(old_size + extra);
  Code nop;
  for (size_t n = old_size, to = old_size + extra; to != n;) {
    --n;
    code.lines[--to] = std::move(code.lines[n]);
    for (int missing = nops[n], k = s_nops(missing); k > 0; --k) {
      const int states = k == s_nops(missing) && missing % gfx950::kMaxNopStates ? missing % gfx950::kMaxNopStates
                                                                          : gfx950::kMaxNopStates;  // the remainder goes last
      nop.lines.clear();
      nop.s_nop(states - 1);
      code.lines[--to] = std::move(nop.lines.back());
    }
  }
  return code;
}

}  // namespace cdna4::codegen::isa
