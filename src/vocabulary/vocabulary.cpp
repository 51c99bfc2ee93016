// The names and facts of include/cdna4/vocabulary.hpp, read from the rows.
#include "vocabulary/rows.hpp"

namespace cdna4 {

using vocabulary::row;

const char* to_string(Operand operand) { return row(operand).name.data(); }
const char* to_string(DataType type) { return row(type).name.data(); }
const char* to_string(Layout layout) { return row(layout).name.data(); }
const char* to_string(MfmaKind kind) { return row(kind).name.data(); }
const char* to_string(OpKind kind) { return row(kind).name.data(); }
const char* to_string(AttentionOpKind kind) { return row(kind).name.data(); }
const char* to_string(KvOperand operand) { return row(operand).name.data(); }
const char* to_string(BiasDim dim) { return row(dim).name.data(); }
const char* to_string(OutType out) { return row(out).name.data(); }
const char* to_string(MfmaPolicy policy) { return row(policy).name.data(); }
const char* to_string(Activation activation) { return row(activation).name; }

int element_bits(DataType type) { return row(type).bits; }
int element_bytes(OutType out) { return element_bits(row(out).type) / 8; }
DataType data_type(OutType out) { return row(out).type; }

bool k_major(Layout layout, Operand operand) {
  return operand == Operand::a ? row(layout).a_k_major : row(layout).b_k_major;
}

MfmaShape mfma_shape(MfmaKind kind) {
  const gfx950::MfmaInfo& info = *row(kind).info;
  return {info.m, info.n, info.k, info.mnemonic.data()};
}

#define CDNA4_VOCABULARY(E)                      \
  template E parse<E>(std::string_view name);    \
  template std::optional<E> try_parse<E>(std::string_view name);
CDNA4_VOCABULARY(Operand)
CDNA4_VOCABULARY(DataType)
CDNA4_VOCABULARY(Layout)
CDNA4_VOCABULARY(MfmaKind)
CDNA4_VOCABULARY(OpKind)
CDNA4_VOCABULARY(AttentionOpKind)
CDNA4_VOCABULARY(KvOperand)
CDNA4_VOCABULARY(BiasDim)
CDNA4_VOCABULARY(OutType)
CDNA4_VOCABULARY(Activation)
CDNA4_VOCABULARY(MfmaPolicy)
#undef CDNA4_VOCABULARY

}  // namespace cdna4
