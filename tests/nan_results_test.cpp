// NaN results bit for bit, by the rule docs/emulator.md ("NaN results") states
// from the CDNA4 ISA guide: an invalid operation writes the default NaN
// 0xffc00000; a VALU op with NaN sources writes the first of them (S0, S1, S2)
// quieted; every NaN an MFMA writes is the default NaN. Expected values are
// computed here from that rule, and the CPU reference must give the same bits.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "emulator_lane_kernel.hpp"
#include "emulator_one_mfma.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

constexpr uint32_t kGuideDefaultNaN = 0xffc00000;  // V_DIV_FIXUP_F32: 0/0, inf/inf
constexpr uint32_t kInf = 0x7f800000, kMinusInf = 0xff800000;

bool is_nan(uint32_t x) { return (x & 0x7fffffff) > kInf; }

// The rule for a VALU result whose IEEE value is NaN.
uint32_t valu_nan(std::initializer_list<uint32_t> sources) {
  for (uint32_t s : sources)
    if (is_nan(s)) return s | 0x00400000;
  return kGuideDefaultNaN;
}

// The VALU result from the exact value (double holds every sum and product of these sources exactly).
uint32_t valu(double exact, std::initializer_list<uint32_t> sources) {
  return std::isnan(exact) ? valu_nan(sources) : bits(float(exact));
}

// Sources mixing zeros, infinities and NaNs: quiet and signalling, both signs, with payloads.
constexpr uint32_t kValues[] = {0x00000000, 0x80000000, 0x3f800000, 0xc0200000 /* -2.5 */, kInf, kMinusInf,
                                0x7fc00000, 0xffc00000, 0x7f800123, 0xffa00001, 0x7fc0abcd};
constexpr uint32_t kCount = std::size(kValues);

// Lanes 0..4 hold the cases by name; the others walk the table.
uint32_t source(uint32_t lane, int which) {
  const uint32_t named[5][3] = {{kInf, 0, 0x3f800000},            // inf * 0
                                {0x80000000, kMinusInf, 0x3f800000},  // -0 * -inf
                                {kInf, kMinusInf, 0},              // inf + -inf
                                {kInf, 0, 0x7fa5a5a5},             // inf * 0 + a signalling NaN
                                {0x7f812345, 0xffc00001, 0x7fc00002}};  // three NaNs: S0 wins
  if (lane < 5) return named[lane][which];
  const uint32_t step[3] = {1, 3, 5};
  return kValues[(lane * step[which] + uint32_t(which)) % kCount];
}

}  // namespace

TEST_CASE("VALU NaN results: inf * 0, inf - inf, NaN sources with payloads", "[emulator][valu][nan]") {
  const auto out = run_lanes(
      "  v_mul_f32 v20, v10, v11\n  v_add_f32 v21, v10, v11\n  v_sub_f32 v22, v10, v10\n"
      "  v_fma_f32 v23, v10, v11, v12\n  v_pk_mul_f32 v[24:25], v[10:11], v[12:13]\n"
      "  v_mov_b32 v26, v12\n  v_fmac_f32 v26, v10, v11\n",
      {[](uint32_t l) { return source(l, 0); }, [](uint32_t l) { return source(l, 1); },
       [](uint32_t l) { return source(l, 2); }, [](uint32_t l) { return source(63 - l, 0); }},
      {20, 21, 22, 23, 24, 25, 26});
  int default_nans = 0, propagated = 0;
  for (uint32_t l = 0; l < 64; ++l) {
    const uint32_t a = source(l, 0), b = source(l, 1), c = source(l, 2), d = source(63 - l, 0);
    const double x = f32(a), y = f32(b), z = f32(c), w = f32(d);
    INFO("lane " << l << std::hex << " a 0x" << a << " b 0x" << b << " c 0x" << c);
    CHECK(out[0][l] == valu(x * y, {a, b}));
    CHECK(out[1][l] == valu(x + y, {a, b}));
    CHECK(out[2][l] == valu(x - x, {a, a}));
    CHECK(out[3][l] == valu(x * y + z, {a, b, c}));
    CHECK(out[4][l] == valu(x * z, {a, c}));  // v_pk_mul_f32: low halves v10 * v12
    CHECK(out[5][l] == valu(y * w, {b, d}));  //               high halves v11 * v13
    CHECK(out[6][l] == valu(x * y + z, {a, b, c}));  // v_fmac: S0 * S1 + D
    default_nans += out[0][l] == kGuideDefaultNaN;
    propagated += is_nan(out[3][l]) && out[3][l] != kGuideDefaultNaN;
  }
  CHECK(out[0][0] == kGuideDefaultNaN);  // inf * 0
  CHECK(out[0][1] == kGuideDefaultNaN);  // -0 * -inf: the sign of the operands does not reach the NaN
  CHECK(out[1][2] == kGuideDefaultNaN);  // inf - inf
  CHECK(out[3][3] == 0x7fe5a5a5);        // the NaN source wins over the invalid product, quieted
  CHECK(out[3][4] == 0x7fc12345);        // S0's payload, quieted
  CHECK(default_nans > 2);
  CHECK(propagated > 2);
}

