// Attention schedule JSON parser: the GEMM parser's document limits and Reader;
// every error names the file, the JSON path and what was expected.
#include <cdna4/attention.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "codegen/attention_schedule/geometry.hpp"
#include "codegen/schedule/json_reader.hpp"

namespace cdna4 {
namespace {

using detail::choices_of;
using detail::json;
using detail::Reader;

// The fields an op of each kind has besides op, stage, order, phase, vmcnt, lgkmcnt.
struct OpFieldsRow {
  AttentionOpKind kind;
  bool operand, part, kpack, prio;
};
constexpr OpFieldsRow kOpFields[] = {
    {AttentionOpKind::g2s, true, true, false, false},      {AttentionOpKind::s2r, true, false, true, false},
    {AttentionOpKind::dot_qk, false, false, true, false},  {AttentionOpKind::mask, false, false, false, false},
    {AttentionOpKind::row_max, false, false, false, false}, {AttentionOpKind::exp, false, false, false, false},
    {AttentionOpKind::row_sum, false, false, false, false}, {AttentionOpKind::rescale_o, false, false, false, false},
    {AttentionOpKind::convert_p, false, false, true, false}, {AttentionOpKind::dot_pv, false, false, true, false},
    {AttentionOpKind::barrier, false, false, false, false}, {AttentionOpKind::setprio, false, false, false, true},
    {AttentionOpKind::wait, false, false, false, false},
};

const OpFieldsRow& fields_of(AttentionOpKind kind) {
  for (const OpFieldsRow& row : kOpFields)
    if (row.kind == kind) return row;
  throw Error(fmt::format("attention op kind {} has no fields row", static_cast<int>(kind)));
}

AttentionOp read_op(const Reader& r, const AttentionSchedule& s, const json& v, const std::string& path) {
  r.object(v, path);
  AttentionOp op;
  op.kind = r.choice<AttentionOpKind>(r.need(v, path, "op", "the op kind"), path + ".op", choices_of<AttentionOpKind>());
  const OpFieldsRow& row = fields_of(op.kind);
  std::vector<const char*> allowed = {"op"};
  if (row.operand) allowed.push_back("operand");
  if (row.part) allowed.push_back("part");
  if (row.kpack) allowed.push_back("kpack");
  if (row.prio) allowed.push_back("prio");
  for (const char* f : {"stage", "order", "phase", "vmcnt", "lgkmcnt"}) allowed.push_back(f);
  r.only_fields(v, path, allowed);
  r.op_timing(v, path, op);
  if (row.operand)
    op.operand = r.choice<KvOperand>(r.need(v, path, "operand", "\"k\" or \"v\""), path + ".operand", choices_of<KvOperand>());
  if (row.part)
    op.part = r.integer(r.need(v, path, "part", "a G2S part index"), path + ".part", 0, AttentionGeometry::of(s).parts() - 1);
  if (row.kpack) op.kpack = r.optional_integer(v, path, "kpack", 0, AttentionGeometry::of(s).kpacks(op.kind, op.operand) - 1);
  if (row.prio) op.prio = r.integer(r.need(v, path, "prio", "an integer in 0..3"), path + ".prio", 0, 3);
  if (op.kind == AttentionOpKind::wait && !op.vmcnt && !op.lgkmcnt) r.fail(path, "a wait op needs vmcnt, lgkmcnt or both");
  return op;
}

void read_geometry(const Reader& r, const json& root, AttentionSchedule& s) {
  s.dim = r.one_of(r.need(root, "", "dim", "64 or 128"), "dim", {64, 128});
  s.waves = r.one_of(r.need(root, "", "waves", "4 or 8"), "waves", {4, 8});
  s.block_q = 16 * s.waves;
  if (const json* v = r.find(root, "block_q"))
    if (r.integer(*v, "block_q", 16, 1024) != s.block_q)
      r.fail("block_q", fmt::format("expected 16 * waves = {} (each wave owns 16 query rows), got {}", s.block_q,
                                    Reader::got(*v)));
  s.block_k = r.one_of(r.need(root, "", "block_k", "32, 64 or 128"), "block_k", {32, 64, 128});
  if (AttentionGeometry::of(s).parts() == 0)
    r.fail("block_k", fmt::format("the K and V blocks ({} keys x {} bf16 = {} bytes) must split into whole G2S parts of "
                                  "waves * 1024 = {} bytes; use a larger block_k or fewer waves", s.block_k, s.dim,
                                  AttentionGeometry::of(s).block_bytes(), AttentionGeometry::of(s).part_bytes()));
}

}  // namespace

AttentionSchedule parse_attention_schedule(std::string_view text, const std::string& file) {
  const Reader r(file);
  const json root = detail::parse_document(text, file);
  if (!r.find(root, "kind") || detail::kind_of(r, root) != "attention")
    r.fail("kind", fmt::format("this is a GEMM schedule ({}); an attention schedule says \"kind\": \"attention\" "
                               "(read GEMM schedules with load_schedule)",
                               r.find(root, "kind") ? "kind \"gemm\"" : "no \"kind\""));
  r.only_fields(root, "", {"kind", "name", "target", "dim", "waves", "block_q", "block_k", "lds_buffers", "num_stages", "ops"});
  AttentionSchedule s;
  s.name = detail::read_name(r, root);
  s.target = r.choice<std::string>(r.need(root, "", "target", "\"gfx950\""), "target", {{"gfx950", "gfx950"}});
  read_geometry(r, root, s);

  const json* stages = r.find(root, "num_stages");
  const json* ops = r.find(root, "ops");
  if (stages && ops) r.fail("num_stages", "give either num_stages (the planner writes the ops) or ops, not both");
  if (!stages && !ops) r.fail("ops", "missing; expected an ops array or num_stages");
  if (stages) s.num_stages = r.integer(*stages, "num_stages", 1, 8);
  if (ops)
    s.ops = r.ops<AttentionOp>(*ops, [&](const json& v, const std::string& path) { return read_op(r, s, v, path); });
  if (const json* v = r.find(root, "lds_buffers")) {
    s.lds_buffers = r.integer(*v, "lds_buffers", 1, 4);
  } else {
    s.lds_buffers = detail::default_lds_buffers(s.num_stages, s.ops, AttentionOpKind::g2s, AttentionOpKind::s2r);
    if (s.lds_buffers > 4)
      r.fail("lds_buffers", fmt::format("missing, and the stages from the first G2S to the last S2R ({}) need more "
                                        "than 4 slots; give lds_buffers (1..4)", s.lds_buffers));
  }
  return s;
}

AttentionSchedule load_attention_schedule(const std::string& path) {
  return parse_attention_schedule(detail::read_schedule_text(path), path);
}

}  // namespace cdna4
