// The attention references (cdna4/attention.hpp): the policy reference within
// a stated tolerance of the float64 one on every kind of shape, strides that
// change nothing, rows that see no key, the problem's validation, and
// properties of the policy reference's arithmetic (docs/attention.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "attention_check.hpp"
#include "cdna4/attention.hpp"
#include "cdna4/reference.hpp"
#include "common/transcendental.hpp"
#include "runtime/attention/arithmetic.hpp"
#include "runtime/attention/policy.hpp"
#include "support/attention_output.hpp"
#include "support/errors.hpp"
#include "support/random_bf16.hpp"

using namespace cdna4;
using namespace cdna4::test;

namespace {

AttentionShape shape_of(int64_t b, int64_t nq, int64_t nk, int64_t h, int64_t hkv, int64_t d, bool causal) {
  AttentionShape s;
  s.batch = b, s.seqlen_q = nq, s.seqlen_k = nk, s.heads = h, s.heads_kv = hkv, s.dim = d, s.causal = causal;
  return s;
}

// O in f32 (the policy reference's fp32 bits, unrounded) and the LSE wanted.
AttentionShape f32_with_lse(AttentionShape s) {
  s.out = OutType::f32;
  s.lse = true;
  return s;
}

// Packed BSHD tensors of N(0, 1) samples rounded to bf16, owned beside the problem that borrows them.
struct Data {
  std::vector<uint8_t> q, k, v;
  AttentionShape shape;
  explicit Data(const AttentionShape& s, uint32_t seed = 1)
      : q(random_bf16(s.batch * s.seqlen_q * s.heads * s.dim, seed)),
        k(random_bf16(s.batch * s.seqlen_k * s.heads_kv * s.dim, seed + 1)),
        v(random_bf16(s.batch * s.seqlen_k * s.heads_kv * s.dim, seed + 2)),
        shape(s) {}
  AttentionProblem problem() const {
    AttentionProblem p;
    p.shape = shape;
    p.q = q, p.k = k, p.v = v;
    return p;
  }
};

// The tolerance: docs/attention.md, "Tolerance against float64" (per O element
// and LSE value, from the keys the row sees, D and the output type), as
// tools/attention_check.hpp computes it for cdna4-attn --check.
using Errors = tools::Float64Errors;
Errors compare(const AttentionProblem& p, const AttentionOutput& got, const AttentionValues& want) {
  return tools::float64_errors(p, got, want);
}

struct Case {
  const char* what;
  AttentionShape shape;
};

}  // namespace

TEST_CASE("the policy reference stays within tolerance of float64 on every kind of shape", "[attention][reference]") {
  const Case cases[] = {
      {"Nq = Nk = 1", shape_of(1, 1, 1, 2, 2, 64, false)},
      {"Nq = 1, MQA, 300 keys", shape_of(1, 1, 300, 4, 1, 128, false)},
      {"Nk = 1 causal: all rows but the last see nothing", shape_of(1, 300, 1, 2, 1, 64, true)},
      {"GQA 8:1, causal Nq < Nk, B = 2", shape_of(2, 63, 65, 8, 1, 128, true)},
      {"causal Nq > Nk: two rows see nothing", shape_of(1, 65, 63, 2, 2, 64, true)},
      {"ragged 127 x 127", shape_of(1, 127, 127, 2, 1, 128, false)},
      {"ragged 300 x 127, B = 2", shape_of(2, 300, 127, 2, 2, 64, false)},
      {"causal 300 x 300", shape_of(1, 300, 300, 1, 1, 128, true)},
  };
  const AttentionBlocks blockings[] = {{128, 64, 16}, {64, 32, 32}, {16, 16, 1}};
  int n = 0;
  for (const Case& c : cases)
    for (const AttentionBlocks& blocks : blockings)
      for (MfmaPolicy policy : {MfmaPolicy::fp32_fma_chain_k_order, MfmaPolicy::cdna3_fused_groups}) {
        AttentionShape shape = c.shape;
        shape.out = n % 2 ? OutType::f32 : OutType::bf16;
        shape.lse = true;
        ++n;
        const Data data(shape, uint32_t(n));
        const AttentionProblem p = data.problem();
        const Errors e = compare(p, reference(p, blocks, policy), reference_f64(p));
        INFO(c.what << ", blocks " << blocks.queries << "/" << blocks.keys << "/" << blocks.sum_lanes << ", "
                    << to_string(policy) << ", O " << to_string(shape.out) << ": max |O - f64| " << e.o
                    << ", max |LSE - f64| " << e.lse);
        CHECK(e.o_outside == 0);
        CHECK(e.lse_outside == 0);
      }
}

