#include "codegen/attention_schedule/limits.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

#include "cdna4/error.hpp"
#include "codegen/schedule/op_list.hpp"
#include "common/limits.hpp"

namespace cdna4::detail {
namespace {

using K = AttentionOpKind;

constexpr OpFields kOpFields[] = {
    {K::g2s, true, true, false, false, false},       {K::s2r, true, false, true, false, false},
    {K::dot_qk, false, false, true, false, false},   {K::mask, false, false, false, false, false},
    {K::row_max, false, false, false, false, false}, {K::exp, false, false, false, false, false},
    {K::row_sum, false, false, false, false, false}, {K::rescale_o, false, false, false, false, false},
    {K::convert_p, false, false, true, false, false}, {K::dot_pv, false, false, true, false, false},
    {K::barrier, false, false, false, false, false}, {K::setprio, false, false, false, true, false},
    {K::wait, false, false, false, false, true},
};

}  // namespace

const OpFields& op_fields(AttentionOpKind kind) {
  for (const OpFields& row : kOpFields)
    if (row.kind == kind) return row;
  throw Error(fmt::format("attention op kind {} has no fields row", static_cast<int>(kind)));
}

IntLimit part_limit(const AttentionGeometry& g) { return IntLimit::range(0, g.parts() - 1); }

IntLimit kpack_limit(const AttentionGeometry& g, AttentionOpKind kind, KvOperand operand) {
  return IntLimit::range(0, g.kpacks(kind, operand) - 1);
}

MaybeProblem geometry_problem(const AttentionSchedule& s) {
  const AttentionLimits& l = kAttentionLimits;
  if (MaybeProblem p = outside(l.dim, s.dim, "dim")) return p;
  if (MaybeProblem p = outside(l.waves, s.waves, "waves")) return p;
  if (MaybeProblem p = outside(l.block_q, s.block_q, "block_q")) return p;
  if (s.block_q != 16 * s.waves)
    return FieldProblem{"block_q", fmt::format("expected 16 * waves = {} (each wave owns 16 query rows), got {}",
                                               16 * s.waves, s.block_q)};
  if (MaybeProblem p = outside(l.block_k, s.block_k, "block_k")) return p;
  const AttentionGeometry g = AttentionGeometry::of(s);
  if (g.parts() == 0)
    return FieldProblem{"block_k", fmt::format("the K and V blocks ({} keys x {} bf16 = {} bytes) must split into whole "
                                               "G2S parts of waves * 1024 = {} bytes; use a larger block_k or fewer waves",
                                               s.block_k, s.dim, g.block_bytes(), g.part_bytes())};
  return outside(l.lds_buffers, s.lds_buffers, "lds_buffers");
}

MaybeProblem lds_problem(const AttentionSchedule& s) {
  const AttentionGeometry g = AttentionGeometry::of(s);
  if (g.lds_bytes() <= gfx950::kLdsBytesPerCu) return std::nullopt;
  return FieldProblem{"lds_buffers", fmt::format("LDS use is {} buffers x (K + V: 2 x {} keys x {} bf16) = {} bytes, "
                                                 "more than the {} bytes of a gfx950 CU", s.lds_buffers, s.block_k,
                                                 s.dim, g.lds_bytes(), gfx950::kLdsBytesPerCu)};
}

MaybeProblem op_problem(const AttentionSchedule& s, const AttentionOp& op, const std::string& path) {
  if (MaybeProblem p = op_timing_problem(op, path)) return p;
  const AttentionGeometry g = AttentionGeometry::of(s);
  const OpFields& fields = op_fields(op.kind);
  if (fields.counts)
    if (MaybeProblem p = wait_counts_problem(op, path)) return p;
  if (fields.part)
    if (MaybeProblem p = outside(part_limit(g), op.part, path + ".part")) return p;
  if (op.kpack && !fields.kpack)
    return FieldProblem{path + ".kpack", fmt::format("{} takes no kpack (only s2r, dot_qk, convert_p and dot_pv do)",
                                                     to_string(op.kind))};
  if (op.kpack)
    if (MaybeProblem p = outside(kpack_limit(g, op.kind, op.operand), *op.kpack, path + ".kpack")) return p;
  if (fields.prio) return outside(kOpTiming.prio, op.prio, path + ".prio");
  return std::nullopt;
}

MaybeProblem schedule_problem(const AttentionSchedule& s) {
  if (s.target != "gfx950")
    return FieldProblem{"target", fmt::format("expected one of \"gfx950\", got {}", nlohmann::json(s.target).dump())};
  if (MaybeProblem p = geometry_problem(s)) return p;
  if (s.num_stages && !s.ops.empty())
    return FieldProblem{"num_stages", "give either num_stages (the planner writes the ops) or ops, not both"};
  if (!s.num_stages && s.ops.empty()) return FieldProblem{"ops", "missing; expected an ops array or num_stages"};
  if (s.num_stages)
    if (MaybeProblem p = outside(kAttentionLimits.num_stages, *s.num_stages, "num_stages")) return p;
  std::set<int> orders;
  for (size_t i = 0; i < s.ops.size(); ++i) {
    const std::string path = fmt::format("ops[{}]", i);
    if (MaybeProblem p = op_problem(s, s.ops[i], path)) return p;
    if (!orders.insert(s.ops[i].order).second)
      return FieldProblem{path + ".order", fmt::format("order {} is used twice", s.ops[i].order)};
  }
  return lds_problem(s);
}

}  // namespace cdna4::detail
