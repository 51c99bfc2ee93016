#include "runtime/emulator/hazard_check.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "runtime/emulator/handler_registry.hpp"
#include "common/mfma_table.hpp"
#include "runtime/emulator/race_location.hpp"
#include "runtime/emulator/workgroup.hpp"

namespace cdna4::emu {

namespace {

constexpr int kGfx950XdlExtra = 1;  // gfx950 adds one wait state to the XDL rules

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// An f8f6f4 kind's passes follow its A / B formats (cbsz / blgp).
int passes_of(const gfx950::MfmaInfo& kind, const Inst& in) {
  const auto a = gfx950::f8f6f4_element(matrix_sel::format_a(in.offset));
  const auto b = gfx950::f8f6f4_element(matrix_sel::format_b(in.offset));
  return kind.f8f6f4 && a && b ? gfx950::mfma_passes(kind, *a, *b) : kind.passes;
}

HazardTraits traits_of(const Inst& in, std::string_view name) {
  HazardTraits t;
  if (starts_with(name, "V_MFMA")) {
    t.kind = HazardTraits::mfma;
    if (const gfx950::MfmaInfo* kind = gfx950::find_mfma(base_opcode_name(name)))
      t.passes = uint8_t(passes_of(*kind, in));
  } else if (starts_with(name, "V_")) {
    t.kind = HazardTraits::valu;
    t.readlane = starts_with(name, "V_READFIRSTLANE") || starts_with(name, "V_READLANE");
    for (const char* op : {"V_EXP_", "V_LOG_", "V_RCP_", "V_RSQ_", "V_SQRT_", "V_SIN_", "V_COS_"})
      t.trans = t.trans || starts_with(name, op);
  } else if (starts_with(name, "BUFFER_") || starts_with(name, "GLOBAL_")) {
    t.kind = HazardTraits::vmem;
    t.lds_dma = name.find("_LDS") != std::string_view::npos;
  } else if (starts_with(name, "DS_")) {
    t.kind = HazardTraits::ds;
  } else if (starts_with(name, "S_") && !starts_with(name, "S_LOAD") && !starts_with(name, "S_BUFFER_LOAD")) {
    t.kind = HazardTraits::salu;
  }
  t.writes_m0 = in.dst[0].kind == OperandKind::Sgpr && in.dst[0].index <= sreg::kM0 &&
                sreg::kM0 < in.dst[0].index + in.dst[0].dwords;
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

struct Need {
  int states = 0;
  HazardRule rule = HazardRule::None;
  Regs where;
};

// The rules, with `p` issued before `c`.
Need required(const Inst& p, const HazardTraits& pt, const Inst& c, const HazardTraits& ct) {
  Need need;
  auto at_least = [&](int n, HazardRule rule, std::optional<Regs> where) {
    if (where && n > need.states) need = {n, rule, *where};
  };
  using R = HazardRule;
  if (pt.kind == HazardTraits::mfma && pt.passes) {
    const int after_result = pt.passes + 3 + kGfx950XdlExtra;
    const Operand& d = p.dst[0];
    if (ct.kind == HazardTraits::mfma) {
      at_least(after_result, R::MfmaResultReadAsSrcAB, common(c.src[0], d));
      at_least(after_result, R::MfmaResultReadAsSrcAB, common(c.src[1], d));
      if (auto src_c = common(c.src[2], d)) {
        if (!(same_range(c.src[2], d) && ct.passes == pt.passes))
          at_least(pt.passes + 1 + kGfx950XdlExtra, R::MfmaResultReadAsOtherSrcC, src_c);
        else if (pt.passes == 2)
          at_least(2, R::TwoPassMfmaResultReadAsSrcC, src_c);
      }
    } else if (ct.kind == HazardTraits::valu || ct.kind == HazardTraits::vmem || ct.kind == HazardTraits::ds) {
      at_least(after_result, R::MfmaResultReadByValuOrMemory, writes_into(p, c, true, true));
      if (ct.kind == HazardTraits::valu)
        at_least(after_result, R::MfmaResultOverwrittenByValu, writes_into(p, c, false, true));
    }
    // SrcC is read late: a VALU must not overwrite it too soon.
    if (ct.kind == HazardTraits::valu || (ct.kind == HazardTraits::mfma && !same_range(c.dst[0], p.src[2])))
      for (int j = 0; j < c.num_access; ++j)
        if (c.access[j].write)
          at_least(pt.passes - 1 + kGfx950XdlExtra, R::MfmaSrcCOverwritten, common(p.src[2], c.access[j]));
  }
  if (pt.kind == HazardTraits::valu) {
    if (ct.kind == HazardTraits::mfma) at_least(2, R::ValuResultReadByMfma, writes_into(p, c, true, true));
    if (ct.kind == HazardTraits::vmem)
      for (int i = 0; i < p.num_access; ++i)
        if (p.access[i].write && !p.access[i].vector)
          for (int j = 0; j < c.num_access; ++j)
            if (!c.access[j].write) at_least(5, R::ValuSgprReadByVmem, common(p.access[i], c.access[j]));
    if (pt.readlane && (ct.kind == HazardTraits::valu || ct.kind == HazardTraits::mfma))
      at_least(2, R::ReadlaneSgprReadByValu, writes_into(p, c, true, false));
    // gfx940+ (LLVM's hasTransForwardingHazard): one wait state.
    if (pt.trans && ct.kind == HazardTraits::valu && !ct.trans)
      at_least(1, R::TransResultReadByValu, writes_into(p, c, true, true));
  }
  if (pt.kind == HazardTraits::salu && pt.writes_m0 && ct.lds_dma)
    at_least(1, R::M0WrittenBeforeLdsDma, Regs{sreg::kM0, 1, false});
  return need;
}

int lifetime_of(const HazardTraits& t) {
  if (t.kind == HazardTraits::mfma) return t.passes ? t.passes + 3 + kGfx950XdlExtra : 0;
  if (t.kind == HazardTraits::valu) return 5;
  if (t.writes_m0) return 1;
  return 0;
}

int wait_states_of(const Inst& in, std::string_view name) {
  return starts_with(name, "S_NOP") ? int(in.offset & 0xf) + 1 : 1;
}

}  // namespace

std::vector<HazardTraits> hazard_traits(const Program& program) {
  std::vector<HazardTraits> out;
  out.reserve(program.insts.size());
  for (size_t i = 0; i < program.insts.size(); ++i) out.push_back(traits_of(program.insts[i], program.names[i]));
  return out;
}

void check_hazards(Wave& wave, const Inst& in) {
  const Program& p = *wave.wg->program;
  const std::vector<HazardTraits>& traits = p.hazard;
  HazardHistory& h = wave.hazards;
  for (const auto& producer : h.producers) {
    const int age = int(h.states - producer.issued);
    if (age >= producer.lifetime) continue;
    const Need need = required(p.insts[producer.inst], traits[producer.inst], in, traits[in.id]);
    if (need.states <= age) continue;
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

void note_issued(Wave& wave, const Inst& in) {
  const Program& p = *wave.wg->program;
  HazardHistory& h = wave.hazards;
  h.states += uint64_t(wait_states_of(in, p.names[in.id]));
  std::erase_if(h.producers, [&](const auto& x) { return int(h.states - x.issued) >= x.lifetime; });
  if (const int lifetime = lifetime_of(p.hazard[in.id])) h.producers.push_back({in.id, h.states, lifetime});
}

}  // namespace cdna4::emu
