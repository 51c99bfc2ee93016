// Rules that hold for the op list itself, before any simulation.
//
//   rule              what it proves
//   wait-range        vmcnt and lgkmcnt within the s_waitcnt fields (common/limits.hpp)
//   unique-order      every op has its own `order`
//   phase-order       `phase` never decreases along `order`
//   g2s-coverage      each G2S part of A and B is loaded by exactly one op
//   mfma-coverage     the MFMA ops cover every (kpack, m_half, n_half) once
//   stage-order       seed 004: producer before consumer (same stage: smaller
//                     order; different stages: smaller stage)
//   s2r-unused        every S2R feeds some MFMA
//   lds-capacity      lds_buffers * (A tile + B tile) fits a CU's LDS
//   registers         accumulators fit the AGPRs, VGPR + AGPR the unified register file
#include <fmt/format.h>

#include <map>

#include "op_list.hpp"
#include "schedule_internal.hpp"
#include "common/limits.hpp"

namespace cdna4::detail {
namespace {

constexpr int kLdsCapacity = gfx950::kLdsBytesPerCu;
constexpr int kMaxAgprs = gfx950::kMaxAgprs, kMaxRegisters = gfx950::kRegistersPerLane;

bool before(const ScheduleOp& producer, const ScheduleOp& consumer) {
  return producer.stage < consumer.stage || (producer.stage == consumer.stage && producer.order < consumer.order);
}

std::string dependency_problem(const ScheduleOp& p, const ScheduleOp& c) {
  if (p.stage > c.stage)
    return fmt::format("producer stage {} > consumer stage {}", p.stage, c.stage);
  return fmt::format("same stage {} but producer order {} is not below consumer order {}", p.stage, p.order, c.order);
}

bool covers(const std::optional<int>& have, int want) { return !have || *have == want; }

// Does S2R `r` load the operand unit (kpack c, half h)?
bool s2r_covers(const ScheduleOp& r, int c, int h) {
  return covers(r.kpack, c) && covers(r.operand == Operand::a ? r.m_half : r.n_half, h);
}

class Rules {
 public:
  Rules(const Schedule& s, std::vector<Finding>& out) : s_(s), out_(out) {}

  void run() {
    check_op_list(s_.ops, [&](int i) { return d(i); }, out_);
    g2s_coverage();
    mfma_coverage();
    dependencies();
    resources();
  }

 private:
  void add(const char* rule, int op, std::string message) { out_.push_back(Finding{rule, op, std::move(message)}); }
  std::string d(int i) const { return describe(s_, i); }

  void g2s_coverage() {
    check_g2s_coverage(
        s_.ops, OpKind::g2s, {Operand::a, Operand::b}, [&](Operand o) { return g2s_parts(s_, o); },
        [&](Operand o, int p) {
          return fmt::format("(rows {}..{} of the {} tile)", part_rows(s_, o, p).begin, part_rows(s_, o, p).end - 1,
                             to_string(o));
        },
        [&](int i) { return d(i); }, "tile", out_);
  }

  template <typename F>
  void units(const ScheduleOp& m, F&& f) const {
    for (int c = 0; c < kpacks(s_); ++c)
      for (int mh = 0; mh < 2; ++mh)
        for (int nh = 0; nh < 2; ++nh)
          if (covers(m.kpack, c) && covers(m.m_half, mh) && covers(m.n_half, nh)) f(c, mh, nh);
  }

  void mfma_coverage() {
    std::map<std::tuple<int, int, int>, int> owner;
    for (int i = 0; i < static_cast<int>(s_.ops.size()); ++i) {
      if (s_.ops[i].kind != OpKind::mfma) continue;
      bool reported = false;
      units(s_.ops[i], [&](int c, int mh, int nh) {
        auto [it, fresh] = owner.emplace(std::tuple{c, mh, nh}, i);
        if (!fresh && !reported) {
          reported = true;
          add("mfma-coverage", i, fmt::format("{}: kpack {} m_half {} n_half {} is already computed by {}; the tile would be accumulated twice",
                                              d(i), c, mh, nh, d(it->second)));
        }
      });
    }
    for (int c = 0; c < kpacks(s_); ++c)
      for (int mh = 0; mh < 2; ++mh)
        for (int nh = 0; nh < 2; ++nh)
          if (!owner.count({c, mh, nh})) {
            add("mfma-coverage", -1, fmt::format("no MFMA op computes kpack {} m_half {} n_half {} of the wave tile; every (kpack, m_half, n_half) "
                                                 "must be covered exactly once", c, mh, nh));
            return;
          }
  }

