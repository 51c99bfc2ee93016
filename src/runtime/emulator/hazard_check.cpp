#include "runtime/emulator/hazard_check.hpp"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "runtime/emulator/workgroup.hpp"

namespace cdna4::emu {

namespace {

constexpr int kGfx950XdlExtra = 1;  // gfx950 adds one wait state to the XDL rules

struct MfmaPasses {
  std::string_view name;
  uint8_t passes;
};
constexpr MfmaPasses kMfmaPasses[] = {
    {"V_MFMA_F32_16X16X32_BF16", 4},
    {"V_MFMA_F32_32X32X16_BF16", 8},
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

HazardTraits traits_of(const Inst& in, std::string_view name) {
  HazardTraits t;
  if (starts_with(name, "V_MFMA")) {
    t.kind = HazardTraits::mfma;
    for (const auto& m : kMfmaPasses)
      if (starts_with(name, m.name)) t.passes = m.passes;
  } else if (starts_with(name, "V_")) {
    t.kind = HazardTraits::valu;
    t.readlane = starts_with(name, "V_READFIRSTLANE") || starts_with(name, "V_READLANE");
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

bool overlap(const Operand& a, uint16_t first, uint8_t count) {
  return a.is_reg() && a.kind == OperandKind::Vgpr && a.index < first + count && first < a.index + a.dwords;
}

bool overlap(const RegAccess& a, const RegAccess& b) {
  return a.vector == b.vector && a.first < b.first + b.count && b.first < a.first + a.count;
}

// Does any register `p` writes overlap one `c` reads (reads) or writes (!reads)?
bool writes_into(const Inst& p, const Inst& c, bool reads, bool vector_only) {
  for (int i = 0; i < p.num_access; ++i) {
    const RegAccess& w = p.access[i];
    if (!w.write || (vector_only && !w.vector)) continue;
    for (int j = 0; j < c.num_access; ++j)
      if (c.access[j].write != reads && overlap(w, c.access[j])) return true;
  }
  return false;
}

bool same_range(const Operand& a, const Operand& b) {
  return a.kind == b.kind && a.index == b.index && a.dwords == b.dwords;
}

struct Need {
  int states = 0;
  const char* rule = "";
};

// The rules, with `p` issued before `c`.
Need required(const Inst& p, const HazardTraits& pt, const Inst& c, const HazardTraits& ct) {
  Need need;
  auto at_least = [&](int n, const char* rule) {
    if (n > need.states) need = {n, rule};
  };
  if (pt.kind == HazardTraits::mfma && pt.passes) {
    const int after_result = pt.passes + 3 + kGfx950XdlExtra;
    const Operand& d = p.dst[0];
    if (ct.kind == HazardTraits::mfma) {
      if (overlap(c.src[0], d.index, d.dwords) || overlap(c.src[1], d.index, d.dwords))
        at_least(after_result, "MFMA result read as another MFMA's A/B");
      if (overlap(c.src[2], d.index, d.dwords)) {
        if (!(same_range(c.src[2], d) && ct.passes == pt.passes))
          at_least(pt.passes + 1 + kGfx950XdlExtra, "MFMA result read as an overlapping, different SrcC");
        else if (pt.passes == 2)
          at_least(2, "2-pass MFMA result read as SrcC");
      }
    } else if (ct.kind == HazardTraits::valu || ct.kind == HazardTraits::vmem || ct.kind == HazardTraits::ds) {
      if (writes_into(p, c, true, true)) at_least(after_result, "MFMA result read by a VALU/memory instruction");
      if (ct.kind == HazardTraits::valu && writes_into(p, c, false, true))
        at_least(after_result, "MFMA result overwritten by a VALU");
    }
    // SrcC is read late: a VALU must not overwrite it too soon.
    if (ct.kind == HazardTraits::valu || (ct.kind == HazardTraits::mfma && !same_range(c.dst[0], p.src[2])))
      for (int j = 0; j < c.num_access; ++j)
        if (c.access[j].write && overlap(p.src[2], c.access[j].first, c.access[j].count) && c.access[j].vector)
          at_least(pt.passes - 1 + kGfx950XdlExtra, "MFMA SrcC overwritten while the MFMA may still read it");
  }
  if (pt.kind == HazardTraits::valu) {
    if (ct.kind == HazardTraits::mfma && writes_into(p, c, true, true))
      at_least(2, "VALU result read by an MFMA");
    if (ct.kind == HazardTraits::vmem && writes_into(p, c, true, false)) {
      for (int i = 0; i < p.num_access; ++i)
        if (p.access[i].write && !p.access[i].vector)
          for (int j = 0; j < c.num_access; ++j)
            if (!c.access[j].write && overlap(p.access[i], c.access[j])) at_least(5, "VALU-written SGPR read by VMEM");
    }
    if (pt.readlane && (ct.kind == HazardTraits::valu || ct.kind == HazardTraits::mfma) && writes_into(p, c, true, false))
      at_least(2, "v_readlane/v_readfirstlane SGPR read by a VALU");
  }
  if (pt.kind == HazardTraits::salu && pt.writes_m0 && ct.lds_dma) at_least(1, "M0 written by SALU just before LDS-DMA");
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
    if (need.states > age)
      wave.wg->report_race(wave, in,
                           fmt::format("hazard: {} needs {} wait state{} after '{}' at 0x{:x}, only {} passed "
                                       "(missing s_nop)",
                                       need.rule, need.states, need.states == 1 ? "" : "s",
                                       p.disasm[producer.inst], p.insts[producer.inst].pc, age));
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
