// Canonical JSON text of a schedule: kernel fields in a fixed order, one op per line.
#include <cdna4/schedule.hpp>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "op_text.hpp"

namespace cdna4 {
namespace {

std::string op_line(const ScheduleOp& op) {
  std::string line = fmt::format("{{\"op\": \"{}\"", to_string(op.kind));
  auto field = [&](const char* key, int value) { line += fmt::format(", \"{}\": {}", key, value); };
  if (op.kind == OpKind::g2s || op.kind == OpKind::s2r)
    line += fmt::format(", \"operand\": \"{}\"", to_string(op.operand));
  if (op.kind == OpKind::g2s) field("part", op.part);
  if (op.kpack) field("kpack", *op.kpack);
  if (op.m_half) field("m_half", *op.m_half);
  if (op.n_half) field("n_half", *op.n_half);
  if (op.kind == OpKind::setprio) field("prio", op.prio);
  return line + detail::json_timing(op) + "}";
}

}  // namespace

std::string to_json(const Schedule& s) {
  std::string out = "{\n";
  out += fmt::format("  \"name\": {},\n", nlohmann::json(s.name).dump());
  out += fmt::format("  \"target\": {},\n", nlohmann::json(s.target).dump());
  out += fmt::format("  \"types\": {{\"a\": \"{}\", \"b\": \"{}\", \"acc\": \"{}\", \"c\": \"{}\"}},\n",
                     to_string(s.type_a), to_string(s.type_b), to_string(s.type_acc), to_string(s.type_c));
  out += fmt::format("  \"layout\": \"{}\",\n", to_string(s.layout));
  out += fmt::format("  \"tile\": {{\"m\": {}, \"n\": {}, \"k\": {}}},\n", s.tile_m, s.tile_n, s.tile_k);
  out += fmt::format("  \"waves\": {},\n", s.waves);
  out += fmt::format("  \"wave_grid\": {{\"m\": {}, \"n\": {}}},\n", s.wave_grid_m, s.wave_grid_n);
  out += fmt::format("  \"mfma\": \"{}\",\n", to_string(s.mfma));
  out += fmt::format("  \"lds_buffers\": {},\n", s.lds_buffers);
  out += fmt::format("  \"pingpong_groups\": {},\n", s.pingpong_groups);
  if (s.workgroup_order != WorkgroupOrder{})
    out += fmt::format("  \"workgroup_order\": {{\"xcds\": {}, \"group_m\": {}}},\n", s.workgroup_order.xcds,
                       s.workgroup_order.group_m);
  if (s.scaled) out += "  \"scale\": {\"a\": \"e8m0\", \"b\": \"e8m0\"},\n";
  if (const auto& e = s.epilogue)
    out += fmt::format("  \"epilogue\": {{\"c\": \"{}\", \"bias\": \"{}\", \"bias_type\": \"{}\", \"activation\": \"{}\"}},\n",
                       e->c ? to_string(*e->c) : "none",
                       to_string(e->bias), to_string(e->bias_type),
                       to_string(e->activation));
  if (s.num_stages) {
    out += fmt::format("  \"num_stages\": {}\n", *s.num_stages);
  } else {
    out += detail::json_ops(s.ops, op_line);
  }
  return out + "}\n";
}

}  // namespace cdna4
