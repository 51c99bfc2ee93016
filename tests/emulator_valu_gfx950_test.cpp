// VALU instructions that gfx950 code uses beyond the basic set: v_bitop3_b32/b16,
// v_permlane{16,32}_swap_b32, v_add/sub_i32 (clamp = signed saturation),
// v_rcp_iflag_f32. Expected values are computed here from the ISA definitions.
#include <catch2/catch.hpp>

#include <climits>
#include <cmath>
#include <functional>

#include "emulator_lane_kernel.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// Bit i of the result is bit (s0_i * 4 + s1_i * 2 + s2_i) of the table.
uint32_t bitop3_reference(uint32_t table, uint32_t s0, uint32_t s1, uint32_t s2) {
  uint32_t r = 0;
  for (int bit = 0; bit < 32; ++bit) {
    const uint32_t row = ((s0 >> bit) & 1) * 4 + ((s1 >> bit) & 1) * 2 + ((s2 >> bit) & 1);
    r |= ((table >> row) & 1) << bit;
  }
  return r;
}


}  // namespace

TEST_CASE("v_bitop3_b32 applies the truth table to (src0, src1, src2) bits", "[emulator][valu]") {
  const uint32_t tables[] = {0x00, 0xff, 0xf0, 0xcc, 0xaa, 0x96, 0xe8, 0x80, 0x01, 0xdc, 0x40, 0x6c};
  std::string body;
  std::vector<int> outputs;
  for (size_t t = 0; t < std::size(tables); ++t) {
    body += fmt::format("  v_bitop3_b32 v{}, v10, v11, v12 bitop3:0x{:x}\n", 20 + t, tables[t]);
    outputs.push_back(int(20 + t));
  }
  body += "  s_mov_b32 s8, 0x0ff00ff0\n  v_bitop3_b32 v40, s8, v11, -16 bitop3:0xd8\n";
  outputs.push_back(40);
  const auto a = [](uint32_t l) { return pattern(l, 1); };
  const auto b = [](uint32_t l) { return pattern(l, 2); };
  const auto c = [](uint32_t l) { return pattern(l, 3); };
  const auto out = run_lanes(body, {a, b, c}, outputs);
  for (uint32_t l = 0; l < 64; ++l) {
    for (size_t t = 0; t < std::size(tables); ++t) {
      INFO("bitop3:0x" << std::hex << tables[t] << " lane " << std::dec << l);
      REQUIRE(out[t][l] == bitop3_reference(tables[t], a(l), b(l), c(l)));
    }
    INFO("SGPR and inline-constant sources, lane " << l);
    REQUIRE(out.back()[l] == bitop3_reference(0xd8, 0x0ff00ff0u, b(l), uint32_t(-16)));
  }
}

TEST_CASE("v_bitop3_b16 selects source halves and the destination half with op_sel", "[emulator][valu]") {
  struct Case {
    uint32_t table;
    int op_sel[4];  // src0, src1, src2, dst
  };
  const Case cases[] = {{0x96, {0, 0, 0, 0}}, {0xe8, {1, 0, 1, 1}}, {0xf0, {1, 1, 1, 0}}, {0x6c, {0, 1, 0, 1}}};
  std::string body;
  std::vector<int> outputs;
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Case& c = cases[i];
    body += fmt::format("  v_mov_b32 v{}, v13\n  s_nop 0\n", 20 + i);
    body += fmt::format("  v_bitop3_b16 v{}, v10, v11, v12 bitop3:0x{:x} op_sel:[{},{},{},{}]\n", 20 + i, c.table,
                        c.op_sel[0], c.op_sel[1], c.op_sel[2], c.op_sel[3]);
    outputs.push_back(int(20 + i));
  }
  const LaneFn in[] = {[](uint32_t l) { return pattern(l, 4); }, [](uint32_t l) { return pattern(l, 5); },
                       [](uint32_t l) { return pattern(l, 6); }, [](uint32_t l) { return pattern(l, 7); }};
  const auto out = run_lanes(body, {in[0], in[1], in[2], in[3]}, outputs);
  for (size_t i = 0; i < std::size(cases); ++i)
    for (uint32_t l = 0; l < 64; ++l) {
      const Case& c = cases[i];
      auto half = [&](int s) { return c.op_sel[s] ? in[s](l) >> 16 : in[s](l) & 0xffff; };
      const uint32_t v = bitop3_reference(c.table, half(0), half(1), half(2)) & 0xffff;
      const uint32_t old = in[3](l);
      const uint32_t expected = c.op_sel[3] ? (old & 0xffff) | (v << 16) : (old & 0xffff0000u) | v;
      INFO("case " << i << " lane " << l);
      REQUIRE(out[i][l] == expected);
    }
}

