#include <cdna4/schedule.hpp>

#include <fmt/format.h>

#include "codegen/schedule/schedule_internal.hpp"
#include "common/mfma_table.hpp"

namespace cdna4 {

ScheduleError::ScheduleError(std::string file, std::string json_path, const std::string& message)
    : Error(json_path.empty() ? fmt::format("{}: {}", file, message)
                              : fmt::format("{}: {}: {}", file, json_path, message)),
      file_(std::move(file)),
      json_path_(std::move(json_path)) {}

const std::vector<std::pair<std::string, MfmaKind>>& detail::mfma_kinds() {
  static const std::vector<std::pair<std::string, MfmaKind>> kinds = {
      {"v_mfma_f32_16x16x32_bf16", MfmaKind::f32_16x16x32_bf16},
      {"v_mfma_f32_32x32x16_bf16", MfmaKind::f32_32x32x16_bf16},
  };
  return kinds;
}

MfmaShape mfma_shape(MfmaKind kind) {
  for (const auto& [name, k] : detail::mfma_kinds())
    if (k == kind) {
      const gfx950::MfmaInfo& row = *gfx950::find_mfma(name);
      return {row.m, row.n, row.k, row.mnemonic.data()};
    }
  throw Error("unknown MFMA kind");
}

const char* to_string(OpKind kind) {
  switch (kind) {
    case OpKind::g2s: return "g2s";
    case OpKind::s2r: return "s2r";
    case OpKind::mfma: return "mfma";
    case OpKind::barrier: return "barrier";
    case OpKind::setprio: return "setprio";
    case OpKind::wait: return "wait";
  }
  return "?";
}

const char* to_string(Operand operand) { return operand == Operand::a ? "a" : "b"; }

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
  d += fmt::format(" stage={} order={} phase={}", op.stage, op.order, op.phase);
  if (op.vmcnt) d += fmt::format(" vmcnt={}", *op.vmcnt);
  if (op.lgkmcnt) d += fmt::format(" lgkmcnt={}", *op.lgkmcnt);
  return d + ")";
}

}  // namespace cdna4