TEST_CASE("a row that sees no key has O = +0 and LSE = -infinity in both references", "[attention][reference]") {
  const AttentionShape shape = f32_with_lse(shape_of(2, 70, 5, 2, 1, 64, true));  // rows 0..64 see no key
  const Data data(shape);
  const AttentionProblem p = data.problem();
  const AttentionOutput policy = reference(p, {32, 16, 16});
  const AttentionValues f64 = reference_f64(p);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t i = 0; i < 70; ++i) {
        const int64_t row = (b * 2 + h) * 70 + i;
        const int64_t first = ((b * 70 + i) * 2 + h) * 64;
        const bool blind = i < 65;
        CHECK((lse_value(policy.lse, row) == -INFINITY) == blind);
        CHECK((f64.lse[size_t(row)] == -INFINITY) == blind);
        bool policy_zero = true, f64_zero = true;
        for (int64_t d = 0; d < 64; ++d) {
          policy_zero = policy_zero && std::bit_cast<uint32_t>(o_value(policy.o, OutType::f32, first + d)) == 0;
          f64_zero = f64_zero && f64.o[size_t(first + d)] == 0 && !std::signbit(f64.o[size_t(first + d)]);
        }
        CHECK(policy_zero == blind);
        CHECK(f64_zero == blind);
      }
}

TEST_CASE("BHSD strides give BSHD's results bit for bit, in both references", "[attention][reference]") {
  AttentionShape shape = shape_of(2, 65, 130, 4, 2, 64, true);
  shape.lse = true;
  const Data bshd(shape, 7);
  // The same values stored [B][H][S][D].
  auto to_bhsd = [&](const std::vector<uint8_t>& from, int64_t seqlen, int64_t heads) {
    std::vector<uint8_t> to(from.size());
    const TensorStrides in = TensorStrides::bshd(seqlen, heads, 64), out = TensorStrides::bhsd(seqlen, heads, 64);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t s = 0; s < seqlen; ++s)
        for (int64_t h = 0; h < heads; ++h)
          std::memcpy(&to[size_t(b * out.batch + s * out.seq + h * out.head) * 2],
                      &from[size_t(b * in.batch + s * in.seq + h * in.head) * 2], 128);
    return to;
  };
  const std::vector<uint8_t> q = to_bhsd(bshd.q, 65, 4), k = to_bhsd(bshd.k, 130, 2), v = to_bhsd(bshd.v, 130, 2);
  AttentionProblem strided = bshd.problem();
  strided.q = q, strided.k = k, strided.v = v;
  strided.q_strides = strided.o_strides = TensorStrides::bhsd(65, 4, 64);
  strided.k_strides = strided.v_strides = TensorStrides::bhsd(130, 2, 64);

  const AttentionOutput a = reference(bshd.problem(), {}), b = reference(strided, {});
  const AttentionValues fa = reference_f64(bshd.problem()), fb = reference_f64(strided);
  CHECK(a.lse == b.lse);
  CHECK(fa.lse == fb.lse);
  const TensorStrides sa = TensorStrides::bshd(65, 4, 64), sb = TensorStrides::bhsd(65, 4, 64);
  int64_t differing = 0;
  for (int64_t z = 0; z < 2; ++z)
    for (int64_t i = 0; i < 65; ++i)
      for (int64_t h = 0; h < 4; ++h) {
        const int64_t at_a = z * sa.batch + i * sa.seq + h * sa.head, at_b = z * sb.batch + i * sb.seq + h * sb.head;
        differing += std::memcmp(&a.o[size_t(at_a) * 2], &b.o[size_t(at_b) * 2], 128) != 0;
        differing += std::memcmp(&fa.o[size_t(at_a)], &fb.o[size_t(at_b)], 64 * sizeof(double)) != 0;
      }
  CHECK(differing == 0);
}