TEST_CASE("v_permlane16_swap_b32 swaps odd rows of vdst with even rows of src0", "[emulator][valu]") {
  const std::string body =
      "  v_mov_b32 v20, v10\n  v_mov_b32 v21, v11\n  v_mov_b32 v22, v10\n  v_mov_b32 v23, v11\n  s_nop 1\n"
      "  v_permlane16_swap_b32 v20, v21\n  v_permlane16_swap_b32_e64 v22, v23 bound_ctrl:1 fi:1\n";
  const auto x = [](uint32_t l) { return 0x1000 + l; };
  const auto y = [](uint32_t l) { return 0x2000 + l; };
  const auto out = run_lanes(body, {x, y}, {20, 21, 22, 23});
  for (uint32_t l = 0; l < 64; ++l) {
    const uint32_t row = l / 16;
    const uint32_t vdst = row % 2 ? y(l - 16) : x(l);  // odd row of vdst <- even row of src0
    const uint32_t src0 = row % 2 ? y(l) : x(l + 16);  // even row of src0 <- odd row of vdst
    INFO("lane " << l);
    REQUIRE(out[0][l] == vdst);
    REQUIRE(out[1][l] == src0);
    REQUIRE(out[2][l] == vdst);
    REQUIRE(out[3][l] == src0);
  }
}

TEST_CASE("v_permlane32_swap_b32 swaps the upper half of vdst with the lower half of src0", "[emulator][valu]") {
  const std::string body =
      "  v_mov_b32 v20, v10\n  v_mov_b32 v21, v11\n  s_nop 1\n  v_permlane32_swap_b32 v20, v21\n";
  const auto x = [](uint32_t l) { return 0x3000 + l; };
  const auto y = [](uint32_t l) { return 0x4000 + l; };
  const auto out = run_lanes(body, {x, y}, {20, 21});
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    REQUIRE(out[0][l] == (l >= 32 ? y(l - 32) : x(l)));
    REQUIRE(out[1][l] == (l < 32 ? x(l + 32) : y(l)));
  }
}

TEST_CASE("v_permlane*_swap with a partial EXEC mask stops the run", "[emulator][valu]") {
  const TestKernel k = TestKernel::build("  s_mov_b32 exec_hi, 0\n  v_permlane32_swap_b32 v1, v2\n  s_endpgm\n");
  Args args;
  const std::string m = cdna4::test::error_of([&] { run(k, args.dispatch(), instant()); });
  CHECK(m.find("V_PERMLANE32_SWAP_B32") != std::string::npos);
  CHECK(m.find("partial EXEC") != std::string::npos);
}

TEST_CASE("v_add_i32 and v_sub_i32 wrap, and saturate with clamp", "[emulator][valu]") {
  const std::string body =
      "  v_add_i32 v20, v10, v11\n  v_add_i32 v21, v10, v11 clamp\n"
      "  v_sub_i32 v22, v10, v11\n  v_sub_i32 v23, v10, v11 clamp\n  v_add_i32 v24, s9, v11 clamp\n";
  const int32_t values[] = {INT32_MAX, INT32_MIN, -1, 0, 1, 0x40000000, -0x40000001, 12345, -7, INT32_MAX - 3};
  const auto a = [&](uint32_t l) { return uint32_t(values[l % 10]); };
  const auto b = [&](uint32_t l) { return uint32_t(values[(l / 10 + l) % 10]); };
  const auto out = run_lanes("  s_mov_b32 s9, 0x7ffffff0\n" + body, {a, b}, {20, 21, 22, 23, 24});
  auto saturate = [](int64_t v) { return uint32_t(int32_t(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX))); };
  for (uint32_t l = 0; l < 64; ++l) {
    const int64_t x = int32_t(a(l)), y = int32_t(b(l));
    INFO("lane " << l << ": " << x << ", " << y);
    REQUIRE(out[0][l] == a(l) + b(l));
    REQUIRE(out[1][l] == saturate(x + y));
    REQUIRE(out[2][l] == a(l) - b(l));
    REQUIRE(out[3][l] == saturate(x - y));
    REQUIRE(out[4][l] == saturate(int64_t(0x7ffffff0) + y));
  }
}

