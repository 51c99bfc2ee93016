// v_mbcnt_lo/hi_u32_b32, v_alignbit_b32 / v_alignbyte_b32 (the op_sel encoding LLVM
// decodes every gfx950 form as), v_mul_hi_i32_i24 and v_nop, with expected values
// from the CDNA4 ISA guide's pseudocode.
#include <catch2/catch.hpp>

#include <bit>

#include "emulator_lane_kernel.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

TEST_CASE("v_mbcnt_lo/hi_u32_b32 count the mask bits below each lane", "[emulator][valu]") {
  const std::string body =
      "  v_mbcnt_lo_u32_b32 v20, -1, 0\n  v_mbcnt_hi_u32_b32 v20, -1, v20\n"
      "  s_mov_b32 s10, 0x8421f00f\n  s_mov_b32 s11, 0x0ff0a5a5\n"
      "  v_mbcnt_lo_u32_b32 v21, s10, 7\n  v_mbcnt_hi_u32_b32 v21, s11, v21\n"
      "  v_mbcnt_lo_u32_b32 v22, v10, v11\n  v_mbcnt_hi_u32_b32 v23, v10, v11\n";
  const auto a = [](uint32_t l) { return pattern(l, 1); };
  const auto b = [](uint32_t l) { return l * 1000; };
  const auto out = run_lanes(body, {a, b}, {20, 21, 22, 23});
  const uint64_t mask = 0x0ff0a5a58421f00full;
  for (uint32_t l = 0; l < 64; ++l) {
    const uint64_t below = (1ull << l) - 1;
    INFO("lane " << l);
    REQUIRE(out[0][l] == l);
    REQUIRE(out[1][l] == 7u + uint32_t(std::popcount(mask & below)));
    REQUIRE(out[2][l] == b(l) + uint32_t(std::popcount(a(l) & uint32_t(below))));
    REQUIRE(out[3][l] == b(l) + uint32_t(std::popcount(a(l) & uint32_t(below >> 32))));
  }
}

TEST_CASE("v_alignbit_b32 / v_alignbyte_b32 shift {S0, S1}; op_sel[2] takes S2's high half", "[emulator][valu]") {
  const std::string body =
      "  v_alignbit_b32 v20, v10, v11, v12\n  v_alignbyte_b32 v21, v10, v11, v12\n"
      "  v_alignbit_b32 v22, v10, v11, v12 op_sel:[0,0,1,0]\n  v_alignbyte_b32 v23, v10, v11, v12 op_sel:[0,0,1,0]\n"
      "  s_mov_b32 s10, 0x89abcdef\n  v_alignbit_b32 v24, s10, v11, 20\n  v_alignbyte_b32 v25, v10, s10, 3\n";
  const auto a = [](uint32_t l) { return pattern(l, 1); };
  const auto b = [](uint32_t l) { return pattern(l, 2); };
  const auto c = [](uint32_t l) { return l | (63 - l) << 16 | 0xc0 << 24; };
  const auto out = run_lanes(body, {a, b, c}, {20, 21, 22, 23, 24, 25});
  auto shr = [](uint32_t hi, uint32_t lo, uint32_t s) { return uint32_t(((uint64_t(hi) << 32) | lo) >> s); };
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    REQUIRE(out[0][l] == shr(a(l), b(l), c(l) & 31));
    REQUIRE(out[1][l] == shr(a(l), b(l), 8 * (c(l) & 3)));
    REQUIRE(out[2][l] == shr(a(l), b(l), (c(l) >> 16) & 31));
    REQUIRE(out[3][l] == shr(a(l), b(l), 8 * ((c(l) >> 16) & 3)));
    REQUIRE(out[4][l] == shr(0x89abcdefu, b(l), 20));
    REQUIRE(out[5][l] == shr(a(l), 0x89abcdefu, 24));
  }
}

TEST_CASE("v_alignbit_b32 with op_sel on a 32-bit operand is refused", "[emulator][valu]") {
  for (const char* op_sel : {"[1,0,0,0]", "[0,1,0,0]", "[0,0,0,1]"}) {
    const TestKernel k = TestKernel::build(fmt::format("  v_alignbit_b32 v1, v2, v3, v4 op_sel:{}\n  s_endpgm\n", op_sel));
    Args args;
    const std::string m = cdna4::test::error_of([&] { run(k, args.dispatch(), instant()); });
    INFO(m);
    CHECK(m.find("V_ALIGNBIT_B32") != std::string::npos);
    CHECK(m.find("op_sel") != std::string::npos);
  }
}

TEST_CASE("v_mul_hi_i32_i24 is the high half of the signed 24-bit product", "[emulator][valu]") {
  const std::string body = "  v_mul_hi_i32_i24 v20, v10, v11\n  v_mul_hi_i32_i24_e64 v21, v10, -5\n";
  const uint32_t specials[] = {0x7fffff, 0x800000, 0xffffff, 0x12800000, 0xff7fffff, 1, 0};
  const auto a = [&](uint32_t l) { return l < 7 ? specials[l] : pattern(l, 1); };
  const auto b = [&](uint32_t l) { return l < 7 ? specials[(l + 1) % 7] : pattern(l, 2); };
  const auto out = run_lanes(body, {a, b}, {20, 21});
  auto i24 = [](uint32_t v) { return int64_t(v & 0x7fffff) - int64_t(v & 0x800000); };
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    REQUIRE(out[0][l] == uint32_t(uint64_t(i24(a(l)) * i24(b(l))) >> 32));
    REQUIRE(out[1][l] == uint32_t(uint64_t(i24(a(l)) * -5) >> 32));
  }
}

TEST_CASE("v_nop executes and changes no register", "[emulator][valu]") {
  const auto a = [](uint32_t l) { return pattern(l, 3); };
  const auto out = run_lanes("  v_mov_b32 v20, v10\n  v_nop\n  v_nop_e64\n", {a}, {20, 10});
  for (uint32_t l = 0; l < 64; ++l) {
    REQUIRE(out[0][l] == a(l));
    REQUIRE(out[1][l] == a(l));
  }
}