TEST_CASE("with one key block the policy reference is the direct formula with the same roundings",
          "[attention][reference]") {
  for (bool causal : {false, true})
    for (MfmaPolicy policy : {MfmaPolicy::fp32_fma_chain_k_order, MfmaPolicy::cdna3_fused_groups}) {
      AttentionShape shape = f32_with_lse(shape_of(1, 40, 96, 1, 1, 128, causal));
      shape.scale = 0.3f;
      const Data data(shape, causal ? 11 : 12);
      const AttentionOutput blocked = reference(data.problem(), {16, 96, 1}, policy);

      // Direct: S = Q K^T and O = P V as whole GEMMs through the policy, the
      // softmax written out from docs/attention.md.
      std::vector<uint8_t> kt(size_t(128 * 96) * 2);
      for (int64_t j = 0; j < 96; ++j)
        for (int64_t d = 0; d < 128; ++d) std::memcpy(&kt[size_t(d * 96 + j) * 2], &data.k[size_t(j * 128 + d) * 2], 2);
      const std::vector<float> s = reference_gemm(policy, DataType::bf16, data.q, DataType::bf16, kt, 40, 96, 128);
      const float c = 0.3f * attention::kLog2e;
      std::vector<uint32_t> p_bits(size_t(40 * 96));
      std::vector<float> l(40), mc(40);
      for (int64_t i = 0; i < 40; ++i) {
        const int64_t seen = causal ? i + 1 + 96 - 40 : 96;
        float m = -INFINITY;
        for (int64_t j = 0; j < seen; ++j) m = std::max(m, s[size_t(i * 96 + j)]);
        mc[size_t(i)] = m * c;
        float sum = 0;
        for (int64_t j = 0; j < 96; ++j) {
          const float p = j < seen ? gfx950::exp2_f32(std::fma(s[size_t(i * 96 + j)], c, -mc[size_t(i)])) : 0.0f;
          sum = sum + p;
          p_bits[size_t(i * 96 + j)] = float_to_bf16(p);
        }
        l[size_t(i)] = sum;
      }
      const std::vector<float> o =
          reference_gemm(policy, DataType::bf16, pack_elements(DataType::bf16, p_bits), DataType::bf16, data.v, 40, 128, 96);
      int64_t differing = 0;
      for (int64_t i = 0; i < 40; ++i) {
        for (int64_t d = 0; d < 128; ++d)
          differing += std::bit_cast<uint32_t>(o[size_t(i * 128 + d)] * gfx950::rcp_f32(l[size_t(i)])) !=
                       std::bit_cast<uint32_t>(o_value(blocked.o, OutType::f32, i * 128 + d));
        const float lse = (mc[size_t(i)] + gfx950::log2_f32(l[size_t(i)])) * attention::kLn2;
        differing += std::bit_cast<uint32_t>(lse) != std::bit_cast<uint32_t>(lse_value(blocked.lse, i));
      }
      INFO((causal ? "causal, " : "") << to_string(policy));
      CHECK(differing == 0);
    }
}

