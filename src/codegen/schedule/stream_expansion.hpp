#pragma once
// Flattening a loop body into the per-wave instance stream, for any op list whose
// ops have `stage`, `order`, `vmcnt` and `lgkmcnt`: iteration i = 0 .. tiles +
// depth - 2 runs, in emission order, every op whose tile i - stage is in
// [0, tiles), and each wait is rewritten to the count the hardware needs there
// (prologue and epilogue issue fewer loads). GEMM and attention schedules share it.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "codegen/schedule/geometry.hpp"

namespace cdna4::detail {

// Iterations i < depth - 1 are the prologue, depth - 1 <= i < tiles the steady
// state, the rest the epilogue.
inline Region region_at(int depth, int iteration, int tiles) {
  if (iteration < depth - 1) return Region::prologue;
  if (iteration < tiles) return Region::steady;
  return Region::epilogue;
}
inline std::string describe_iteration_at(int depth, int iteration, int tiles) {
  static const char* names[] = {"prologue", "steady-state", "epilogue"};
  return fmt::format("{} iteration i={}", names[static_cast<int>(region_at(depth, iteration, tiles))], iteration);
}

// The counter slots of one loop body: which op issues the q-th counted
// instruction of an iteration (vmcnt: G2S ops, lgkmcnt: ds_reads).
struct CounterSlots {
  std::vector<int> slot_op;       // op index of each slot inside one iteration
  std::vector<int> slots_before;  // per emission position: slots issued before it
  int per_iteration() const { return static_cast<int>(slot_op.size()); }
};

// `counted(op)`: how many counted instructions the op issues.
template <typename Op, typename Counted>
CounterSlots counter_slots(const std::vector<Op>& ops, const std::vector<int>& body, Counted&& counted) {
  CounterSlots c;
  for (int index : body) {
    c.slots_before.push_back(c.per_iteration());
    const int n = counted(ops[index]);
    for (int j = 0; j < n; ++j) c.slot_op.push_back(index);
  }
  return c;
}

// A wait of N means: everything but the N most recent counted slots of the
// steady-state stream is complete. Slots whose op is absent in this iteration
// (its tile is out of range) are not issued, so the emitted count shrinks.
template <typename Op>
int effective_count(const std::vector<Op>& ops, const CounterSlots& c, int iteration, int position, int n,
                    int tiles) {
  const int per = c.per_iteration();
  if (per == 0) return 0;
  const long long now = static_cast<long long>(iteration) * per + c.slots_before[position];
  int issued = 0;
  for (long long q = now - 1; q >= 0 && q >= now - n; --q) {
    const long long it = q / per;
    const int k = static_cast<int>(it) - ops[c.slot_op[q % per]].stage;
    if (k >= 0 && k < tiles) ++issued;
  }
  return issued;
}

// The stream of one wave; `before_iteration(i, out)` may add instances ahead of
// iteration i (it is also called once with i = last iteration + 1).
template <typename Op, typename VmCounted, typename LgkmCounted, typename BeforeIteration>
std::vector<OpInstance> expand_ops(const std::vector<Op>& ops, const std::vector<int>& body, int tiles, int depth,
                                   VmCounted&& vm_counted, LgkmCounted&& lgkm_counted,
                                   BeforeIteration&& before_iteration) {
  const CounterSlots vm = counter_slots(ops, body, vm_counted);
  const CounterSlots lgkm = counter_slots(ops, body, lgkm_counted);
  const int last_iteration = tiles + depth - 2;
  std::vector<OpInstance> out;
  for (int i = 0; i <= last_iteration + 1; ++i) {
    before_iteration(i, out);
    if (i > last_iteration) break;
    for (size_t p = 0; p < body.size(); ++p) {
      const Op& op = ops[body[p]];
      const int k = i - op.stage;
      if (k < 0 || k >= tiles) continue;
      OpInstance inst{body[p], i, k, std::nullopt, std::nullopt};
      if (op.vmcnt) inst.vmcnt = effective_count(ops, vm, i, static_cast<int>(p), *op.vmcnt, tiles);
      if (op.lgkmcnt) inst.lgkmcnt = effective_count(ops, lgkm, i, static_cast<int>(p), *op.lgkmcnt, tiles);
      out.push_back(inst);
    }
  }
  return out;
}

}  // namespace cdna4::detail
