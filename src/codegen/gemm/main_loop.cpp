// The schedule's instance stream (prologue, steady state, epilogue) as code. The
// stream is exact for the shape's K; iterations that repeat with the period of
// the LDS slots and register versions become a loop, the rest stays straight-line.
#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "codegen/gemm/context.hpp"

namespace cdna4::codegen {

using namespace isa;

namespace {

struct Iteration {
  int index = 0;
  int k_tiles = 0;  // of the stream the iteration belongs to (a stand-in K's, for long K)
  std::vector<OpInstance> instances;  // in emission order; op -1 is the ping-pong shift barrier
};

// The stage of a scaled schedule's MFMAs: one for all, so that the scales of
// two tiles in flight fit two register versions.
int mfma_scale_stage(const Schedule& s) {
  std::optional<int> stage;
  for (const ScheduleOp& op : s.ops) {
    if (op.kind != OpKind::mfma) continue;
    if (stage && *stage != op.stage)
      throw Error(fmt::format("schedule {}: MFMAs at stages {} and {}; the MX scale path keeps the scales of one tile "
                              "per register version, so a scaled schedule's MFMAs share one stage", s.name, *stage, op.stage));
    stage = op.stage;
  }
  return stage.value_or(0);
}

// Two iterations emit the same code when their ops, waits, slots and versions match.
using Signature = std::vector<std::tuple<int, int, int, int, int>>;

Signature signature(const GemmContext& ctx, const Iteration& it) {
  Signature sig;
  for (const auto& inst : it.instances) {
    const int k = inst.op < 0 ? 0 : inst.k;
    sig.emplace_back(inst.op, inst.vmcnt.value_or(-1), inst.lgkmcnt.value_or(-1), k % ctx.geo.lds_buffers,
                     k % ctx.geo.register_versions);
  }
  if (ctx.schedule.scaled) {  // the scale registers' tile parity, and whether this iteration loads scales
    const int tile = it.index + 1 - ctx.mfma_stage;
    sig.emplace_back(-2, it.index % 2, tile >= 0 && tile < it.k_tiles, it.index == 0, 0);
  }
  return sig;
}

std::vector<Iteration> iterations_of(const GemmContext& ctx, int k_tiles, int group) {
  std::vector<Iteration> out;
  for (const OpInstance& inst : expand(ctx.schedule, k_tiles, group)) {
    if (out.empty() || out.back().index != inst.iteration) out.push_back({inst.iteration, k_tiles, {}});
    out.back().instances.push_back(inst);
  }
  return out;
}

// dst = K elements of `bits` each, in bytes (stage offsets are whole tiles: exact).
// The byte offset of K column `elements` in operand `op`: elements x element
// size, or rows of ld bytes when the operand is K-major.
void k_offset_bytes(GemmContext& ctx, Reg dst, Reg elements, Operand op) {
  Code& c = ctx.code;
  const int bits = ctx.geo.of(op).element_bits;
  if (ctx.geo.of(op).k_major) c.s_mul_i32(dst, elements, imm(ctx.ld_bytes(op)));
  else if (bits == 16) c.s_lshl_b32(dst, elements, imm(1));
  else if (bits == 4) c.s_lshr_b32(dst, elements, imm(1));
  else if (bits == 6) {
    c.s_mul_i32(dst, elements, imm(3));
    c.s_lshr_b32(dst, dst, imm(2));
  } else if (dst != elements) c.s_mov_b32(dst, elements);
}

void emit_iteration(GemmContext& ctx, const Iteration& it) {
  Code& c = ctx.code;
  const RegisterPlan& r = ctx.regs;
  const Schedule& s = ctx.schedule;
  // Per stage with loads in this iteration: the byte offset of its tile along K
  // and the K columns left from there (lanes at or past it load zeros).
  std::vector<bool> stage_ready(depth(s), false);
  for (const auto& inst : it.instances) {
    if (inst.op < 0) continue;
    const ScheduleOp& op = s.ops[inst.op];
    if (op.kind != OpKind::g2s || stage_ready[op.stage]) continue;
    stage_ready[op.stage] = true;
    const Reg left = r.stage_k_left(op.stage), first = r.stage_k_bytes(op.stage, Operand::a);
    c.s_add_i32(first, r.k_base, imm(-op.stage * s.tile_k));  // the stage's first K column
    c.s_sub_i32(left, imm(ctx.shape.k), first);
    const Reg bytes_b = r.stage_k_bytes(op.stage, Operand::b);
    if (bytes_b != first) k_offset_bytes(ctx, bytes_b, first, Operand::b);
    k_offset_bytes(ctx, first, first, Operand::a);
  }
  // MX scales (see mfma_scale_stage): iteration i loads the scales of tile
  // i + 1 - mfma_stage, the tile its successor's MFMAs read, into the registers
  // of that tile's parity, right after the first wait that follows all of the
  // iteration's G2S (or at its end): one iteration ahead, and behind the G2S so
  // that the schedule's waits for those need not wait for them. Extra loads only
  // make the schedule's vmcnt waits wait for more, never less. An MFMA waits for
  // its scales with vmcnt(VM ops issued in this iteration), unless a wait in
  // this iteration already covered everything issued before it.
  const int mfma_stage = ctx.mfma_stage;
  auto load_scales_of = [&](int tile) {  // returns the loads issued
    int loads = 0;
    if (tile < 0 || tile >= it.k_tiles) return loads;
    for (int kp = 0; kp < ctx.geo.kpacks; ++kp) loads += emit_scale_loads(ctx, tile - it.index, tile % 2, kp);
    return loads;
  };
  int vm_issued = 0;            // VM ops this iteration, after any scale loads at its start
  bool previous_in = !s.scaled; // the scales loaded before this iteration are complete
  bool loaded = !s.scaled;
  size_t g2s_left = 0;
  for (const auto& inst : it.instances)
    if (inst.op >= 0 && s.ops[inst.op].kind == OpKind::g2s) ++g2s_left;
  if (s.scaled && it.index == 0 && mfma_stage == 0) load_scales_of(0);  // tile 0's MFMAs run in this iteration
  for (const auto& inst : it.instances) {
    int vm = inst.vmcnt.value_or(-1);
    const bool mfma = inst.op >= 0 && s.ops[inst.op].kind == OpKind::mfma;
    if (mfma && !previous_in && (vm < 0 || vm > vm_issued)) vm = vm_issued;
    if (vm >= 0 && vm <= vm_issued) previous_in = true;
    c.s_waitcnt(vm, inst.lgkmcnt.value_or(-1));
    if (inst.op >= 0 && s.ops[inst.op].kind == OpKind::g2s) {
      ++vm_issued;
      --g2s_left;
    }
    const bool scale_point = !loaded && g2s_left == 0 && (vm >= 0 || &inst == &it.instances.back());
    if (inst.op < 0) {
      c.s_barrier();
      c.lines.back().inst.comment = "ping-pong phase shift";
    } else {
      emit_op(ctx, s.ops[inst.op], inst.k % ctx.geo.lds_buffers, inst.k % ctx.geo.register_versions, inst.k % 2);
    }
    if (scale_point) {
      vm_issued += load_scales_of(it.index + 1 - mfma_stage);
      loaded = true;
    }
  }
  c.s_add_u32(r.k_base, r.k_base, imm(s.tile_k));
}

// The longest run [first, first + trips * period) whose iterations repeat with `period`.
struct LoopRun {
  size_t first = 0;
  int trips = 0;
};

LoopRun find_loop(const std::vector<Signature>& sigs, int period) {
  LoopRun best;
  for (size_t first = 0; first + period <= sigs.size(); ++first) {
    size_t n = first + period;
    while (n < sigs.size() && sigs[n] == sigs[first + (n - first) % period]) ++n;
    const int trips = int((n - first) / period);
    if (trips > best.trips) best = {first, trips};
  }
  return best;
}

// The iterations to emit and the loop among them. A long K is lowered from a
// short stand-in K with the same residue modulo the period: the extra periods
// are translation-invariant iterations, which become extra loop trips. So
// lowering costs the same for every K past a few periods.
struct MainLoopPlan {
  std::vector<Iteration> iterations;  // of the stand-in K
  LoopRun loop;
  size_t inserted_at = 0;   // position where the extra periods belong
  int inserted_iterations = 0;
};

MainLoopPlan plan_main_loop(const GemmContext& ctx, int group, int period) {
  const int invariant_from = translation_invariant_from(ctx.schedule);
  const int shortest = invariant_from + 4 * period + depth(ctx.schedule);
  int stand_in = ctx.k_tiles;
  if (ctx.k_tiles > shortest + period) stand_in = shortest + (ctx.k_tiles - shortest) % period;
  MainLoopPlan plan;
  plan.iterations = iterations_of(ctx, stand_in, group);
  std::vector<Signature> sigs;
  for (const auto& it : plan.iterations) sigs.push_back(signature(ctx, it));
  plan.loop = find_loop(sigs, period);
  if (stand_in == ctx.k_tiles) return plan;

  // Insert at a trip boundary inside the loop and inside [invariant_from, stand_in].
  const auto& its = plan.iterations;
  const auto index_at = [&](size_t pos) { return pos < its.size() ? its[pos].index : its.back().index + 1; };
  size_t end_of_invariant = plan.loop.first;
  while (end_of_invariant < its.size() && its[end_of_invariant].index < stand_in) ++end_of_invariant;
  const size_t loop_end = plan.loop.first + size_t(plan.loop.trips) * period;
  const size_t q = plan.loop.first + (std::min(loop_end, end_of_invariant) - plan.loop.first) / period * period;
  if (plan.loop.trips < 2 || index_at(q) < invariant_from || index_at(q) > stand_in) {
    // Not expected for any schedule; the exact stream is always correct.
    plan = MainLoopPlan{iterations_of(ctx, ctx.k_tiles, group), {}, 0, 0};
    sigs.clear();
    for (const auto& it : plan.iterations) sigs.push_back(signature(ctx, it));
    plan.loop = find_loop(sigs, period);
    return plan;
  }
  const int extra_trips = (ctx.k_tiles - stand_in) / period;
  plan.loop.trips += extra_trips;
  plan.inserted_at = q;
  plan.inserted_iterations = extra_trips * period;
  return plan;
}

}  // namespace

void emit_main_loop(GemmContext& ctx, int group, const std::string& label_prefix) {
  Code& c = ctx.code;
  if (ctx.schedule.scaled) ctx.mfma_stage = mfma_scale_stage(ctx.schedule);
  const int period = std::lcm(std::lcm(ctx.geo.lds_buffers, ctx.geo.register_versions), ctx.schedule.scaled ? 2 : 1);
  const MainLoopPlan plan = plan_main_loop(ctx, group, period);
  const std::vector<Iteration>& its = plan.iterations;
  const LoopRun& loop = plan.loop;
  const bool use_loop = loop.trips >= 2;

  for (size_t i = 0; i < its.size();) {
    if (use_loop && i == loop.first) {
      const std::string label = label_prefix + "steady_loop";
      c.comment(fmt::format("steady state: {} trips of {} iteration(s)", loop.trips, period));
      c.s_mov_b32(ctx.regs.trips, imm(loop.trips));
      c.label(label);
      const size_t before = c.instruction_count();
      for (int u = 0; u < period; ++u) {
        c.comment(fmt::format("iteration i={}+{}*trip", its[i + u].index, period));
        emit_iteration(ctx, its[i + u]);
      }
      c.s_sub_u32(ctx.regs.trips, ctx.regs.trips, imm(1));
      c.s_cmp_lg_u32(ctx.regs.trips, imm(0));
      c.s_cbranch_scc1(label);
      ctx.loop_instructions = int(c.instruction_count() - before);
      ctx.loop_iterations = period;
      i += size_t(loop.trips) * period - size_t(plan.inserted_iterations);
      continue;
    }
    const int index = its[i].index + (i >= plan.inserted_at ? plan.inserted_iterations : 0);
    c.comment(fmt::format("{}", describe_iteration(ctx.schedule, index, ctx.k_tiles)));
    emit_iteration(ctx, its[i]);
    ++i;
  }
}

}  // namespace cdna4::codegen
