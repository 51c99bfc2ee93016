#pragma once
// What an attention schedule may hold: one table of limits and one set of
// checks. The JSON parser applies them as it reads (naming the JSON path);
// plan(), and so compile_attention, applies them to a schedule built in code,
// with the same paths and words; verify() refuses what its simulation could not
// hold. The limits are what the lowering builds (schedules/README.md,
// "Attention schedules"): the planner writes num_stages 1 or 2; explicit ops may
// use stages 0..15 (the op timing limits of every schedule, one SGPR of LDS slot
// base per stage).
#include <cdna4/attention.hpp>

#include <string>

#include "codegen/attention_schedule/geometry.hpp"
#include "codegen/schedule/int_limit.hpp"

namespace cdna4::detail {

struct AttentionLimits {
  IntLimit dim = IntLimit::one_of({64, 128});
  IntLimit waves = IntLimit::one_of({4, 8});
  IntLimit block_q = IntLimit::range(16, 1024);  // and exactly 16 * waves: each wave owns 16 query rows
  IntLimit block_k = IntLimit::one_of({32, 64, 128});
  IntLimit lds_buffers = IntLimit::range(1, 4);
  IntLimit num_stages = IntLimit::one_of({1, 2});
};  // stage, order, phase, waits and prio: kOpTiming (codegen/schedule/op_list.hpp)
inline const AttentionLimits kAttentionLimits;

// The fields an op of each kind has besides op, stage, order, phase, vmcnt,
// lgkmcnt; `counts`: it needs vmcnt, lgkmcnt or both (a wait op).
struct OpFields {
  AttentionOpKind kind;
  bool operand, part, kpack, prio, counts;
};
const OpFields& op_fields(AttentionOpKind kind);

// G2S parts 0 .. parts - 1; the kpacks of an op kind 0 .. kpacks - 1.
IntLimit part_limit(const AttentionGeometry& g);
IntLimit kpack_limit(const AttentionGeometry& g, AttentionOpKind kind, KvOperand operand);

// dim, waves, block_q, block_k, lds_buffers, and K / V blocks of whole G2S parts.
MaybeProblem geometry_problem(const AttentionSchedule& s);
// lds_buffers K and V slots within a CU's LDS.
MaybeProblem lds_problem(const AttentionSchedule& s);
// One op (`path`: "ops[i]"): stage, order, phase, waits (a wait op's counts), part, kpack, prio.
MaybeProblem op_problem(const AttentionSchedule& s, const AttentionOp& op, const std::string& path);
// All of the above with the target, num_stages or ops (not both), unique orders.
MaybeProblem schedule_problem(const AttentionSchedule& s);

}  // namespace cdna4::detail
