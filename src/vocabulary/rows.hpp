#pragma once
// One constexpr row per value of each enum of include/cdna4/vocabulary.hpp: its
// name and the facts that come with it (bits, the gfx950 table row). Whatever
// maps a name to a value, or a value to a fact, reads these rows.
//
// Vocabulary<E> is the customisation point the generic functions below (and
// parse<E>) work over: `what` (how an error names E) and `rows` (one row per
// value, in the enum's order, each with `value` and `name`). Another enum joins
// by specialising it and instantiating parse / try_parse in its own .cpp.
#include <cdna4/attention.hpp>
#include <cdna4/error.hpp>
#include <cdna4/vocabulary.hpp>

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/activations.hpp"
#include "common/mfma_table.hpp"

namespace cdna4::vocabulary {

template <class E>
struct Vocabulary;

struct DataTypeRow {
  DataType value;
  std::string_view name;
  int bits;
  std::optional<gfx950::Element> element;  // as an MFMA operand; f32 is none
};
// Named as gfx950's element table names them.
constexpr DataTypeRow operand_type_row(DataType value, gfx950::Element e) {
  return {value, gfx950::element_info(e).name, gfx950::bits_of(e), e};
}
inline constexpr DataTypeRow kDataTypes[] = {
    operand_type_row(DataType::bf16, gfx950::Element::bf16),
    {DataType::f32, "f32", 32, std::nullopt},
    operand_type_row(DataType::f16, gfx950::Element::f16),
    operand_type_row(DataType::fp8, gfx950::Element::fp8),
    operand_type_row(DataType::bf8, gfx950::Element::bf8),
    operand_type_row(DataType::fp6, gfx950::Element::fp6),
    operand_type_row(DataType::bf6, gfx950::Element::bf6),
    operand_type_row(DataType::fp4, gfx950::Element::fp4),
};

struct LayoutRow {
  Layout value;
  std::string_view name;
  bool a_k_major, b_k_major;  // A stored K x M ("t"), B stored K x N ("n")
};
inline constexpr LayoutRow kLayouts[] = {
    {Layout::nn, "nn", false, true},
    {Layout::nt, "nt", false, false},
    {Layout::tn, "tn", true, true},
    {Layout::tt, "tt", true, false},
};

struct MfmaKindRow {
  MfmaKind value;
  std::string_view name;  // the mnemonic
  const gfx950::MfmaInfo* info;
};
// A mnemonic missing from gfx950's MFMA table does not compile.
constexpr MfmaKindRow mfma_row(MfmaKind value, std::string_view mnemonic) {
  const gfx950::MfmaInfo& info = *gfx950::find_mfma(mnemonic);
  return {value, info.mnemonic, &info};
}
inline constexpr MfmaKindRow kMfmaKinds[] = {
    mfma_row(MfmaKind::f32_16x16x32_bf16, "v_mfma_f32_16x16x32_bf16"),
    mfma_row(MfmaKind::f32_32x32x16_bf16, "v_mfma_f32_32x32x16_bf16"),
    mfma_row(MfmaKind::f32_16x16x32_f16, "v_mfma_f32_16x16x32_f16"),
    mfma_row(MfmaKind::f32_32x32x16_f16, "v_mfma_f32_32x32x16_f16"),
    mfma_row(MfmaKind::f32_16x16x128_f8f6f4, "v_mfma_f32_16x16x128_f8f6f4"),
    mfma_row(MfmaKind::f32_32x32x64_f8f6f4, "v_mfma_f32_32x32x64_f8f6f4"),
    mfma_row(MfmaKind::scale_f32_16x16x128_f8f6f4, "v_mfma_scale_f32_16x16x128_f8f6f4"),
    mfma_row(MfmaKind::scale_f32_32x32x64_f8f6f4, "v_mfma_scale_f32_32x32x64_f8f6f4"),
};

template <class E>
struct NameRow {
  E value;
  std::string_view name;
};
inline constexpr NameRow<Operand> kOperands[] = {{Operand::a, "a"}, {Operand::b, "b"}};
inline constexpr NameRow<OpKind> kOpKinds[] = {
    {OpKind::g2s, "g2s"},         {OpKind::s2r, "s2r"},         {OpKind::mfma, "mfma"},
    {OpKind::barrier, "barrier"}, {OpKind::setprio, "setprio"}, {OpKind::wait, "wait"},
};
// Attention schedule ops (include/cdna4/attention.hpp) and the K/V operands.
inline constexpr NameRow<AttentionOpKind> kAttentionOpKinds[] = {
    {AttentionOpKind::g2s, "g2s"},         {AttentionOpKind::s2r, "s2r"},
    {AttentionOpKind::dot_qk, "dot_qk"},   {AttentionOpKind::mask, "mask"},
    {AttentionOpKind::row_max, "row_max"}, {AttentionOpKind::exp, "exp"},
    {AttentionOpKind::row_sum, "row_sum"}, {AttentionOpKind::rescale_o, "rescale_o"},
    {AttentionOpKind::convert_p, "convert_p"}, {AttentionOpKind::dot_pv, "dot_pv"},
    {AttentionOpKind::barrier, "barrier"}, {AttentionOpKind::setprio, "setprio"},
    {AttentionOpKind::wait, "wait"},
};
inline constexpr NameRow<KvOperand> kKvOperands[] = {{KvOperand::k, "k"}, {KvOperand::v, "v"}};
inline constexpr NameRow<BiasDim> kBiasDims[] = {{BiasDim::none, "none"}, {BiasDim::m, "m"}, {BiasDim::n, "n"}};

struct OutTypeRow {
  OutType value;
  std::string_view name;
  DataType type;           // its bits: element_bits
  std::string_view numpy;  // NumPy's name, as the Python module's out_dtype takes it
};
inline constexpr OutTypeRow kOutTypes[] = {
    {OutType::f32, "f32", DataType::f32, "float32"},
    {OutType::bf16, "bf16", DataType::bf16, "bfloat16"},
    {OutType::f16, "f16", DataType::f16, "float16"},
};

inline constexpr NameRow<MfmaPolicy> kMfmaPolicies[] = {
    {MfmaPolicy::fp32_fma_chain_k_order, "fp32-fma-chain-k-order"},
    {MfmaPolicy::cdna3_fused_groups, "cdna3-fused-groups"},
};

template <> struct Vocabulary<DataType> {
  static constexpr std::string_view what = "element type";
  static constexpr std::span<const DataTypeRow> rows{kDataTypes};
};
template <> struct Vocabulary<Layout> {
  static constexpr std::string_view what = "layout";
  static constexpr std::span<const LayoutRow> rows{kLayouts};
};
template <> struct Vocabulary<MfmaKind> {
  static constexpr std::string_view what = "MFMA kind";
  static constexpr std::span<const MfmaKindRow> rows{kMfmaKinds};
};
template <> struct Vocabulary<Operand> {
  static constexpr std::string_view what = "operand";
  static constexpr std::span<const NameRow<Operand>> rows{kOperands};
};
template <> struct Vocabulary<OpKind> {
  static constexpr std::string_view what = "op kind";
  static constexpr std::span<const NameRow<OpKind>> rows{kOpKinds};
};
template <> struct Vocabulary<AttentionOpKind> {
  static constexpr std::string_view what = "attention op kind";
  static constexpr std::span<const NameRow<AttentionOpKind>> rows{kAttentionOpKinds};
};
template <> struct Vocabulary<KvOperand> {
  static constexpr std::string_view what = "K/V operand";
  static constexpr std::span<const NameRow<KvOperand>> rows{kKvOperands};
};
template <> struct Vocabulary<BiasDim> {
  static constexpr std::string_view what = "bias dimension";
  static constexpr std::span<const NameRow<BiasDim>> rows{kBiasDims};
};
template <> struct Vocabulary<OutType> {
  static constexpr std::string_view what = "output type";
  static constexpr std::span<const OutTypeRow> rows{kOutTypes};
};

template <> struct Vocabulary<MfmaPolicy> {
  static constexpr std::string_view what = "MFMA policy";
  static constexpr std::span<const NameRow<MfmaPolicy>> rows{kMfmaPolicies};
};

// The fused epilogue's activations: their rows carry their steps (common/activations.hpp).
template <> struct Vocabulary<Activation> {
  static constexpr std::string_view what = "activation";
  static constexpr std::span<const activations::Row> rows{activations::kRows};
};

template <class E>
constexpr bool in_enum_order() {
  for (size_t i = 0; i < Vocabulary<E>::rows.size(); ++i)
    if (size_t(Vocabulary<E>::rows[i].value) != i) return false;
  return true;
}

template <class E>
constexpr const auto& row(E value) {
  static_assert(in_enum_order<E>(), "a vocabulary's rows must follow its enum's order");
  if (size_t(value) >= Vocabulary<E>::rows.size())
    throw Error("unknown " + std::string(Vocabulary<E>::what) + " " + std::to_string(int(value)));
  return Vocabulary<E>::rows[size_t(value)];
}

template <class E>
constexpr const auto* find_row(std::string_view name) {
  for (const auto& r : Vocabulary<E>::rows)
    if (r.name == name) return &r;
  return static_cast<decltype(&Vocabulary<E>::rows[0])>(nullptr);
}

inline constexpr auto every_row = [](const auto&) { return true; };

// The names of the rows `keep` accepts, as a sentence: "nn, nt, tn or tt".
template <class E, class Keep = decltype(every_row)>
std::string names(Keep keep = every_row) {
  std::string last, text;
  for (const auto& r : Vocabulary<E>::rows) {
    if (!keep(r)) continue;
    if (!last.empty()) text += (text.empty() ? "" : ", ") + last;
    last = r.name;
  }
  return text.empty() ? last : text + " or " + last;
}

inline const gfx950::MfmaInfo& mfma_info(MfmaKind kind) { return *row(kind).info; }
constexpr std::optional<gfx950::Element> mfma_element(DataType type) { return row(type).element; }

}  // namespace cdna4::vocabulary

namespace cdna4 {

template <class E>
std::optional<E> try_parse(std::string_view name) {
  if (const auto* r = vocabulary::find_row<E>(name)) return r->value;
  return std::nullopt;
}

template <class E>
E parse(std::string_view name) {
  if (const auto* r = vocabulary::find_row<E>(name)) return r->value;
  throw Error("unknown " + std::string(vocabulary::Vocabulary<E>::what) + " \"" + std::string(name) +
              "\": expected " + vocabulary::names<E>());
}

}  // namespace cdna4
