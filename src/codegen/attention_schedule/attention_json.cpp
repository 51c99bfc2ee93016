// Attention schedule JSON parser: the GEMM parser's document limits and Reader;
// every error names the file, the JSON path and what was expected.
#include <cdna4/attention.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "codegen/attention_schedule/limits.hpp"
#include "codegen/schedule/json_reader.hpp"

namespace cdna4 {
namespace {

using detail::AttentionLimits;
using detail::choices_of;
using detail::IntLimit;
using detail::json;
using detail::kAttentionLimits;
using detail::MaybeProblem;
using detail::OpFields;
using detail::Reader;

// Every field in kAttentionLimits' words; then the checks a schedule built in
// code gets (limits.hpp), so a file and a C++ schedule are refused alike.
void check(const Reader& r, const MaybeProblem& problem) {
  if (problem) r.fail(problem->path, problem->message);
}

AttentionOp read_op(const Reader& r, const AttentionSchedule& s, const json& v, const std::string& path) {
  r.object(v, path);
  AttentionOp op;
  op.kind = r.choice<AttentionOpKind>(r.need(v, path, "op", "the op kind"), path + ".op", choices_of<AttentionOpKind>());
  const OpFields& row = detail::op_fields(op.kind);
  std::vector<const char*> allowed = {"op"};
  if (row.operand) allowed.push_back("operand");
  if (row.part) allowed.push_back("part");
  if (row.kpack) allowed.push_back("kpack");
  if (row.prio) allowed.push_back("prio");
  for (const char* f : {"stage", "order", "phase", "vmcnt", "lgkmcnt"}) allowed.push_back(f);
  r.only_fields(v, path, allowed);
  r.op_timing(v, path, op);
  const AttentionGeometry g = AttentionGeometry::of(s);
  if (row.operand)
    op.operand = r.choice<KvOperand>(r.need(v, path, "operand", "\"k\" or \"v\""), path + ".operand", choices_of<KvOperand>());
  if (row.part) op.part = r.integer(r.need(v, path, "part", "a G2S part index"), path + ".part", detail::part_limit(g));
  if (row.kpack) op.kpack = r.optional_integer(v, path, "kpack", detail::kpack_limit(g, op.kind, op.operand));
  if (row.prio) op.prio = r.prio(v, path);
  check(r, detail::op_problem(s, op, path));
  return op;
}

int read_limited(const Reader& r, const json& root, const char* field, const IntLimit& limit) {
  return r.integer(r.need(root, "", field, limit.expected().c_str()), field, limit);
}

void read_geometry(const Reader& r, const json& root, AttentionSchedule& s) {
  const AttentionLimits& l = kAttentionLimits;
  s.dim = read_limited(r, root, "dim", l.dim);
  s.waves = read_limited(r, root, "waves", l.waves);
  s.block_q = 16 * s.waves;
  if (const json* v = r.find(root, "block_q")) s.block_q = r.integer(*v, "block_q", l.block_q);
  s.block_k = read_limited(r, root, "block_k", l.block_k);
  check(r, detail::geometry_problem(s));
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

  const AttentionLimits& l = kAttentionLimits;
  detail::read_pipeline(r, root, s, l.num_stages, l.lds_buffers, AttentionOpKind::g2s, AttentionOpKind::s2r,
                        [&](const json& v, const std::string& path) { return read_op(r, s, v, path); });
  if (!r.find(root, "lds_buffers") && !l.lds_buffers.admits(s.lds_buffers))
    r.fail("lds_buffers", fmt::format("missing, and the stages from the first G2S to the last S2R ({}) need more "
                                      "than {} slots; give lds_buffers ({}..{})", s.lds_buffers, l.lds_buffers.hi,
                                      l.lds_buffers.lo, l.lds_buffers.hi));
  check(r, detail::lds_problem(s));
  return s;
}

AttentionSchedule load_attention_schedule(const std::string& path) {
  return parse_attention_schedule(detail::read_schedule_text(path), path);
}

}  // namespace cdna4
