#include <cdna4/schedule.hpp>

#include <fmt/format.h>

#include "op_text.hpp"

namespace cdna4 {

ScheduleError::ScheduleError(std::string file, std::string json_path, const std::string& message)
    : Error(json_path.empty() ? fmt::format("{}: {}", file, message)
                              : fmt::format("{}: {}: {}", file, json_path, message)),
      file_(std::move(file)),
      json_path_(std::move(json_path)) {}

std::string describe(const Schedule& s, int op_index) {
  if (op_index < 0) return "the ping-pong phase-shift s_barrier";
  const ScheduleOp& op = s.ops.at(op_index);
  std::string d = fmt::format("ops[{}] ({}", op_index, to_string(op.kind));
  if (op.kind == OpKind::g2s) d += fmt::format(" {} part={}", to_string(op.operand), op.part);
  if (op.kind == OpKind::s2r) d += fmt::format(" {}", to_string(op.operand));
  if (op.kind == OpKind::s2r || op.kind == OpKind::mfma) {
    if (op.kpack) d += fmt::format(" kpack={}", *op.kpack);
    if (op.m_half) d += fmt::format(" m_half={}", *op.m_half);
    if (op.n_half) d += fmt::format(" n_half={}", *op.n_half);
  }
  if (op.kind == OpKind::setprio) d += fmt::format(" prio={}", op.prio);
  return d + detail::describe_timing(op) + ")";
}

}  // namespace cdna4
