// v_exp/log/rcp/rcp_iflag/rsq/sqrt/sin/cos_f32 and v_ldexp_f32. Expected values:
// the CDNA4 ISA guide's functional examples bit for bit, results within the
// guide's 1 ulp of the long double function, and its denormal rule (flushed for
// exp, log, rcp, rsq, sqrt; kept for sin, cos and ldexp).
#include <catch2/catch.hpp>

#include <climits>
#include <cmath>

#include "emulator_lane_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// Distance in units in the last place of `expected`'s binade between two floats.
double ulps(float got, long double expected) {
  if (std::isinf(expected)) return std::isinf(got) && std::signbit(got) == std::signbit(expected) ? 0 : 1e9;
  const long double a = std::fabs(expected);
  const int e = a < 0x1p-126L ? -126 : std::ilogb(a);
  return double(std::fabs((long double)got - expected) / std::ldexp(1.0L, e - 23));
}

struct Example {
  uint32_t in, out;
};

// Runs `op` (e.g. "v_log_f32") over lane values and returns its results.
std::vector<uint32_t> run_unary(const std::string& op, const LaneFn& x) {
  return run_lanes(fmt::format("  {} v20, v10\n", op), {x}, {20})[0];
}

void check_examples(const std::string& op, std::initializer_list<Example> examples) {
  std::vector<Example> list(examples);
  const auto out = run_unary(op, [&](uint32_t l) { return list[l % list.size()].in; });
  for (size_t i = 0; i < list.size(); ++i) {
    INFO(op << "(0x" << std::hex << list[i].in << ")");
    REQUIRE(out[i] == list[i].out);
  }
}

// Normal inputs spread over the range the function is defined on.
uint32_t spread(uint32_t lane, float low_log2, float high_log2, bool negative = false) {
  const float t = float(lane) / 63.0f;
  const float v = std::exp2(low_log2 + t * (high_log2 - low_log2)) * (1.0f + 0.01f * float(lane % 7));
  return bits(negative && lane % 2 ? -v : v);
}

}  // namespace

TEST_CASE("v_exp_f32 is 2^x within 1 ulp; the ISA's examples; denormal results flush", "[emulator][valu]") {
  check_examples("v_exp_f32", {{0xff800000, 0x00000000}, {0x80000000, 0x3f800000}, {0x7f800000, 0x7f800000},
                               {bits(-130.0f), 0}, {bits(-126.0f), bits(0x1p-126f)}, {bits(128.0f), 0x7f800000},
                               {0x00000001, 0x3f800000}, {bits(3.0f), bits(8.0f)}, {0x7fc00001, 0x7fc00001}});
  const auto x = [](uint32_t l) { return bits((float(l) - 31.5f) * 3.9f + 0.123f * float(l % 5)); };
  const auto out = run_unary("v_exp_f32", x);
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("x = " << f32(x(l)));
    REQUIRE(ulps(f32(out[l]), std::exp2((long double)f32(x(l)))) <= 1.0);
  }
}

TEST_CASE("v_log_f32 is log2(x) within 1 ulp; the ISA's examples; denormal sources flush", "[emulator][valu]") {
  check_examples("v_log_f32", {{0xff800000, 0xffc00000}, {0xbf800000, 0xffc00000}, {0x80000000, 0xff800000},
                               {0x00000000, 0xff800000}, {0x3f800000, 0x00000000}, {0x7f800000, 0x7f800000},
                               {0x00000001, 0xff800000}, {0x807fffff, 0xff800000}, {bits(0x1p-126f), bits(-126.0f)},
                               {0x7fa00000, 0x7fe00000}});
  const auto x = [](uint32_t l) { return spread(l, -125.0f, 127.0f); };
  const auto out = run_unary("v_log_f32_e64", x);
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("x = " << f32(x(l)));
    REQUIRE(ulps(f32(out[l]), std::log2((long double)f32(x(l)))) <= 1.0);
  }
}

TEST_CASE("v_rcp_f32 / v_rcp_iflag_f32 are 1/x; denormal sources and results flush", "[emulator][valu]") {
  for (const char* op : {"v_rcp_f32", "v_rcp_iflag_f32"}) {
    check_examples(op, {{0xff800000, 0x80000000}, {bits(-2.0f), bits(-0.5f)}, {0x80000000, 0xff800000},
                        {0x00000000, 0x7f800000}, {0x7f800000, 0x00000000}, {0x00000001, 0x7f800000},
                        {0x807fffff, 0xff800000}, {bits(0x1p127f), 0}, {bits(-0x1p126f), bits(-0x1p-126f)}});
    const auto x = [](uint32_t l) { return spread(l, -120.0f, 120.0f, true); };
    const auto out = run_unary(op, x);
    for (uint32_t l = 0; l < 64; ++l) REQUIRE(ulps(f32(out[l]), 1.0L / f32(x(l))) <= 0.5);
  }
}

