#include "runtime/emulator/hazard_check.hpp"

#include <algorithm>
#include <bit>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "runtime/emulator/handler_registry.hpp"
#include "common/mfma_table.hpp"
#include "runtime/emulator/race_location.hpp"
#include "runtime/emulator/workgroup.hpp"
#include "common/limits.hpp"

namespace cdna4::emu {

namespace {

using gfx950::HazardClass;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// An f8f6f4 kind's passes follow its A / B formats (cbsz / blgp).
int passes_of(const gfx950::MfmaInfo& kind, const Inst& in) {
  const auto a = gfx950::f8f6f4_element(matrix_sel::format_a(in.offset));
  const auto b = gfx950::f8f6f4_element(matrix_sel::format_b(in.offset));
  return kind.f8f6f4 && a && b ? gfx950::mfma_passes(kind, *a, *b) : kind.passes;
}

bool writes(const Operand& dst, uint16_t sgpr) {
  return dst.kind == OperandKind::Sgpr && dst.index <= sgpr && sgpr < dst.index + dst.dwords;
}

gfx950::HazardProfile profile_of(const Inst& in, std::string_view name) {
  gfx950::HazardProfile t;
  t.cls = gfx950::hazard_class(gfx950::classify(name));
  if (t.cls == HazardClass::mfma) {
    if (const gfx950::MfmaInfo* kind = gfx950::find_mfma(base_opcode_name(name))) t.passes = passes_of(*kind, in);
  } else if (t.cls == HazardClass::valu) {
    t.readlane = gfx950::is_readlane(name);
    t.transcendental = gfx950::is_transcendental(name);
    t.dpp = gfx950::is_dpp(name);
    t.lane_access = gfx950::is_lane_access(name);
    t.lane_select = gfx950::has_lane_select(name);
    t.permlane = gfx950::is_permlane(name);
    t.cmpx = gfx950::is_cmpx(name);
    t.writes_exec = t.cmpx || writes(in.dst[0], sreg::kExecLo) || writes(in.dst[1], sreg::kExecLo);
  } else if (t.cls == HazardClass::vmem) {
    t.lds_dma = gfx950::is_lds_dma_opcode(name);
  }
  t.writes_m0 = writes(in.dst[0], sreg::kM0);
  return t;
}

// The registers two accesses share, if any.
struct Regs {
  uint32_t first = 0, count = 0;
  bool vector = true;
};

std::optional<Regs> common(uint32_t a, uint32_t a_count, uint32_t b, uint32_t b_count, bool vector) {
  const uint32_t lo = std::max(a, b), hi = std::min(a + a_count, b + b_count);
  if (lo >= hi) return std::nullopt;
  return Regs{lo, hi - lo, vector};
}

std::optional<Regs> common(const Operand& a, const Operand& b) {
  if (a.kind != OperandKind::Vgpr || b.kind != OperandKind::Vgpr) return std::nullopt;
  return common(a.index, a.dwords, b.index, b.dwords, true);
}

std::optional<Regs> common(const Operand& a, const RegAccess& b) {
  if (a.kind != OperandKind::Vgpr || !b.vector) return std::nullopt;
  return common(a.index, a.dwords, b.first, b.count, true);
}

std::optional<Regs> common(const RegAccess& a, const Operand& b) {
  if (a.vector || b.kind != OperandKind::Sgpr) return std::nullopt;
  return common(a.first, a.count, b.index, b.dwords, false);
}

std::optional<Regs> common(const RegAccess& a, const RegAccess& b) {
  if (a.vector != b.vector) return std::nullopt;
  return common(a.first, a.count, b.first, b.count, a.vector);
}

// The first registers `p` writes that `c` reads (reads) or writes (!reads).
std::optional<Regs> writes_into(const Inst& p, const Inst& c, bool reads, bool vector_only) {
  for (int i = 0; i < p.num_access; ++i) {
    const RegAccess& w = p.access[i];
    if (!w.write || (vector_only && !w.vector)) continue;
    for (int j = 0; j < c.num_access; ++j)
      if (c.access[j].write != reads)
        if (auto shared = common(w, c.access[j])) return shared;
  }
  return std::nullopt;
}

bool same_range(const Operand& a, const Operand& b) {
  return a.kind == b.kind && a.index == b.index && a.dwords == b.dwords;
}

// Where the operands of `p` and `c` meet as `rule` says (their classes already fit the rule).
std::optional<Regs> where_operands_meet(HazardRule rule, const Inst& p, const Inst& c, const gfx950::HazardProfile& pt,
                                        const gfx950::HazardProfile& ct) {
  const Operand& d = p.dst[0];
  switch (rule) {
    case HazardRule::MfmaResultReadByValuOrMemory:
    case HazardRule::ValuResultReadByMfma:
    case HazardRule::TransResultReadByValu:
    case HazardRule::ValuResultReadByDpp:
    case HazardRule::ValuResultReadByPermlaneSwap:
    case HazardRule::ValuResultReadByReadlane: return writes_into(p, c, true, true);
    case HazardRule::MfmaResultOverwrittenByValu: return writes_into(p, c, false, true);
    case HazardRule::MfmaResultReadAsSrcAB:
      if (auto a = common(c.src[0], d)) return a;
      return common(c.src[1], d);
    case HazardRule::MfmaResultReadAsOtherSrcC:
    case HazardRule::TwoPassMfmaResultReadAsSrcC: {
      const bool accumulates = same_range(c.src[2], d) && pt.passes == ct.passes;  // back to back into the same registers
      if (accumulates != (rule == HazardRule::TwoPassMfmaResultReadAsSrcC)) return std::nullopt;
      return common(c.src[2], d);
    }
    case HazardRule::MfmaSrcCOverwritten:  // an MFMA accumulating into the same registers reads them in time
      if (ct.cls == HazardClass::mfma && same_range(c.dst[0], p.src[2])) return std::nullopt;
      for (int j = 0; j < c.num_access; ++j)
        if (c.access[j].write)
          if (auto shared = common(p.src[2], c.access[j])) return shared;
      return std::nullopt;
    case HazardRule::ValuSgprReadByVmem:
    case HazardRule::ValuSgprReadByValu:
      for (int i = 0; i < p.num_access; ++i)
        if (p.access[i].write && !p.access[i].vector)
          for (int j = 0; j < c.num_access; ++j)
            if (!c.access[j].write)
              if (auto shared = common(p.access[i], c.access[j])) return shared;
      return std::nullopt;
    case HazardRule::ReadlaneSgprReadByValu: return writes_into(p, c, true, false);
    case HazardRule::M0WrittenBeforeLdsDma: return Regs{sreg::kM0, 1, false};
    case HazardRule::ValuExecWriteBeforeDpp:
    case HazardRule::ValuExecWriteBeforeLaneAccess:
    case HazardRule::ValuExecWriteBeforeMfma:
    case HazardRule::CmpxBeforePermlaneSwap: return Regs{sreg::kExecLo, 2, false};
    case HazardRule::ValuSgprReadAsLaneSelect:  // src1: v_readlane's and v_writelane's lane select
      for (int i = 0; i < p.num_access; ++i)
        if (p.access[i].write)
          if (auto shared = common(p.access[i], c.src[1])) return shared;
      return std::nullopt;
    case HazardRule::None: break;
  }
  return std::nullopt;
}

struct Need {
  int states = 0;
  HazardRule rule = HazardRule::None;
  Regs where;
};

// The rules (common/wait_state_rules.hpp) `rows` names, with `p` issued before `c`.
Need required(uint32_t rows, const Inst& p, const gfx950::HazardProfile& pt, const Inst& c,
              const gfx950::HazardProfile& ct) {
  Need need;
  for (; rows; rows &= rows - 1) {
    const gfx950::WaitStateRule& rule = gfx950::kWaitStateRules[std::countr_zero(rows)];
    const int n = gfx950::wait_states(rule, pt.passes);
    if (n <= need.states) continue;
    if (auto where = where_operands_meet(rule.id, p, c, pt, ct)) need = {n, rule.id, *where};
  }
  return need;
}

int wait_states_of(const Inst& in, std::string_view name) {
  return starts_with(name, "S_NOP") ? gfx950::nop_wait_states(in.offset) : 1;
}

void add(RegisterFootprint& set, bool vector, uint32_t first, uint32_t count) {
  for (uint32_t r = first; r < first + count; ++r) set.add(vector, r);
}

void add(RegisterFootprint& set, const Operand& o) {
  if (o.is_reg()) add(set, o.kind == OperandKind::Vgpr, o.index, o.dwords);
}

// The rows whose registers are fixed (M0, EXEC) rather than the operands':
// they apply whether or not the two instructions' registers meet.
uint32_t rows_of_fixed_registers() {
  uint32_t rows = 0;
  for (size_t i = 0; i < std::size(gfx950::kWaitStateRules); ++i) switch (gfx950::kWaitStateRules[i].id) {
      case HazardRule::M0WrittenBeforeLdsDma:
      case HazardRule::ValuExecWriteBeforeDpp:
      case HazardRule::ValuExecWriteBeforeLaneAccess:
      case HazardRule::ValuExecWriteBeforeMfma:
      case HazardRule::CmpxBeforePermlaneSwap: rows |= uint32_t(1) << i; break;
      default: break;
    }
  return rows;
}

// The instructions that can issue right before each one: the one above it and
// every branch to it (the branches' handlers are the only ones that set the next pc).
std::vector<std::vector<uint32_t>> predecessors(const Program& program) {
  const uint32_t n = uint32_t(program.insts.size());
  std::vector<std::vector<uint32_t>> before(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (i + 1 < n) before[i + 1].push_back(i);
    const std::string_view name = program.names[i];
    const uint32_t target = program.insts[i].target;
    if ((starts_with(name, "S_BRANCH") || starts_with(name, "S_CBRANCH")) && target < n && target != i + 1)
      before[target].push_back(i);
  }
  return before;
}

// Narrows each instruction's starts and ends to the rows it can share with an
// instruction that can be live next to it. A producer is live for a consumer while
// fewer wait states than its lifetime have passed, and every instruction in between
// counts at least one: so it is at most `lifetime` instructions back on some path.
// A pair within reach keeps the rows it shares when their registers may meet (else
// only those of M0 and EXEC), exactly what the pair check keeps; a row no pair
// keeps is one the pair check drops for every partner, so the reports are the
// same. An instruction left starting none is no producer, one ending none checks nothing.
void keep_rows_a_live_pair_can_share(const Program& program, std::vector<HazardRows>& rows) {
  const uint32_t n = uint32_t(rows.size());
  int reach = 0;
  for (const HazardRows& r : rows) {
    if (r.wait_states == 0) return;  // the bound above needs every instruction to count
    reach = std::max(reach, r.lifetime);
  }
  const uint32_t fixed = rows_of_fixed_registers();
  const std::vector<std::vector<uint32_t>> before = predecessors(program);
  std::vector<uint32_t> starts(n, 0), ends(n, 0), seen(n, ~0u), layer, next;
  for (uint32_t c = 0; c < n; ++c) {
    if (!rows[c].ends) continue;
    layer.assign(1, c);
    for (int depth = 1; depth <= reach && !layer.empty(); ++depth) {
      next.clear();
      for (uint32_t at : layer)
        for (uint32_t p : before[at]) {
          if (seen[p] == c) continue;
          seen[p] = c;
          next.push_back(p);
          const HazardRows& made = rows[p];
          uint32_t shared = made.starts & rows[c].ends;
          if (!shared || depth > made.lifetime) continue;
          if (!made.writes.meets(rows[c].touches) && !made.reads.meets(rows[c].writes)) shared &= fixed;
          starts[p] |= shared;
          ends[c] |= shared;
        }
      layer.swap(next);
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    rows[i].starts = starts[i];
    rows[i].ends = ends[i];
    if (!starts[i]) rows[i].lifetime = 0;
  }
}

}  // namespace

std::vector<gfx950::HazardProfile> hazard_profiles(const Program& program) {
  std::vector<gfx950::HazardProfile> out;
  out.reserve(program.insts.size());
  for (size_t i = 0; i < program.insts.size(); ++i) out.push_back(profile_of(program.insts[i], program.names[i]));
  return out;
}

std::vector<HazardRows> hazard_rows(const Program& program) {
  std::vector<HazardRows> out;
  out.reserve(program.hazard.size());
  for (size_t i = 0; i < program.hazard.size(); ++i) {
    const gfx950::HazardProfile& t = program.hazard[i];
    HazardRows rows;
    rows.starts = gfx950::rows_started_by(t);
    rows.ends = gfx950::rows_ended_by(t);
    rows.lifetime = gfx950::longest_wait_after(t);
    rows.wait_states = uint32_t(wait_states_of(program.insts[i], program.names[i]));
    // A superset of what where_operands_meet compares: every operand and every access.
    const Inst& in = program.insts[i];
    for (int j = 0; j < in.num_access; ++j)
      add(in.access[j].write ? rows.writes : rows.reads, in.access[j].vector, in.access[j].first, in.access[j].count);
    for (const Operand& o : in.src) add(rows.reads, o);
    for (const Operand& o : in.dst) add(rows.writes, o);
    rows.touches = rows.reads | rows.writes;
    out.push_back(rows);
  }
  keep_rows_a_live_pair_can_share(program, out);
  return out;
}

void check_hazards_of_producers(Wave& wave, const Inst& in) {
  static const uint32_t fixed_register_rows = rows_of_fixed_registers();
  const Program& p = *wave.wg->program;
  const std::vector<gfx950::HazardProfile>& traits = p.hazard;
  HazardHistory& h = wave.hazards;
  const HazardRows& consumer = p.hazard_rows[in.id];
  const uint32_t ends = consumer.ends;
  HazardMemo& memo = wave.wg->hazard_memo;
  if (memo.program != &p) {
    memo.program = &p;
    memo.entries.assign(HazardMemo::kEntries, HazardMemo::Entry{});
  }
  for (const auto& producer : h.producers) {
    const int age = int(h.states - producer.issued);
    if (age >= producer.lifetime) continue;
    uint32_t rows = producer.starts & ends;
    if (!rows) continue;  // no rule joins the two: nothing asked
    // Registers that do not meet leave only the rules of M0 and EXEC.
    const HazardRows& made = p.hazard_rows[producer.inst];
    if (!made.writes.meets(consumer.touches) && !made.reads.meets(consumer.writes)) rows &= fixed_register_rows;
    if (!rows) continue;
    const uint64_t pair = uint64_t(producer.inst) << 32 | in.id;
    HazardMemo::Entry& e = memo.entries[HazardMemo::slot(producer.inst, in.id)];
    if (e.pair != pair) {
      const Need n = required(rows, p.insts[producer.inst], traits[producer.inst], in, traits[in.id]);
      e = {pair, int16_t(n.states), uint8_t(n.rule), n.where.vector, uint16_t(n.where.first), uint16_t(n.where.count)};
    }
    if (e.states <= age) continue;
    const Need need{e.states, HazardRule(e.rule), Regs{e.first, e.count, e.vector}};
    RaceReport r;
    r.kind = RaceKind::Hazard;
    r.other_wave = wave.id;
    r.location = register_location(p, need.where.vector, need.where.first, need.where.count);
    r.missing = MissingWait::WaitStates;
    r.rule = need.rule;
    r.wait_states_needed = uint32_t(need.states);
    r.wait_states_passed = uint32_t(age);
    wave.wg->report_race(wave, in, producer.inst, std::move(r));
  }
}

void note_producers(HazardHistory& h, const HazardRows& rows, uint32_t inst) {
  if (h.states >= h.next_expiry) {  // drop the expired, in order, and sum up the rest
    h.next_expiry = ~0ull;
    h.live_starts = 0;
    size_t kept = 0;
    for (const auto& x : h.producers) {
      if (int(h.states - x.issued) >= x.lifetime) continue;
      h.next_expiry = std::min(h.next_expiry, x.issued + x.lifetime);
      h.live_starts |= x.starts;
      h.producers[kept++] = x;
    }
    h.producers.resize(kept);
  }
  if (const int lifetime = rows.lifetime) {
    h.producers.push_back({inst, h.states, lifetime, rows.starts});
    h.next_expiry = std::min(h.next_expiry, h.states + lifetime);
    h.live_starts |= rows.starts;
  }
}

}  // namespace cdna4::emu