namespace {

// One v_mfma_f32_16x16x32_bf16: lane l holds A[l % 16][8*(l/16) + e] and B[8*(l/16) + e][l % 16]
// as bf16 e of its four registers; D[i][j] sits in register r of lane l with i = 4*(l/16) + r.
struct Mfma16 {
  std::vector<uint16_t> a = std::vector<uint16_t>(16 * 32), b = std::vector<uint16_t>(32 * 16);
  std::vector<float> c = std::vector<float>(16 * 16);

  std::vector<uint32_t> run(MfmaPolicy policy) const {
    std::vector<uint32_t> ra(4 * 64, 0), rb(4 * 64, 0), rc(4 * 64);
    for (int l = 0; l < 64; ++l) {
      for (int e = 0; e < 8; ++e) {
        const int k = 8 * (l / 16) + e;
        ra[(e / 2) * 64 + l] |= uint32_t(a[(l % 16) * 32 + k]) << (16 * (e % 2));
        rb[(e / 2) * 64 + l] |= uint32_t(b[k * 16 + l % 16]) << (16 * (e % 2));
      }
      for (int r = 0; r < 4; ++r) rc[r * 64 + l] = bits(c[(4 * (l / 16) + r) * 16 + l % 16]);
    }
    emu::EmulatorOptions options = instant();
    options.mfma_policy = policy;
    const auto d = run_one_mfma({"v_mfma_f32_16x16x32_bf16", 4, 4, 4}, ra, rb, rc, {}, options);
    std::vector<uint32_t> out(16 * 16);
    for (int l = 0; l < 64; ++l)
      for (int r = 0; r < 4; ++r) out[(4 * (l / 16) + r) * 16 + l % 16] = d[r * 64 + l];
    return out;
  }

  // The exact value of D[i][j] (small integers: exact in double and in fp32 under both policies).
  double exact(int i, int j) const {
    double sum = c[i * 16 + j];
    for (int k = 0; k < 32; ++k) sum += double(bf16_to_float(a[i * 32 + k])) * bf16_to_float(b[k * 16 + j]);
    return sum;
  }
};

}  // namespace

