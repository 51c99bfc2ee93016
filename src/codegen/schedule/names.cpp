#include <cdna4/schedule.hpp>

#include <fmt/format.h>

#include "codegen/schedule/schedule_internal.hpp"
#include "common/activations.hpp"
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
      {"v_mfma_f32_16x16x32_f16", MfmaKind::f32_16x16x32_f16},
      {"v_mfma_f32_32x32x16_f16", MfmaKind::f32_32x32x16_f16},
      {"v_mfma_f32_16x16x128_f8f6f4", MfmaKind::f32_16x16x128_f8f6f4},
      {"v_mfma_f32_32x32x64_f8f6f4", MfmaKind::f32_32x32x64_f8f6f4},
      {"v_mfma_scale_f32_16x16x128_f8f6f4", MfmaKind::scale_f32_16x16x128_f8f6f4},
      {"v_mfma_scale_f32_32x32x64_f8f6f4", MfmaKind::scale_f32_32x32x64_f8f6f4},
  };
  return kinds;
}

namespace {
struct TypeName {
  DataType type;
  const char* name;
  std::optional<gfx950::Element> element;  // as an MFMA operand
};
constexpr TypeName kTypeNames[] = {
    {DataType::bf16, "bf16", gfx950::Element::bf16}, {DataType::f32, "f32", std::nullopt},
    {DataType::f16, "f16", gfx950::Element::f16},    {DataType::fp8, "fp8", gfx950::Element::fp8},
    {DataType::bf8, "bf8", gfx950::Element::bf8},    {DataType::fp6, "fp6", gfx950::Element::fp6},
    {DataType::bf6, "bf6", gfx950::Element::bf6},    {DataType::fp4, "fp4", gfx950::Element::fp4},
};
const TypeName& type_row(DataType type) {
  for (const TypeName& t : kTypeNames)
    if (t.type == type) return t;
  throw Error("unknown data type");
}
}  // namespace

const char* to_string(DataType type) { return type_row(type).name; }

int element_bits(DataType type) {
  const std::optional<gfx950::Element> e = type_row(type).element;
  return e ? gfx950::bits_of(*e) : 32;
}

std::optional<gfx950::Element> detail::mfma_element(DataType type) { return type_row(type).element; }

std::vector<std::pair<std::string, DataType>> detail::operand_types() {
  std::vector<std::pair<std::string, DataType>> out;
  for (const TypeName& t : kTypeNames)
    if (t.element) out.emplace_back(t.name, t.type);
  return out;
}

const gfx950::MfmaInfo& detail::mfma_info(MfmaKind kind) { return *gfx950::find_mfma(mfma_shape(kind).mnemonic); }

// The verifier's simulation asks for the shape per op and step: looked up once per kind.
MfmaShape mfma_shape(MfmaKind kind) {
  static const std::vector<MfmaShape> shapes = [] {
    std::vector<MfmaShape> out(detail::mfma_kinds().size());
    for (const auto& [name, k] : detail::mfma_kinds()) {
      const gfx950::MfmaInfo* row = gfx950::find_mfma(name);
      if (!row) throw Error(fmt::format("{} is not in the MFMA table (common/mfma_table.hpp)", name));
      out.at(size_t(k)) = {row->m, row->n, row->k, row->mnemonic.data()};
    }
    return out;
  }();
  if (size_t(kind) >= shapes.size()) throw Error("unknown MFMA kind");
  return shapes[size_t(kind)];
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

const char* to_string(Layout layout) {
  static constexpr const char* names[] = {"nn", "nt", "tn", "tt"};
  return names[int(layout)];
}

bool k_major(Layout layout, Operand operand) {
  if (operand == Operand::a) return layout == Layout::tn || layout == Layout::tt;
  return layout == Layout::nn || layout == Layout::tn;
}

const char* to_string(Activation value) {
  const activations::Row* row = activations::find(value);
  return row ? row->name : "?";
}

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