TEST_CASE("v_rsq_f32 and v_sqrt_f32: the ISA's examples, 1 ulp, denormal sources flush", "[emulator][valu]") {
  check_examples("v_rsq_f32", {{0xff800000, 0xffc00000}, {0x80000000, 0xff800000}, {0x00000000, 0x7f800000},
                               {0x40800000, 0x3f000000}, {0x7f800000, 0x00000000}, {0x00000010, 0x7f800000},
                               {bits(-1.0f), 0xffc00000}});
  check_examples("v_sqrt_f32", {{0xff800000, 0xffc00000}, {0x80000000, 0x80000000}, {0x00000000, 0x00000000},
                                {0x40800000, 0x40000000}, {0x7f800000, 0x7f800000}, {0x00000010, 0x00000000},
                                {bits(-1.0f), 0xffc00000}});
  const auto x = [](uint32_t l) { return spread(l, -126.0f, 127.0f); };
  const auto rsq = run_unary("v_rsq_f32", x), sqrt = run_unary("v_sqrt_f32", x);
  for (uint32_t l = 0; l < 64; ++l) {
    const long double v = f32(x(l));
    INFO("x = " << f32(x(l)));
    REQUIRE(ulps(f32(rsq[l]), 1.0L / std::sqrt(v)) <= 1.0);
    REQUIRE(ulps(f32(sqrt[l]), std::sqrt(v)) <= 0.5);
  }
}

TEST_CASE("v_sin_f32 / v_cos_f32 are sin / cos of 2 pi x with exact argument reduction", "[emulator][valu]") {
  check_examples("v_sin_f32", {{0xff800000, 0xffc00000}, {0xff7fffff, 0x00000000}, {0x80000000, 0x80000000},
                               {0x3e800000, 0x3f800000}, {0x7f800000, 0xffc00000}, {bits(0.5f), 0},
                               {bits(-0.25f), bits(-1.0f)}, {bits(1000.75f), bits(-1.0f)}, {0x00000001, 0x00000006}});
  check_examples("v_cos_f32", {{0xff800000, 0xffc00000}, {0xff7fffff, 0x3f800000}, {0x80000000, 0x3f800000},
                               {0x3e800000, 0x00000000}, {0x7f800000, 0xffc00000}, {bits(0.5f), bits(-1.0f)},
                               {bits(-3.75f), 0}});
  const auto x = [](uint32_t l) { return bits((float(l) - 31.0f) * 0.173f + (l % 3 ? 0.0f : 1e5f)); };
  const auto s = run_unary("v_sin_f32", x), c = run_unary("v_cos_f32", x);
  for (uint32_t l = 0; l < 64; ++l) {
    const long double v = f32(x(l)), r = v - std::nearbyint(v);
    const long double two_pi = 6.283185307179586476925286766559L;
    INFO("x = " << f32(x(l)));
    // Absolute error: sin near a zero has no relative bound.
    REQUIRE(std::fabs(f32(s[l]) - std::sin(two_pi * r)) <= 0x1p-24L);
    REQUIRE(std::fabs(f32(c[l]) - std::cos(two_pi * r)) <= 0x1p-24L);
  }
}

TEST_CASE("v_ldexp_f32 scales by 2^n once rounded, denormals kept, n saturating", "[emulator][valu]") {
  struct Case {
    float x;
    int32_t n;
  };
  const Case cases[] = {{1.0f, 128},  {1.0f, -149},    {1.5f, -150},  {-3.0f, 5},       {0.75f, -149},
                        {1.0f, INT_MIN}, {-1.0f, INT_MAX}, {INFINITY, -1000}, {0.0f, 100}, {0x1p-149f, 149},
                        {-0.0f, -5}, {3.0f, -127}};
  const auto x = [&](uint32_t l) { return bits(cases[l % std::size(cases)].x); };
  const auto n = [&](uint32_t l) { return uint32_t(cases[l % std::size(cases)].n); };
  const auto out = run_lanes("  v_ldexp_f32 v20, v10, v11\n  v_ldexp_f32 v21, -v10, 2 mul:2\n", {x, n}, {20, 21});
  for (uint32_t l = 0; l < std::size(cases); ++l) {
    const Case& c = cases[l];
    const long double exact = std::ldexp((long double)c.x, std::clamp(c.n, -1000, 1000));
    INFO("ldexp(" << c.x << ", " << c.n << ")");
    REQUIRE(out[0][l] == bits(float(exact)));
    REQUIRE(out[1][l] == bits(float(std::ldexp(-(long double)c.x, 3))));
  }
  CHECK(out[0][2] == 0x00000001u);  // 1.5 * 2^-150 = 0.75 * 2^-149 rounds to the smallest denormal
  CHECK(out[0][0] == 0x7f800000u);
}
