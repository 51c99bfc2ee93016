// bench_foreign's attention checks (bench/attention_row_error.hpp and the
// tolerances of bench/foreign_attention*.hpp) on synthetic outputs: rounding to
// the output format passes; a wrong row scale, rows left at zero, NaN, or a
// causal gradient zeroed for the last tokens fail, however small those rows are
// next to the tensor's largest value.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "../bench/attention_row_error.hpp"
#include "../bench/foreign_attention.hpp"
#include "../bench/foreign_attention_bwd.hpp"

using namespace foreign;

namespace {

std::vector<double> rounded_to_bf16(const std::vector<double>& x, double factor = 1.0) {
  std::vector<double> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = cdna4::bf16_to_float(cdna4::float_to_bf16(float(factor * x[i])));
  return out;
}

// Three rows of 4: a large one, one 1000 times smaller, one exactly zero.
const std::vector<double> kReference = {1.0, -0.5, 0.25, 0.75, 1e-3, -2e-3, 5e-4, 1e-3, 0, 0, 0, 0};

}  // namespace

TEST_CASE("row error: each row is judged against its own largest value", "[foreign][row_error]") {
  CHECK(row_relative_error(kReference, kReference, 4) == 0.0);
  // bf16 rounding: at most 2^-8 of each element, so of its row's largest.
  CHECK(row_relative_error(rounded_to_bf16(kReference), kReference, 4) <= 1.0 / 256);
  // The small row scaled by 0.8: 0.2, although its error is 4e-4 of the tensor's max.
  std::vector<double> scaled = kReference;
  for (size_t i = 4; i < 8; ++i) scaled[i] *= 0.8;
  CHECK(row_relative_error(scaled, kReference, 4) == Approx(0.2));
  // The small row left at zero: 1.
  std::vector<double> zeroed = kReference;
  for (size_t i = 4; i < 8; ++i) zeroed[i] = 0;
  CHECK(row_relative_error(zeroed, kReference, 4) == Approx(1.0));
}

TEST_CASE("row error: a zero row is judged against the floor, NaN and size mismatches are infinite",
          "[foreign][row_error]") {
  // Residue 1e-7 of the tensor's max in the zero row: 1e-7 / 2^-12.
  std::vector<double> residue = kReference;
  residue[9] = 1e-7;
  CHECK(row_relative_error(residue, kReference, 4) == Approx(1e-7 / kRowErrorFloor));
  // A zero row's value at 2^-12 of the max is a whole floor off.
  residue[9] = kRowErrorFloor;
  CHECK(row_relative_error(residue, kReference, 4) == Approx(1.0));
  std::vector<double> unwritten = kReference;
  unwritten[5] = NAN;
  CHECK(std::isinf(row_relative_error(unwritten, kReference, 4)));
  CHECK(std::isinf(row_relative_error(std::vector<double>(8, 0.0), kReference, 4)));
  CHECK(std::isinf(row_relative_error(kReference, kReference, 5)));
  CHECK(scaled_error({1.0, 2.5}, {1.0, 2.0}, {1.0, 10.0}) == Approx(0.05));
  CHECK(std::isinf(scaled_error({NAN, 2.0}, {1.0, 2.0}, {1.0, 10.0})));
}

TEST_CASE("row error: fp8 and bf16 O at 0.8 x the reference fail, O rounded to bf16 passes", "[foreign][row_error]") {
  for (bool fp8 : {true, false}) {
    const AttentionShape s{2, 2, 2, 512, 128, false};
    const AttentionData d = make_attention_data(s, fp8, 1.0 / std::sqrt(128.0));
    const std::vector<float> lse(d.reference.lse.begin(), d.reference.lse.end());
    auto o_bits = [&](double factor) {
      std::vector<uint16_t> bits(d.reference.o.size());
      for (size_t i = 0; i < bits.size(); ++i) bits[i] = cdna4::float_to_bf16(float(factor * d.reference.o[i]));
      return bits;
    };
    const AttentionError right = attention_error(d, o_bits(1.0), lse), wrong = attention_error(d, o_bits(0.8), lse);
    CHECK(right.o <= 1.0 / 256);
    CHECK(right.lse <= kAttentionLseTolerance);
    CHECK(wrong.o == Approx(0.2).epsilon(0.05));
    CHECK(wrong.o > kAttentionOTolerance[fp8]);
    std::vector<uint16_t> unwritten = o_bits(1.0);
    unwritten[12345] = 0xffff;
    CHECK(std::isinf(attention_error(d, unwritten, lse).o));
  }
}

TEST_CASE("row error: causal dQ, dK, dV zeroed for the last 64 tokens fail, rounded to bf16 pass",
          "[foreign][row_error]") {
  const AttentionShape s{2, 2, 2, 512, 128, true};
  const AttentionBwdData d = make_attention_bwd_data(s);
  for (const std::vector<double>* reference : {&d.reference.dq, &d.reference.dk, &d.reference.dv}) {
    std::vector<double> got = rounded_to_bf16(*reference);
    CHECK(row_relative_error(got, *reference, 128) <= 1.0 / 256);
    for (size_t i = 0; i < got.size(); ++i)
      if (int64_t(i / size_t(s.heads_q * s.dim)) % s.seqlen >= 448) got[i] = 0;
    const double error = row_relative_error(got, *reference, 128);
    CHECK(error == Approx(1.0));
    CHECK(error > kAttentionBwdTolerance[0]);
  }
  // D rounded to fp32 is within its tolerance of the sum of |dO O|.
  std::vector<double> d_rounded(d.reference.d.size());
  for (size_t i = 0; i < d_rounded.size(); ++i) d_rounded[i] = float(d.reference.d[i]);
  CHECK(scaled_error(d_rounded, d.reference.d, attention_bwd_d_scale(d)) <= kAttentionBwdDTolerance);
}
