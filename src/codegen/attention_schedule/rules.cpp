// Rules that hold for an attention schedule's op list, before any simulation.
//
//   rule            what it proves
//   wait-range,     as for GEMM schedules (codegen/schedule/op_list.hpp)
//   unique-order,
//   phase-order
//   g2s-coverage    every G2S part of K and of V is loaded by exactly one op
//   op-coverage     s2r k / s2r v / dot_qk / convert_p / dot_pv cover each of
//                   their kpacks once; mask, row_max, exp, row_sum, rescale_o
//                   appear exactly once (every KV block runs each once)
//   lds-capacity    lds_buffers * (K block + V block) fits a CU's LDS
#include <fmt/format.h>

#include <map>

#include "codegen/attention_schedule/limits.hpp"
#include "codegen/attention_schedule/verifier_internal.hpp"
#include "codegen/schedule/op_list.hpp"

namespace cdna4::detail {
namespace {

using K = AttentionOpKind;

// The op kinds an iteration runs once per kpack (or once), with the operand for s2r.
struct CoveredRow {
  K kind;
  KvOperand operand;
};
constexpr CoveredRow kCovered[] = {
    {K::s2r, KvOperand::k}, {K::dot_qk, KvOperand::k}, {K::mask, KvOperand::k},      {K::row_max, KvOperand::k},
    {K::exp, KvOperand::k}, {K::row_sum, KvOperand::k}, {K::rescale_o, KvOperand::k}, {K::convert_p, KvOperand::k},
    {K::s2r, KvOperand::v}, {K::dot_pv, KvOperand::k},
};

std::string kind_name(const CoveredRow& row) {
  return row.kind == K::s2r ? fmt::format("s2r {}", to_string(row.operand)) : to_string(row.kind);
}

class Rules {
 public:
  Rules(const AttentionSchedule& s, std::vector<Finding>& out) : s_(s), g_(AttentionGeometry::of(s)), out_(out) {}

  void run() {
    check_op_list(s_.ops, [&](int i) { return describe(s_, i); }, out_);
    g2s_coverage();
    for (const CoveredRow& row : kCovered) coverage(row);
    if (const MaybeProblem p = lds_problem(s_)) add("lds-capacity", -1, p->message);
  }

 private:
  void add(const char* rule, int op, std::string message) { out_.push_back(Finding{rule, op, std::move(message)}); }

  void g2s_coverage() {
    check_g2s_coverage(
        s_.ops, K::g2s, {KvOperand::k, KvOperand::v}, [&](KvOperand) { return g_.parts(); },
        [&](KvOperand o, int) { return fmt::format("of the {} block", to_string(o)); },
        [&](int i) { return describe(s_, i); }, "KV block", out_);
  }

  void coverage(const CoveredRow& row) {
    const int kpacks = std::max(1, g_.kpacks(row.kind, row.operand));
    std::map<int, int> owner;  // kpack -> op
    for (int i = 0; i < static_cast<int>(s_.ops.size()); ++i) {
      const AttentionOp& op = s_.ops[i];
      if (op.kind != row.kind || (row.kind == K::s2r && op.operand != row.operand)) continue;
      const KpackRange r = has_kpack(op.kind) ? g_.kpack_range(op) : KpackRange{0, 0};
      for (int c = r.first; c <= r.last; ++c) {
        auto [it, fresh] = owner.emplace(c, i);
        if (fresh) continue;
        add("op-coverage", i, has_kpack(row.kind)
            ? fmt::format("{}: kpack {} is already covered by {}; each kpack runs once per KV block", describe(s_, i), c, describe(s_, it->second))
            : fmt::format("{}: {} already runs in {}; it runs once per KV block", describe(s_, i), kind_name(row), describe(s_, it->second)));
        break;
      }
    }
    for (int c = 0; c < kpacks; ++c)
      if (!owner.count(c)) {
        add("op-coverage", -1, has_kpack(row.kind)
            ? fmt::format("no {} op covers kpack {} (of {}); every KV block needs each kpack once", kind_name(row), c, kpacks)
            : fmt::format("no {} op; every KV block needs it once", kind_name(row)));
        return;
      }
  }

  const AttentionSchedule& s_;
  const AttentionGeometry g_;
  std::vector<Finding>& out_;
};

}  // namespace

void check_attention_rules(const AttentionSchedule& s, std::vector<Finding>& findings) { Rules(s, findings).run(); }

}  // namespace cdna4::detail
