// The loop over the KV blocks of a workgroup (n of them, computed at entry):
// iteration i runs each op on block i - stage when that block exists, in the
// ops' order. For n >= depth - 1 that is a straight-line prologue (iterations
// 0 .. depth - 2), a loop of n - depth + 1 steady iterations and a
// straight-line epilogue (n .. n + depth - 2); the few smaller n a causal shape
// can have get their exact stream each. LDS slots are per-stage SGPRs that
// advance each iteration, so one loop body serves every block.
#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "codegen/attention/context.hpp"
#include "codegen/schedule/op_list.hpp"
#include "codegen/schedule/stream_expansion.hpp"
#include "runtime/attention/policy.hpp"

namespace cdna4::codegen::attention {

using namespace isa;

namespace {

struct Occurrence {
  int64_t iteration, n;
};

// The loop body in emission order and the instructions each counter counts in
// it, by which a steady-state wait is translated where fewer ops run, as the
// verifier's stream expansion translates it (codegen/schedule/stream_expansion.hpp).
struct Body {
  std::vector<int> order;
  detail::CounterSlots vm, lgkm;
  explicit Body(const AttentionContext& ctx)
      : order(detail::emission_order(ctx.schedule.ops)),
        vm(detail::counter_slots(ctx.schedule.ops, order, vm_instructions)),
        lgkm(detail::counter_slots(ctx.schedule.ops, order,
                                   [&](const AttentionOp& op) { return lgkm_instructions(ctx.geo, op); })) {}
};

// The wait an op needs at every occurrence of this code: the fewest.
std::optional<int> wait_at(const AttentionContext& ctx, const detail::CounterSlots& slots, int pos,
                           const std::vector<Occurrence>& at, const std::optional<int>& steady) {
  if (!steady) return std::nullopt;
  int wait = *steady;
  for (const Occurrence& o : at)
    wait = std::min(wait, detail::effective_count(ctx.schedule.ops, slots, int(o.iteration), pos, *steady, int(o.n)));
  return wait;
}

void lower(std::optional<int>& pending, const std::optional<int>& wait) {
  if (wait) pending = pending ? std::min(*pending, *wait) : *wait;
}

void emit_op(AttentionContext& ctx, const AttentionOp& op) {
  switch (op.kind) {
    case AttentionOpKind::g2s:
    case AttentionOpKind::s2r: emit_memory_op(ctx, op); break;
    case AttentionOpKind::dot_qk:
    case AttentionOpKind::convert_p:
    case AttentionOpKind::dot_pv: emit_dot_op(ctx, op); break;
    case AttentionOpKind::mask:
    case AttentionOpKind::row_max:
    case AttentionOpKind::exp:
    case AttentionOpKind::row_sum:
    case AttentionOpKind::rescale_o: emit_softmax_op(ctx, op); break;
    case AttentionOpKind::barrier: ctx.code.s_barrier(); break;
    case AttentionOpKind::setprio: ctx.code.s_setprio(op.prio); break;
    case AttentionOpKind::wait: break;  // its counts are emitted before it
  }
}

// One iteration whose ops of the stages `runs` says run, at the occurrences `at`
// (all of which run the same ops); then the slots and the iteration advance.
template <class Runs>
void emit_iteration(AttentionContext& ctx, const Body& body, const std::vector<Occurrence>& at, Runs runs) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  std::optional<int> vm, lgkm;  // waits of ops that do not run here carry to the next one that does
  for (int pos = 0; pos < int(body.order.size()); ++pos) {
    const AttentionOp& op = ctx.schedule.ops[body.order[pos]];
    lower(vm, wait_at(ctx, body.vm, pos, at, op.vmcnt));
    lower(lgkm, wait_at(ctx, body.lgkm, pos, at, op.lgkmcnt));
    if (!runs(op.stage)) continue;
    c.s_waitcnt(vm.value_or(-1), lgkm.value_or(-1));
    vm.reset(), lgkm.reset();
    emit_op(ctx, op);
  }
  c.s_waitcnt(vm.value_or(-1), lgkm.value_or(-1));
  const int bytes = ctx.geo.block_bytes(), buffers = ctx.geo.lds_buffers;
  if (buffers > 1)
    for (int s = 0; s < ctx.depth; ++s) {
      c.s_add_u32(r.slot(s), r.slot(s), imm(bytes));
      c.s_cmp_ge_u32(r.slot(s), imm(buffers * bytes));
      c.s_cselect_b32(r.slot(s), imm(0), r.slot(s));
    }
  c.s_add_u32(r.iter, r.iter, imm(1));
}

// The exact stream for n blocks, every iteration straight-line.
void emit_exact(AttentionContext& ctx, const Body& body, int64_t n) {
  for (int64_t i = 0; i < n + ctx.depth - 1; ++i) {
    ctx.code.comment(fmt::format("iteration {} of {} blocks", i, n));
    emit_iteration(ctx, body, {{i, n}}, [&](int stage) { return i - stage >= 0 && i - stage < n; });
  }
}

// The block counts this shape's workgroups have (policy.cpp kv_blocks).
std::set<int64_t> block_counts(const AttentionContext& ctx) {
  std::set<int64_t> out;
  const AttentionBlocks b = blocks(ctx.schedule);
  for (int64_t q0 = 0; q0 < ctx.shape.seqlen_q; q0 += b.queries) {
    out.insert(cdna4::attention::kv_blocks(ctx.shape, b, q0));
    if (!ctx.shape.causal) break;
  }
  return out;
}

}  // namespace

