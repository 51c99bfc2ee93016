// Canonical JSON text of an attention schedule (fields in a fixed order, one op a
// line) and describe(), with the GEMM ops' spelling of the shared fields.
#include <cdna4/attention.hpp>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "codegen/attention_schedule/geometry.hpp"
#include "codegen/schedule/op_text.hpp"

namespace cdna4 {
namespace {

bool has_operand(AttentionOpKind kind) { return kind == AttentionOpKind::g2s || kind == AttentionOpKind::s2r; }

std::string op_line(const AttentionOp& op) {
  std::string line = fmt::format("{{\"op\": \"{}\"", to_string(op.kind));
  if (has_operand(op.kind)) line += fmt::format(", \"operand\": \"{}\"", to_string(op.operand));
  if (op.kind == AttentionOpKind::g2s) line += fmt::format(", \"part\": {}", op.part);
  if (op.kpack) line += fmt::format(", \"kpack\": {}", *op.kpack);
  if (op.kind == AttentionOpKind::setprio) line += fmt::format(", \"prio\": {}", op.prio);
  return line + detail::json_timing(op) + "}";
}

}  // namespace

std::string to_json(const AttentionSchedule& s) {
  std::string out = "{\n  \"kind\": \"attention\",\n";
  out += fmt::format("  \"name\": {},\n", nlohmann::json(s.name).dump());
  out += fmt::format("  \"target\": {},\n", nlohmann::json(s.target).dump());
  out += fmt::format("  \"dim\": {},\n  \"waves\": {},\n  \"block_q\": {},\n  \"block_k\": {},\n", s.dim, s.waves,
                     s.block_q, s.block_k);
  out += fmt::format("  \"lds_buffers\": {},\n", s.lds_buffers);
  if (s.num_stages)
    out += fmt::format("  \"num_stages\": {}\n", *s.num_stages);
  else
    out += detail::json_ops(s.ops, op_line);
  return out + "}\n";
}

std::string describe(const AttentionSchedule& s, int op_index) {
  const AttentionOp& op = s.ops.at(op_index);
  std::string d = fmt::format("ops[{}] ({}", op_index, to_string(op.kind));
  if (has_operand(op.kind)) d += fmt::format(" {}", to_string(op.operand));
  if (op.kind == AttentionOpKind::g2s) d += fmt::format(" part={}", op.part);
  if (op.kpack) d += fmt::format(" kpack={}", *op.kpack);
  if (op.kind == AttentionOpKind::setprio) d += fmt::format(" prio={}", op.prio);
  return d + detail::describe_timing(op) + ")";
}

}  // namespace cdna4