TEST_CASE("every convention of the policy reference shows in its bits, though not against float64",
          "[attention][reference]") {
  const AttentionShape shape = f32_with_lse(shape_of(1, 64, 200, 2, 1, 128, false));
  const Data data(shape, 21);
  const AttentionProblem p = data.problem();
  const AttentionBlocks blocks{64, 64, 16};
  const AttentionOutput stated = reference(p, blocks);
  const AttentionValues f64 = reference_f64(p);
  REQUIRE(stated.o == attention::blocked_reference(p, blocks, MfmaPolicy::fp32_fma_chain_k_order,
                                                   attention::kArithmetic).o);

  struct Mutant {
    const char* what;
    void (*mutate)(attention::Arithmetic&);
  };
  const Mutant mutants[] = {
      {"P enters PV in fp32 (no bf16 rounding)", [](attention::Arithmetic& a) { a.p_operand = [](float x) { return x; }; }},
      {"p = exp2(s * c - mc) in two roundings",
       [](attention::Arithmetic& a) {
         a.probability = [](float s, float c, float mc) { return gfx950::exp2_f32(s * c - mc); };
       }},
      {"O / l by division", [](attention::Arithmetic& a) {
         a.normalize = [](float o, float l) { return l == 0 ? 0.0f : o / l; };
       }},
      {"LSE in the natural log directly", [](attention::Arithmetic& a) {
         a.lse = [](float mc, float l) { return mc * attention::kLn2 + float(std::log(double(l))); };
       }},
  };
  for (const Mutant& m : mutants) {
    attention::Arithmetic arithmetic = attention::kArithmetic;
    m.mutate(arithmetic);
    const AttentionOutput mutated = attention::blocked_reference(p, blocks, MfmaPolicy::fp32_fma_chain_k_order, arithmetic);
    INFO(m.what);
    CHECK((differing_elements(mutated.o, stated.o, 4) > 0 || differing_elements(mutated.lse, stated.lse, 4) > 0));
    const Errors e = compare(p, mutated, f64);
    CHECK(e.o_outside == 0);
    CHECK(e.lse_outside == 0);
  }
}

TEST_CASE("the blocking changes the policy reference's bits only where docs/attention.md says",
          "[attention][reference]") {
  const AttentionShape shape = f32_with_lse(shape_of(1, 200, 200, 2, 2, 64, false));
  const Data data(shape, 31);
  const AttentionProblem p = data.problem();
  const AttentionOutput base = reference(p, {128, 64, 16});
  // Without the causal mask, rows are independent of the query block.
  CHECK(differing_elements(reference(p, {16, 64, 16}).o, base.o, 4) == 0);
  // The KV step sets when O and l are rescaled; the lanes, the order of the row sum.
  CHECK(differing_elements(reference(p, {128, 32, 16}).o, base.o, 4) > 0);
  CHECK(differing_elements(reference(p, {128, 64, 1}).lse, base.lse, 4) > 0);

  // Causal: a query block visits the KV blocks up to the one holding its last row's last key.
  AttentionShape causal = shape_of(1, 100, 300, 1, 1, 64, true);
  const AttentionBlocks b32{32, 32, 16};
  CHECK(attention::kv_blocks(causal, b32, 0) == 8);    // row 31 sees keys <= 231
  CHECK(attention::kv_blocks(causal, b32, 32) == 9);   // row 63: <= 263
  CHECK(attention::kv_blocks(causal, b32, 96) == 10);  // row 99: all 300
  causal.seqlen_q = 300, causal.seqlen_k = 100;
  CHECK(attention::kv_blocks(causal, b32, 0) == 0);    // rows 0..31 see nothing: no block
  CHECK(attention::kv_blocks(causal, b32, 192) == 1);  // row 223 sees keys <= 23
  CHECK(attention::kv_blocks(causal, b32, 256) == 3);  // row 287: <= 87
  causal.causal = false;
  CHECK(attention::kv_blocks(causal, b32, 0) == 4);
}