void block_of_stage(AttentionContext& ctx, Reg block, int stage) {
  if (stage == 0) ctx.code.s_mov_b32(block, ctx.regs.iter);
  else ctx.code.s_sub_i32(block, ctx.regs.iter, imm(stage));
}

void emit_kv_loop(AttentionContext& ctx) {
  Code& c = ctx.code;
  const AttentionRegisters& r = ctx.regs;
  const Body body(ctx);
  const int depth = ctx.depth;
  const std::set<int64_t> counts = block_counts(ctx);
  const std::string done = "kv_done";
  // Zero blocks: nothing to visit (O = 0, LSE = -inf). Fewer than depth - 1: an exact stream each.
  std::vector<int64_t> short_counts;
  for (int64_t n : counts)
    if (n == 0) {
      c.s_cmp_eq_u32(r.blocks, imm(0));
      c.s_cbranch_scc1(done);
    } else if (n < depth - 1) {
      short_counts.push_back(n);
      c.s_cmp_eq_u32(r.blocks, imm(n));
      c.s_cbranch_scc1(fmt::format("kv_blocks_{}", n));
    }
  const bool general = std::any_of(counts.begin(), counts.end(), [&](int64_t n) { return n >= depth - 1; });
  if (general) {
    // Occurrences that stand for every n >= depth - 1: the stream's waits settle
    // within depth iterations of either end.
    std::vector<int64_t> ns;
    for (int64_t n = std::max(1, depth - 1); n <= depth - 1 + 2 * depth + ctx.geo.lds_buffers + 2; ++n) ns.push_back(n);
    for (int i = 0; i < depth - 1; ++i) {
      std::vector<Occurrence> at;
      for (int64_t n : ns) at.push_back({i, n});
      c.comment(fmt::format("prologue iteration {}", i));
      emit_iteration(ctx, body, at, [&](int stage) { return stage <= i; });
    }
    std::vector<Occurrence> steady;
    for (int64_t n : ns)
      for (int64_t i = depth - 1; i < n; ++i) steady.push_back({i, n});
    const std::string head = "kv_loop", exit = "kv_loop_end";
    c.comment("steady state: iterations depth - 1 .. n - 1");
    c.s_sub_i32(r.trips, r.blocks, imm(depth - 1));
    c.s_cmp_eq_u32(r.trips, imm(0));
    c.s_cbranch_scc1(exit);
    c.label(head);
    const size_t before = c.instruction_count();
    emit_iteration(ctx, body, steady, [](int) { return true; });
    c.s_sub_u32(r.trips, r.trips, imm(1));
    c.s_cmp_lg_u32(r.trips, imm(0));
    c.s_cbranch_scc1(head);
    ctx.loop_instructions = int(c.instruction_count() - before);
    c.label(exit);
    for (int e = 0; e < depth - 1; ++e) {
      std::vector<Occurrence> at;
      for (int64_t n : ns) at.push_back({n + e, n});
      c.comment(fmt::format("epilogue iteration n + {}", e));
      emit_iteration(ctx, body, at, [&](int stage) { return stage > e; });
    }
  }
  for (int64_t n : short_counts) {
    c.s_branch(done);
    c.label(fmt::format("kv_blocks_{}", n));
    emit_exact(ctx, body, n);
  }
  c.label(done);
}

}  // namespace cdna4::codegen::attention