TEST_CASE("MFMA NaN results are the default NaN under both policies: inf * 0, inf - inf, NaN payloads",
          "[emulator][mfma][nan]") {
  Mfma16 m;
  for (int i = 0; i < 16 * 32; ++i) m.a[i] = float_to_bf16(float(i % 5) - 2.0f);
  for (int i = 0; i < 32 * 16; ++i) m.b[i] = float_to_bf16(float(i % 3) - 1.0f);
  for (int i = 0; i < 16 * 16; ++i) m.c[i] = float(i % 7);
  m.a[0 * 32 + 3] = 0x7f80;  // row 0: inf at k 3 ...
  for (int j = 0; j < 16; ++j) m.b[3 * 16 + j] = j < 8 ? 0 : 0x3f80;  // ... times 0 (j < 8) or 1
  m.a[1 * 32 + 5] = 0x7f80;  // row 1: inf * 1 at k 5 and -inf * 1 at k 6: inf - inf
  m.a[1 * 32 + 6] = 0xff80;
  for (int j = 0; j < 16; ++j) m.b[5 * 16 + j] = m.b[6 * 16 + j] = 0x3f80;
  m.a[2 * 32 + 9] = 0x7fa5;  // row 2: a signalling bf16 NaN with a payload
  m.c[3 * 16 + 4] = f32(0x7f812345);  // C[3][4]: a signalling fp32 NaN with a payload
  for (MfmaPolicy policy : {MfmaPolicy::fp32_fma_chain_k_order, MfmaPolicy::cdna3_fused_groups}) {
    const auto d = m.run(policy);
    int nans = 0;
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        const double x = m.exact(i, j);
        INFO(to_string(policy) << " D[" << i << "][" << j << "]");
        REQUIRE(d[i * 16 + j] == (std::isnan(x) ? kGuideDefaultNaN : bits(float(x))));
        nans += std::isnan(x);
      }
    CHECK(d[0 * 16 + 0] == kGuideDefaultNaN);   // inf * 0
    CHECK(d[0 * 16 + 9] == kInf);               // inf * 1
    CHECK(d[1 * 16 + 0] == kGuideDefaultNaN);   // inf - inf
    CHECK(d[2 * 16 + 15] == kGuideDefaultNaN);  // A's NaN: no payload, no sign taken over
    CHECK(d[3 * 16 + 4] == kGuideDefaultNaN);   // C's NaN likewise
    CHECK(nans == 8 + 16 + 16 + 1);
  }
}

TEST_CASE("GEMM with inf in A and 0 in B: the emulator and the CPU reference give the same NaN bits",
          "[gemm][bitexact][nan][reference]") {
  const int64_t m = 256, n = 256, k = 128;
  for (const char* file : {"tilelang_ns2_128x128x64_w4.json", "baseline_256x256x64_w8.json"}) {
    const Schedule s = schedule_test::load(file);
    std::vector<uint16_t> a = test::integer_matrix(size_t(m * k), 3), b = test::integer_matrix(size_t(k * n), 4);
    a[5 * k + 7] = 0x7f80;  // A[5][7] = inf
    for (int64_t j = 0; j < n; ++j) b[7 * n + j] = j % 3 ? 0 : 0x3f80;  // B[7][j] = 0 unless j % 3 == 0
    a[9 * k + 0] = 0xff80;  // A[9][0] = -inf, A[9][1] = inf: inf - inf wherever B[0][j] = B[1][j] = 1
    a[9 * k + 1] = 0x7f80;
    for (int64_t j = 0; j < n; ++j) b[0 * n + j] = b[1 * n + j] = 0x3f80;
    a[20 * k + 30] = 0x7fc1;  // a quiet bf16 NaN with a payload
    for (MfmaPolicy policy : {MfmaPolicy::fp32_fma_chain_k_order, MfmaPolicy::cdna3_fused_groups}) {
      EmulatorConfig config;
      config.mfma_policy = policy;
      Device device = Device::emulator(config);
      const GemmProblem problem = test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32);
      const GemmRun run = run_gemm(device, s, problem);
      const std::vector<uint8_t> expected = reference(s, problem, policy);
      INFO(file << " " << to_string(policy));
      CHECK(run.launch.races.empty());
      CHECK(differing_elements(run.c, expected, 4) == 0);
      const auto at = [&](int64_t i, int64_t j) {
        uint32_t x;
        std::memcpy(&x, &run.c[size_t(4 * (i * n + j))], 4);
        return x;
      };
      CHECK(at(5, 1) == kGuideDefaultNaN);   // inf * 0
      CHECK(at(5, 0) == kInf);               // inf * 1 and finite terms
      CHECK(at(9, 2) == kGuideDefaultNaN);   // inf - inf
      CHECK(at(20, 3) == kGuideDefaultNaN);  // the payload is not kept
    }
  }
}