TEST_CASE("an attention problem is refused in words when it is wrong", "[attention][reference]") {
  const Data data(shape_of(2, 10, 12, 4, 2, 64, false));
  auto refusal = [&](auto change) {
    AttentionProblem p = data.problem();
    change(p);
    return error_of([&] { validate(p); });
  };
  CHECK(refusal([](AttentionProblem&) {}) == "no error");
  CHECK_THAT(refusal([](AttentionProblem& p) { p.shape.seqlen_q = 0; }),
             Catch::Contains("B, Nq, Nk, H and Hkv must be at least 1") && Catch::Contains("Nq 0"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.shape.heads_kv = 3; }),
             Catch::Contains("H (4) must be a multiple of Hkv (3)"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.shape.dim = 96; }), Catch::Contains("D must be 64 or 128, got 96"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.shape.scale = -1.0f; }),
             Catch::Contains("softmax scale must be finite and positive"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.shape.scale = NAN; }),
             Catch::Contains("softmax scale must be finite and positive"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.shape.out = OutType::f16; }),
             Catch::Contains("O's type must be bf16 or f32, got f16"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.k = HostBytes(p.k.data(), p.k.size() - 2); }),
             Catch::Contains("K holds 6142 bytes; packed [2, 12, 2, 64] bf16 is 6144 bytes"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.shape.seqlen_k = 13; }),
             Catch::Contains("K holds 6144 bytes; packed [2, 13, 2, 64] bf16 is 6656 bytes"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.v_strides = TensorStrides{1536, 128, 65}; }),
             Catch::Contains("V holds 6144 bytes; [2, 12, 2, 64] bf16 at strides (batch 1536, seq 128, head 65) needs 6146"));
  CHECK(refusal([](AttentionProblem& p) { p.v_strides = TensorStrides{0, 128, 64}; }) == "no error");  // inputs may repeat
  CHECK_THAT(refusal([](AttentionProblem& p) { p.q_strides = TensorStrides{-1, 256, 64}; }),
             Catch::Contains("Q's strides must not be negative"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.q_strides = TensorStrides{int64_t(1) << 62, 256, 64}; }),
             Catch::Contains("Q's strides (batch 4611686018427387904, seq 256, head 64) overflow 64 bits"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.shape.batch = int64_t(1) << 60; }),
             Catch::Contains("overflow 64 bits"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.o_strides = TensorStrides{2560, 256, 32}; }),
             Catch::Contains("O's strides (batch 2560, seq 256, head 32) make its elements overlap"));
  CHECK_THAT(refusal([](AttentionProblem& p) { p.o_strides = TensorStrides{0, 256, 64}; }),
             Catch::Contains("make its elements overlap"));
  CHECK(refusal([](AttentionProblem& p) { p.o_strides = TensorStrides::bhsd(10, 4, 64); }) == "no error");
  CHECK_THAT(refusal([](AttentionProblem& p) { p.o_strides = TensorStrides{int64_t(1) << 62, 256, 64}; }),
             Catch::Contains("O's strides (batch 4611686018427387904, seq 256, head 64) overflow 64 bits"));

  // Both references validate first; the policy reference checks its blocks too.
  AttentionProblem bad = data.problem();
  bad.shape.dim = 32;
  CHECK_THAT(error_of([&] { reference_f64(bad); }), Catch::Contains("D must be 64 or 128"));
  CHECK_THAT(error_of([&] { reference(bad, {}); }), Catch::Contains("D must be 64 or 128"));
  CHECK_THAT(error_of([&] { reference(data.problem(), {0, 64, 16}); }), Catch::Contains("each must be 1 to 4096"));
  CHECK_THAT(error_of([&] { reference(data.problem(), {64, 48, 32}); }),
             Catch::Contains("sum_lanes must be a power of two dividing the 48 keys of a block, got 32"));
  CHECK_THAT(error_of([&] { reference(data.problem(), {64, 48, 3}); }), Catch::Contains("power of two"));
}
