#include "codegen/attention_schedule/loop_picture.hpp"

#include <fmt/format.h>

#include <vector>

#include "codegen/attention_schedule/geometry.hpp"
#include "codegen/schedule/op_list.hpp"

namespace cdna4::detail {
namespace {

std::string waits(const AttentionOp& op) {
  std::string w;
  if (op.vmcnt) w += fmt::format(" vmcnt({})", *op.vmcnt);
  if (op.lgkmcnt) w += fmt::format(" lgkmcnt({})", *op.lgkmcnt);
  return w.empty() ? "" : "s_waitcnt" + w + "; ";
}

// The index an op runs over (part or kpack), or -1.
int index_of(const AttentionOp& op) {
  if (op.kind == AttentionOpKind::g2s) return op.part;
  return op.kpack.value_or(-1);
}

std::string name_of(const AttentionOp& op) {
  std::string n = to_string(op.kind);
  if (op.kind == AttentionOpKind::g2s || op.kind == AttentionOpKind::s2r) n += fmt::format(" {}", to_string(op.operand));
  if (op.kind == AttentionOpKind::setprio) n += fmt::format(" {}", op.prio);
  return n;
}

// Does `next` continue the run ending with `last` (same op on the next index, no wait)?
bool continues(const AttentionOp& last, const AttentionOp& next) {
  return name_of(last) == name_of(next) && last.stage == next.stage && last.phase == next.phase &&
         index_of(last) >= 0 && index_of(next) == index_of(last) + 1 && !next.vmcnt && !next.lgkmcnt;
}

}  // namespace

std::string attention_loop_picture(const AttentionSchedule& s) {
  const std::vector<int> body = emission_order(s.ops);
  std::string out = fmt::format("loop body ({} stage{}, {} LDS slot{}; iteration i works on KV block t = i - stage):\n",
                                depth(s), depth(s) == 1 ? "" : "s", s.lds_buffers,
                                s.lds_buffers == 1 ? "" : "s");
  int phase = -1;
  for (size_t j = 0; j < body.size();) {
    const AttentionOp& first = s.ops[body[j]];
    size_t end = j + 1;
    while (end < body.size() && continues(s.ops[body[end - 1]], s.ops[body[end]])) ++end;
    if (first.phase != phase) out += fmt::format(" phase {}:\n", phase = first.phase);
    const AttentionOp& last = s.ops[body[end - 1]];
    std::string what = name_of(first);
    const char* index = first.kind == AttentionOpKind::g2s ? "part" : "kpack";
    if (index_of(first) >= 0)
      what += end - j > 1 ? fmt::format(" {}s {}..{}", index, index_of(first), index_of(last))
                          : fmt::format(" {} {}", index, index_of(first));
    else if (has_kpack(first.kind))
      what += " (all kpacks)";
    out += fmt::format("  [t=i-{}] {}{}\n", first.stage, waits(first), what);
    j = end;
  }
  return out;
}

}  // namespace cdna4::detail
