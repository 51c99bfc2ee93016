#pragma once
// The text of the fields every schedule op has (stage, order, phase and the waits
// before it), as describe() and the canonical JSON spell them for GEMM and
// attention ops alike.
#include <fmt/format.h>

#include <string>
#include <vector>

namespace cdna4::detail {

// " stage=1 order=4 phase=0 vmcnt=2"
template <typename Op>
std::string describe_timing(const Op& op) {
  std::string d = fmt::format(" stage={} order={} phase={}", op.stage, op.order, op.phase);
  if (op.vmcnt) d += fmt::format(" vmcnt={}", *op.vmcnt);
  if (op.lgkmcnt) d += fmt::format(" lgkmcnt={}", *op.lgkmcnt);
  return d;
}

// ', "stage": 1, "order": 4, "phase": 0, "vmcnt": 2'
template <typename Op>
std::string json_timing(const Op& op) {
  std::string line = fmt::format(", \"stage\": {}, \"order\": {}, \"phase\": {}", op.stage, op.order, op.phase);
  if (op.vmcnt) line += fmt::format(", \"vmcnt\": {}", *op.vmcnt);
  if (op.lgkmcnt) line += fmt::format(", \"lgkmcnt\": {}", *op.lgkmcnt);
  return line;
}

// The ops array of the canonical text, one op per line.
template <typename Op, typename Line>
std::string json_ops(const std::vector<Op>& ops, Line&& line) {
  std::string out = "  \"ops\": [\n";
  for (size_t i = 0; i < ops.size(); ++i) out += "    " + line(ops[i]) + (i + 1 < ops.size() ? ",\n" : "\n");
  return out + "  ]\n";
}

}  // namespace cdna4::detail