TEST_CASE("v_rcp_iflag_f32 is the reciprocal, with IEEE special values", "[emulator][valu]") {
  const float values[] = {1.0f, 3.0f, -7.0f, 4294967296.0f, 0.0f, -0.0f, INFINITY, -INFINITY,
                          NAN,  1e-40f, 12345.678f, 0.1f};
  const auto a = [&](uint32_t l) { return bits(values[l % std::size(values)]); };
  const auto out = run_lanes("  v_rcp_iflag_f32 v20, v10\n  v_rcp_iflag_f32_e64 v21, -v10\n", {a}, {20, 21});
  for (uint32_t l = 0; l < 64; ++l) {
    const float x = f32(a(l));
    INFO("lane " << l << " x = " << x);
    if (std::isnan(x)) {
      REQUIRE(std::isnan(f32(out[0][l])));
      continue;
    }
    REQUIRE(out[0][l] == bits(1.0f / x));
    REQUIRE(out[1][l] == bits(1.0f / -x));
  }
}

// clang-22's code for `x / d` with unsigned int operands (d a kernel argument):
// the reciprocal estimate is refined with integer steps, so the quotient must
// be exact for every dividend and divisor.
TEST_CASE("clang's unsigned division sequence built on v_rcp_iflag_f32 is exact", "[emulator][valu]") {
  const std::string body = R"(
  s_load_dwordx2 s[2:3], s[0:1], 0x0
  s_load_dword s4, s[0:1], 0x8
  v_lshlrev_b32_e32 v0, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dword v1, v0, s[2:3]
  v_cvt_f32_u32_e32 v2, s4
  s_sub_i32 s0, 0, s4
  v_rcp_iflag_f32_e32 v2, v2
  s_nop 0
  v_mul_f32_e32 v2, 0x4f7ffffe, v2
  v_cvt_u32_f32_e32 v2, v2
  v_mul_lo_u32 v3, s0, v2
  v_mul_hi_u32 v3, v2, v3
  v_add_u32_e32 v2, v2, v3
  s_waitcnt vmcnt(0)
  v_mul_hi_u32 v2, v1, v2
  v_mul_lo_u32 v3, v2, s4
  v_sub_u32_e32 v1, v1, v3
  v_add_u32_e32 v4, 1, v2
  v_cmp_le_u32_e32 vcc, s4, v1
  v_subrev_u32_e32 v3, s4, v1
  s_nop 0
  v_cndmask_b32_e32 v2, v2, v4, vcc
  v_cndmask_b32_e32 v1, v1, v3, vcc
  v_add_u32_e32 v3, 1, v2
  v_cmp_le_u32_e32 vcc, s4, v1
  s_nop 1
  v_cndmask_b32_e32 v1, v2, v3, vcc
  global_store_dword v0, v1, s[2:3]
  s_endpgm
)";
  const TestKernel k = TestKernel::build(body);
  const uint32_t divisors[] = {1, 2, 3, 7, 10, 255, 4096, 65537, 1000003, 0x7fffffff, 0x80000001u, 0xffffffffu};
  for (uint32_t d : divisors) {
    std::vector<uint32_t> x(64);
    for (uint32_t l = 0; l < 64; ++l) x[l] = l < 8 ? l * d - (l & 1) : pattern(l, d);
    const std::vector<uint32_t> dividends = x;
    Args args;
    args.add(x);
    args.add_u32(d);
    run(k, args.dispatch(), instant());
    for (uint32_t l = 0; l < 64; ++l) {
      INFO(dividends[l] << " / " << d);
      REQUIRE(x[l] == dividends[l] / d);
    }
  }
}