  void dependencies() {
    const int n = static_cast<int>(s_.ops.size());
    std::vector<bool> used(n, false);
    for (int g = 0; g < n; ++g) {
      if (s_.ops[g].kind != OpKind::g2s) continue;
      for (int r = 0; r < n; ++r) {
        if (s_.ops[r].kind != OpKind::s2r || s_.ops[r].operand != s_.ops[g].operand) continue;
        bool reads = false;
        for (int w = 0; w < s_.waves && !reads; ++w)
          for (int p : parts_read(s_, s_.ops[r], w)) reads |= p == s_.ops[g].part;
        if (reads && !before(s_.ops[g], s_.ops[r]))
          add("stage-order", r, fmt::format("{} reads LDS written by {}: {}", d(r), d(g), dependency_problem(s_.ops[g], s_.ops[r])));
      }
    }
    for (int m = 0; m < n; ++m) {
      if (s_.ops[m].kind != OpKind::mfma) continue;
      units(s_.ops[m], [&](int c, int mh, int nh) {
        for (Operand o : {Operand::a, Operand::b}) {
          const int h = o == Operand::a ? mh : nh;
          int producer = -1, late = -1;
          for (int r = 0; r < n; ++r) {
            const ScheduleOp& op = s_.ops[r];
            if (op.kind != OpKind::s2r || op.operand != o || !s2r_covers(op, c, h)) continue;
            if (before(op, s_.ops[m])) {
              producer = r;
              used[r] = true;
            } else if (late < 0) {
              late = r;
            }
          }
          if (producer >= 0) continue;
          const std::string what = fmt::format("{} kpack {} {} {}", to_string(o), c, o == Operand::a ? "m_half" : "n_half", h);
          if (late >= 0)
            add("stage-order", m, fmt::format("{} consumes {} loaded by {}: {}", d(m), what, d(late), dependency_problem(s_.ops[late], s_.ops[m])));
          else
            add("mfma-operands", m, fmt::format("{} consumes {} but no S2R op loads it", d(m), what));
        }
      });
    }
    for (int r = 0; r < n; ++r)
      if (s_.ops[r].kind == OpKind::s2r && !used[r])
        add("s2r-unused", r, fmt::format("{}: no MFMA after it consumes these registers (dead LDS read, or the MFMA is ordered before it)", d(r)));
  }

  void resources() {
    if (lds_bytes(s_) > kLdsCapacity)
      add("lds-capacity", -1, fmt::format("LDS use is {} buffers x {} bytes (A {}x{} {} + B {}x{} {}) = {} bytes, more than the {} bytes "
                                          "({} KiB) of a gfx950 CU", s_.lds_buffers, slot_bytes(s_), s_.tile_m, s_.tile_k,
                                          to_string(s_.type_a), s_.tile_k, s_.tile_n, to_string(s_.type_b), lds_bytes(s_), kLdsCapacity,
                                          kLdsCapacity / 1024));
    const int agprs = accumulator_registers(s_), vgprs = vgpr_estimate(s_);
    if (agprs > kMaxAgprs)
      add("registers", -1, fmt::format("the wave tile {}x{} needs {} f32 accumulator registers per lane, more than the {} AGPRs",
                                       s_.tile_m / s_.wave_grid_m, s_.tile_n / s_.wave_grid_n, agprs, kMaxAgprs));
    else if (agprs + vgprs > kMaxRegisters)
      add("registers", -1, fmt::format("{} accumulator + about {} VGPRs (S2R registers with their versions, addressing) = {} registers "
                                       "per lane, more than the {} of gfx950", agprs, vgprs, agprs + vgprs, kMaxRegisters));
  }

  const Schedule& s_;
  std::vector<Finding>& out_;
};

}  // namespace

void check_static_rules(const Schedule& s, std::vector<Finding>& findings) { Rules(s, findings).run(); }

}  // namespace cdna4::detail
