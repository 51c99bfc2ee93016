// The shared vocabulary (include/cdna4/vocabulary.hpp): every name reads back
// as its value, bad names are refused with the names there are, and the facts
// on the rows are the ones the schedule format documents.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "cdna4/vocabulary.hpp"
#include "vocabulary/rows.hpp"

using namespace cdna4;

namespace {

template <class E>
void names_round_trip() {
  std::set<std::string> seen;
  for (const auto& row : vocabulary::Vocabulary<E>::rows) {
    const std::string name = to_string(row.value);
    INFO(name);
    CHECK(name == row.name);
    CHECK(seen.insert(name).second);
    CHECK(parse<E>(name) == row.value);
    CHECK(try_parse<E>(name) == row.value);
  }
  CHECK_FALSE(try_parse<E>("no such name"));
  CHECK_FALSE(try_parse<E>(""));
}

}  // namespace

TEST_CASE("vocabulary: every value's name parses back to it, once", "[vocabulary]") {
  names_round_trip<Operand>();
  names_round_trip<DataType>();
  names_round_trip<Layout>();
  names_round_trip<MfmaKind>();
  names_round_trip<OpKind>();
  names_round_trip<BiasDim>();
  names_round_trip<OutType>();
  names_round_trip<MfmaPolicy>();
  CHECK(std::string(to_string(MfmaPolicy::cdna3_fused_groups)) == "cdna3-fused-groups");  // scripts rely on it
  CHECK(std::string(to_string(MfmaPolicy::fp32_fma_chain_k_order)) == "fp32-fma-chain-k-order");
}

TEST_CASE("vocabulary: a bad name is refused with the names there are", "[vocabulary]") {
  CHECK_THROWS_WITH(parse<Layout>("tx"), "unknown layout \"tx\": expected nn, nt, tn or tt");
  CHECK_THROWS_WITH(parse<OutType>("f64"), "unknown output type \"f64\": expected f32, bf16 or f16");
  CHECK_THROWS_WITH(parse<Operand>("c"), "unknown operand \"c\": expected a or b");
  CHECK_THROWS_WITH(parse<DataType>("BF16"),
                    "unknown element type \"BF16\": expected bf16, f32, f16, fp8, bf8, fp6, bf6 or fp4");
  CHECK_THROWS_AS(parse<MfmaKind>("v_mfma_f32_16x16x16_bf16"), Error);  // in gfx950's table, not a schedule's kind
}

TEST_CASE("vocabulary: the rows' facts", "[vocabulary]") {
  CHECK(element_bits(DataType::f32) == 32);
  CHECK(element_bits(DataType::bf16) == 16);
  CHECK(element_bits(DataType::f16) == 16);
  CHECK(element_bits(DataType::fp8) == 8);
  CHECK(element_bits(DataType::bf8) == 8);
  CHECK(element_bits(DataType::fp6) == 6);
  CHECK(element_bits(DataType::bf6) == 6);
  CHECK(element_bits(DataType::fp4) == 4);
  CHECK(element_bytes(OutType::f32) == 4);
  CHECK(element_bytes(OutType::bf16) == 2);
  CHECK(element_bytes(OutType::f16) == 2);
  CHECK(data_type(OutType::bf16) == DataType::bf16);
  CHECK(data_type(OutType::f16) == DataType::f16);
  // A "t" and B "n" are stored K-major.
  CHECK_FALSE(k_major(Layout::nn, Operand::a));
  CHECK(k_major(Layout::nn, Operand::b));
  CHECK_FALSE(k_major(Layout::nt, Operand::a));
  CHECK_FALSE(k_major(Layout::nt, Operand::b));
  CHECK(k_major(Layout::tn, Operand::a));
  CHECK(k_major(Layout::tn, Operand::b));
  CHECK(k_major(Layout::tt, Operand::a));
  CHECK_FALSE(k_major(Layout::tt, Operand::b));
  const MfmaShape shape = mfma_shape(MfmaKind::scale_f32_32x32x64_f8f6f4);
  CHECK(shape.m == 32);
  CHECK(shape.n == 32);
  CHECK(shape.k == 64);
  CHECK(std::string(shape.mnemonic) == "v_mfma_scale_f32_32x32x64_f8f6f4");
  CHECK(std::string(to_string(MfmaKind::f32_16x16x32_f16)) == "v_mfma_f32_16x16x32_f16");
  CHECK(vocabulary::mfma_element(DataType::fp6) == gfx950::Element::fp6);
  CHECK_FALSE(vocabulary::mfma_element(DataType::f32));
}
