// Canonical JSON text of an attention schedule (fields in a fixed order, one op a
// line) and describe(), with the GEMM ops' spelling of the shared fields.
#include <cdna4/attention.hpp>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "codegen/attention_schedule/limits.hpp"
#include "codegen/schedule/op_text.hpp"

namespace cdna4 {
namespace {

std::string op_line(const AttentionOp& op) {
  const detail::OpFields& fields = detail::op_fields(op.kind);
  std::string line = fmt::format("{{\"op\": \"{}\"", to_string(op.kind));
  if (fields.operand) line += fmt::format(", \"operand\": \"{}\"", to_string(op.operand));
  if (fields.part) line += fmt::format(", \"part\": {}", op.part);
  if (op.kpack) line += fmt::format(", \"kpack\": {}", *op.kpack);
  if (fields.prio) line += fmt::format(", \"prio\": {}", op.prio);
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
  const detail::OpFields& fields = detail::op_fields(op.kind);
  std::string d = fmt::format("ops[{}] ({}", op_index, to_string(op.kind));
  if (fields.operand) d += fmt::format(" {}", to_string(op.operand));
  if (fields.part) d += fmt::format(" part={}", op.part);
  if (op.kpack) d += fmt::format(" kpack={}", *op.kpack);
  if (fields.prio) d += fmt::format(" prio={}", op.prio);
  return d + detail::describe_timing(op) + ")";
}

}  // namespace cdna4
