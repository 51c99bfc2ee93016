// Schedule JSON parser: every error names the file, the JSON path and what was expected.
#include <cdna4/schedule.hpp>

#include <fmt/format.h>

#include <optional>
#include <string>

#include "codegen/schedule/schedule_internal.hpp"
#include "json_reader.hpp"

namespace cdna4 {
namespace {

using detail::Choices;
using detail::choices_of;
using detail::json;
using detail::Reader;

// Output types, as the element types they are.
Choices<DataType> output_types() {
  Choices<DataType> out;
  for (const auto& row : vocabulary::kOutTypes) out.emplace_back(row.name, row.type);
  return out;
}

bool mfma_operand(const vocabulary::DataTypeRow& row) { return row.element.has_value(); }

void read_types(const Reader& r, const json& root, Schedule& s) {
  const json* types = r.find(root, "types");
  if (!types) return;
  r.object(*types, "types");
  r.only_fields(*types, "types", {"a", "b", "acc", "c"});
  if (const json* v = r.find(*types, "a")) s.type_a = r.choice<DataType>(*v, "types.a", choices_of<DataType>(mfma_operand));
  if (const json* v = r.find(*types, "b")) s.type_b = r.choice<DataType>(*v, "types.b", choices_of<DataType>(mfma_operand));
  if (const json* v = r.find(*types, "acc")) s.type_acc = r.choice<DataType>(*v, "types.acc", choices_of({DataType::f32}));
  if (const json* v = r.find(*types, "c")) s.type_c = r.choice<DataType>(*v, "types.c", output_types());
}

// The MFMA must take the operand types: bf16 and f16 kinds both operands of
// their type, f8f6f4 kinds any of the 8-, 6- and 4-bit formats for each.
void check_types(const Reader& r, const Schedule& s) {
  const gfx950::MfmaInfo& mfma = detail::mfma_info(s.mfma);
  for (Operand op : {Operand::a, Operand::b}) {
    const DataType type = operand_type(s, op);
    const gfx950::Element e = *detail::mfma_element(type);
    if (gfx950::takes(mfma, e)) continue;
    std::string fits;
    for (const vocabulary::MfmaKindRow& kind : vocabulary::kMfmaKinds)
      if (gfx950::takes(*kind.info, e)) fits += (fits.empty() ? "" : ", ") + std::string(kind.name);
    r.fail(op == Operand::a ? "types.a" : "types.b",
           fmt::format("{} does not take {} operands ({}); for {} use {}", mfma.mnemonic, to_string(type),
                       mfma.f8f6f4 ? "it takes fp8, bf8, fp6, bf6 or fp4"
                                   : fmt::format("it takes {} x {}", gfx950::element_info(mfma.element).name,
                                                 gfx950::element_info(mfma.element).name),
                       to_string(type), fits));
  }
}

// "scale": {"a": "e8m0", "b": "e8m0"}, present exactly with a scaled MFMA.
void read_scale(const Reader& r, const json& root, Schedule& s) {
  const bool mfma_scaled = detail::mfma_info(s.mfma).scaled;
  const json* scale = r.find(root, "scale");
  if (scale) {
    r.object(*scale, "scale");
    r.only_fields(*scale, "scale", {"a", "b"});
    for (const char* operand : {"a", "b"})
      r.choice<std::string>(r.need(*scale, "scale", operand, "\"e8m0\""), std::string("scale.") + operand,
                            {{"e8m0", "e8m0"}});
    if (!mfma_scaled)
      r.fail("scale", fmt::format("{} takes no scales; MX-scaled operands need v_mfma_scale_f32_16x16x128_f8f6f4 "
                                  "or v_mfma_scale_f32_32x32x64_f8f6f4", to_string(s.mfma)));
  } else if (mfma_scaled) {
    r.fail("scale", fmt::format("missing; {} reads E8M0 scales: give \"scale\": {{\"a\": \"e8m0\", \"b\": \"e8m0\"}}",
                                to_string(s.mfma)));
  }
  s.scaled = mfma_scaled;
}

// "epilogue": {"c": "f32"|"bf16"|"f16"|"none", "bias": "none"|"m"|"n",
// "bias_type": "f32"|"bf16", "activation": a name in common/activations.hpp}.
void read_epilogue(const Reader& r, const json& root, Schedule& s) {
  const json* e = r.find(root, "epilogue");
  if (!e) return;
  r.object(*e, "epilogue");
  r.only_fields(*e, "epilogue", {"c", "bias", "bias_type", "activation"});
  Epilogue ep;
  if (const json* v = r.find(*e, "c")) {
    Choices<std::optional<DataType>> c_types = {{"none", std::nullopt}};
    for (const auto& [name, type] : output_types()) c_types.emplace_back(name, type);
    ep.c = r.choice<std::optional<DataType>>(*v, "epilogue.c", c_types);
  }
  if (const json* v = r.find(*e, "bias")) ep.bias = r.choice<BiasDim>(*v, "epilogue.bias", choices_of<BiasDim>());
  if (const json* v = r.find(*e, "bias_type"))
    ep.bias_type = r.choice<DataType>(*v, "epilogue.bias_type", choices_of({DataType::f32, DataType::bf16}));
  if (const json* v = r.find(*e, "activation"))
    ep.activation = r.choice<Activation>(*v, "epilogue.activation", choices_of<Activation>());
  s.epilogue = ep;
}

// Kernel-level geometry: everything downstream (parts, kpacks, halves) relies on it.
void check_geometry(const Reader& r, const Schedule& s) {
  check_types(r, s);
  const MfmaShape m = mfma_shape(s.mfma);
  if (s.tile_k % m.k != 0)
    r.fail("tile.k", fmt::format("expected a multiple of {} (the K of one {}), got {}", m.k, m.mnemonic, s.tile_k));
  const int wm = s.tile_m / s.wave_grid_m, wn = s.tile_n / s.wave_grid_n;
  if (s.tile_m % s.wave_grid_m != 0 || wm % (2 * m.m) != 0)
    r.fail("tile.m", fmt::format("expected a multiple of wave_grid.m * 2 * {} = {} so each wave's M half is whole MFMA blocks, got {}",
                                 m.m, s.wave_grid_m * 2 * m.m, s.tile_m));
  if (s.tile_n % s.wave_grid_n != 0 || wn % (2 * m.n) != 0)
    r.fail("tile.n", fmt::format("expected a multiple of wave_grid.n * 2 * {} = {} so each wave's N half is whole MFMA blocks, got {}",
                                 m.n, s.wave_grid_n * 2 * m.n, s.tile_n));
  for (Operand o : {Operand::a, Operand::b}) {
    const int rows = o == Operand::a ? s.tile_m : s.tile_n;
    const int bytes = operand_tile_bytes(s, o);
    const char* path = o == Operand::a ? "tile.m" : "tile.n";
    if (lds_row_major(s, o)) {  // parts are byte ranges of whole 16-byte row pieces
      if (bytes % part_bytes(s) != 0)
        r.fail(path, fmt::format("the {} tile ({} x {} {} = {} bytes) must split into whole G2S parts of waves * 1024 = "
                                 "{} bytes", to_string(o), rows, s.tile_k, to_string(operand_type(s, o)),
                                 bytes, part_bytes(s)));
      continue;
    }
    if (bytes % part_bytes(s) != 0 || rows % (bytes / part_bytes(s)) != 0)
      r.fail(path, fmt::format("the {} tile ({} x {} {} = {} bytes) must split into whole G2S parts of waves * 1024 = {} bytes "
                               "along its {} dimension", to_string(o), rows, s.tile_k,
                               to_string(operand_type(s, o)), bytes, part_bytes(s),
                               o == Operand::a ? "M" : "N"));
  }
}

ScheduleOp read_op(const Reader& r, const Schedule& s, const json& v, const std::string& path) {
  r.object(v, path);
  ScheduleOp op;
  op.kind = r.choice<OpKind>(r.need(v, path, "op", "the op kind"), path + ".op", choices_of<OpKind>());
  switch (op.kind) {
    case OpKind::g2s: r.only_fields(v, path, {"op", "operand", "part", "stage", "order", "phase", "vmcnt", "lgkmcnt"}); break;
    case OpKind::s2r: r.only_fields(v, path, {"op", "operand", "kpack", "m_half", "n_half", "stage", "order", "phase", "vmcnt", "lgkmcnt"}); break;
    case OpKind::mfma: r.only_fields(v, path, {"op", "kpack", "m_half", "n_half", "stage", "order", "phase", "vmcnt", "lgkmcnt"}); break;
    case OpKind::setprio: r.only_fields(v, path, {"op", "prio", "stage", "order", "phase", "vmcnt", "lgkmcnt"}); break;
    case OpKind::barrier:
    case OpKind::wait: r.only_fields(v, path, {"op", "stage", "order", "phase", "vmcnt", "lgkmcnt"}); break;
  }
  r.op_timing(v, path, op);
  if (op.kind == OpKind::g2s || op.kind == OpKind::s2r)
    op.operand = r.choice<Operand>(r.need(v, path, "operand", "\"a\" or \"b\""), path + ".operand", choices_of<Operand>());
  if (op.kind == OpKind::g2s) {
    const int parts = g2s_parts(s, op.operand);
    op.part = r.integer(r.need(v, path, "part", "a G2S part index"), path + ".part", 0, parts - 1);
  }
  if (op.kind == OpKind::s2r || op.kind == OpKind::mfma) {
    op.kpack = r.optional_integer(v, path, "kpack", 0, kpacks(s) - 1);
    op.m_half = r.optional_integer(v, path, "m_half", 0, 1);
    op.n_half = r.optional_integer(v, path, "n_half", 0, 1);
    if (op.kind == OpKind::s2r && op.operand == Operand::a && op.n_half)
      r.fail(path + ".n_half", "not allowed on an s2r of operand a (A is split along M: use m_half)");
    if (op.kind == OpKind::s2r && op.operand == Operand::b && op.m_half)
      r.fail(path + ".m_half", "not allowed on an s2r of operand b (B is split along N: use n_half)");
  }
  if (op.kind == OpKind::setprio) op.prio = r.prio(v, path);
  if (op.kind == OpKind::wait) r.need_wait_counts(path, op);
  return op;
}

}  // namespace

Schedule parse_schedule(std::string_view text, const std::string& file) {
  const Reader r(file);
  const json root = detail::parse_document(text, file);
  if (detail::kind_of(r, root) == "attention")
    r.fail("kind", "this is an attention schedule (kind \"attention\"): read it with load_attention_schedule "
                   "(cdna4-asmgen --verify takes both kinds), not as a GEMM schedule");
  r.only_fields(root, "", {"kind", "name", "target", "types", "layout", "tile", "waves", "wave_grid", "mfma",
                           "lds_buffers", "pingpong_groups", "workgroup_order", "num_stages", "ops", "scale",
                           "epilogue"});
  Schedule s;
  s.name = detail::read_name(r, root);
  s.target = r.choice<std::string>(r.need(root, "", "target", "\"gfx950\""), "target", {{"gfx950", "gfx950"}});
  read_types(r, root, s);
  if (const json* v = r.find(root, "layout"))
    s.layout = r.choice<Layout>(*v, "layout", choices_of<Layout>());
  const json& tile = r.object(r.need(root, "", "tile", "{\"m\": .., \"n\": .., \"k\": ..}"), "tile");
  r.only_fields(tile, "tile", {"m", "n", "k"});
  s.tile_m = r.integer(r.need(tile, "tile", "m", "an integer"), "tile.m", 16, 1024);
  s.tile_n = r.integer(r.need(tile, "tile", "n", "an integer"), "tile.n", 16, 1024);
  s.tile_k = r.integer(r.need(tile, "tile", "k", "an integer"), "tile.k", 16, 1024);
  const json& waves = r.need(root, "", "waves", "4 or 8");
  s.waves = r.integer(waves, "waves", 4, 8);
  if (s.waves != 4 && s.waves != 8) r.fail("waves", fmt::format("expected 4 or 8, got {}", s.waves));
  if (const json* grid = r.find(root, "wave_grid")) {
    r.object(*grid, "wave_grid");
    r.only_fields(*grid, "wave_grid", {"m", "n"});
    s.wave_grid_m = r.integer(r.need(*grid, "wave_grid", "m", "an integer"), "wave_grid.m", 1, 8);
    s.wave_grid_n = r.integer(r.need(*grid, "wave_grid", "n", "an integer"), "wave_grid.n", 1, 8);
    if (s.wave_grid_m * s.wave_grid_n != s.waves)
      r.fail("wave_grid", fmt::format("expected m * n == waves ({}), got {} x {}", s.waves, s.wave_grid_m, s.wave_grid_n));
  } else {
    s.wave_grid_m = 2;
    s.wave_grid_n = s.waves / 2;
  }
  s.mfma = r.choice<MfmaKind>(r.need(root, "", "mfma", "an MFMA instruction"), "mfma", choices_of<MfmaKind>());
  if (const json* v = r.find(root, "pingpong_groups")) {
    s.pingpong_groups = r.integer(*v, "pingpong_groups", 1, 2);
  }
  if (const json* order = r.find(root, "workgroup_order")) {
    r.object(*order, "workgroup_order");
    r.only_fields(*order, "workgroup_order", {"xcds", "group_m"});
    if (const json* v = r.find(*order, "xcds")) {
      s.workgroup_order.xcds = r.integer(*v, "workgroup_order.xcds", 1, 8);
      if (s.workgroup_order.xcds != 1 && s.workgroup_order.xcds != 8)
        r.fail("workgroup_order.xcds", fmt::format("expected 1 or 8 (gfx950's XCDs), got {}", s.workgroup_order.xcds));
    }
    if (const json* v = r.find(*order, "group_m")) s.workgroup_order.group_m = r.integer(*v, "workgroup_order.group_m", 1, 64);
  }
  read_scale(r, root, s);
  read_epilogue(r, root, s);
  check_geometry(r, s);

  detail::read_pipeline(r, root, s, detail::IntLimit::range(1, 8), detail::IntLimit::range(1, 8), OpKind::g2s,
                        OpKind::s2r, [&](const json& v, const std::string& path) { return read_op(r, s, v, path); });
  return s;
}

Schedule load_schedule(const std::string& path) { return parse_schedule(detail::read_schedule_text(path), path); }

}  // namespace cdna4
