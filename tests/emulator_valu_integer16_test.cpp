// 16-bit integer VALU operations and s_bitset0/1, with expected values from the
// CDNA4 ISA guide's definitions: 16-bit operands (the sources' high halves are
// ignored), wrap-around or saturation with clamp, shift amounts S0[3:0], the
// destination's high half zeroed by the VOP2 family and kept (the other half) by
// the gfx9 op_sel forms, inactive lanes untouched, SDWA and DPP forms.
#include <catch2/catch.hpp>

#include <algorithm>

#include "emulator_lane_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

uint16_t lo(uint32_t v) { return uint16_t(v); }
uint16_t hi(uint32_t v) { return uint16_t(v >> 16); }
int16_t slo(uint32_t v) { return int16_t(lo(v)); }
uint32_t sat_u16(int64_t v) { return uint32_t(std::clamp<int64_t>(v, 0, 65535)); }
uint32_t sat_i16(int64_t v) { return uint16_t(std::clamp<int64_t>(v, -32768, 32767)); }

// Operands with interesting low halves (0, 1, 0x7fff, 0x8000, 0xffff, shift counts
// above 15) under high halves that must not matter.
uint32_t operand(uint32_t lane, uint32_t salt) {
  static const uint16_t kSpecials[] = {0, 1, 0x7fff, 0x8000, 0xffff, 17, 15, 16, 31, 0xfff0, 0x8001, 2};
  const uint32_t n = sizeof kSpecials / sizeof kSpecials[0], s = (lane + salt * 5) % (2 * n);
  const uint32_t low = s < n ? kSpecials[s] : pattern(lane, salt) & 0xffff;
  return (pattern(lane, salt + 100) & 0xffff0000u) | low;
}

}  // namespace

TEST_CASE("VOP2 16-bit integer operations wrap to 16 bits and zero the high half", "[emulator][valu]") {
  const std::string body =
      "  v_add_u16 v20, v10, v11\n  v_sub_u16 v21, v10, v11\n  v_subrev_u16 v22, v10, v11\n"
      "  v_mul_lo_u16 v23, v10, v11\n  v_lshlrev_b16 v24, v10, v11\n  v_lshrrev_b16 v25, v10, v11\n"
      "  v_ashrrev_i16 v26, v10, v11\n  v_max_u16 v27, v10, v11\n  v_max_i16 v28, v10, v11\n"
      "  v_min_u16 v29, v10, v11\n  v_min_i16 v30, v10, v11\n  v_lshlrev_b16_e32 v31, 10, v11\n"
      "  s_movk_i32 s11, 0x1234\n  v_lshlrev_b16_e64 v32, v10, s11\n  s_movk_i32 s10, 0x7ffe\n  v_add_u16_e64 v33, s10, v11\n";
  const auto a = [](uint32_t l) { return operand(l, 1); };
  const auto b = [](uint32_t l) { return operand(l, 2); };
  const auto out = run_lanes(body, {a, b}, {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33});
  for (uint32_t l = 0; l < 64; ++l) {
    const uint16_t x = lo(a(l)), y = lo(b(l));
    const int16_t sx = slo(a(l)), sy = slo(b(l));
    const uint32_t expected[] = {uint16_t(x + y), uint16_t(x - y), uint16_t(y - x), uint16_t(x * y),
                                 uint16_t(y << (x % 16)), uint16_t(y >> (x % 16)), uint16_t(int16_t(sy >> (x % 16))),
                                 std::max(x, y), uint16_t(std::max(sx, sy)), std::min(x, y), uint16_t(std::min(sx, sy)),
                                 uint16_t(y << 10), uint16_t(0x1234 << (x % 16)), uint16_t(0x7ffe + y)};
    for (size_t o = 0; o < out.size(); ++o) {
      INFO("lane " << l << " output " << o);
      REQUIRE(out[o][l] == expected[o]);
    }
  }
}

TEST_CASE("v_add/sub/subrev_u16 with clamp saturate to [0, 65535]", "[emulator][valu]") {
  const std::string body =
      "  v_add_u16_e64 v20, v10, v11 clamp\n  v_sub_u16_e64 v21, v10, v11 clamp\n"
      "  v_subrev_u16_e64 v22, v10, v11 clamp\n";
  const auto a = [](uint32_t l) { return operand(l, 3); };
  const auto b = [](uint32_t l) { return operand(l, 4); };
  const auto out = run_lanes(body, {a, b}, {20, 21, 22});
  for (uint32_t l = 0; l < 64; ++l) {
    const int64_t x = lo(a(l)), y = lo(b(l));
    INFO("lane " << l);
    REQUIRE(out[0][l] == sat_u16(x + y));
    REQUIRE(out[1][l] == sat_u16(x - y));
    REQUIRE(out[2][l] == sat_u16(y - x));
  }
}

TEST_CASE("16-bit integer operations leave inactive lanes untouched", "[emulator][valu]") {
  const std::string body =
      "  v_mov_b32 v20, v12\n  v_mov_b32 v21, v12\n  v_mov_b32 v22, v12\n"
      "  s_mov_b32 exec_lo, 0x5a5a0ff0\n  s_mov_b32 exec_hi, 0x8000ffff\n"
      "  v_lshlrev_b16 v20, v10, v11\n  v_mad_u16 v21, v10, v11, v12 op_sel:[0,0,0,1]\n"
      "  v_add_u16_e64 v22, v10, v11 clamp\n  s_mov_b64 exec, -1\n";
  const auto a = [](uint32_t l) { return operand(l, 5); };
  const auto b = [](uint32_t l) { return operand(l, 6); };
  const auto c = [](uint32_t l) { return pattern(l, 7); };
  const auto out = run_lanes(body, {a, b, c}, {20, 21, 22});
  const uint64_t exec = 0x8000ffff5a5a0ff0ull;
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const bool active = (exec >> l) & 1;
    const uint16_t x = lo(a(l)), y = lo(b(l));
    REQUIRE(out[0][l] == (active ? uint16_t(y << (x & 15)) : c(l)));
    REQUIRE(out[1][l] == (active ? (uint32_t(uint16_t(x * y + lo(c(l)))) << 16 | lo(c(l))) : c(l)));
    REQUIRE(out[2][l] == (active ? sat_u16(int64_t(x) + y) : c(l)));
  }
}

TEST_CASE("v_mad_u16/i16 and v_add/sub_i16 read op_sel halves and keep the other destination half", "[emulator][valu]") {
  const std::string body =
      "  v_mov_b32 v20, v13\n  v_mov_b32 v21, v13\n  v_mov_b32 v22, v13\n  v_mov_b32 v23, v13\n"
      "  v_mov_b32 v24, v13\n  v_mov_b32 v25, v13\n  v_mov_b32 v26, v13\n"
      "  v_mad_u16 v20, v10, v11, v12\n  v_mad_u16 v21, v10, v11, v12 op_sel:[1,0,1,1] clamp\n"
      "  v_mad_i16 v22, v10, v11, v12 op_sel:[0,1,0,0] clamp\n  v_mad_i16 v23, v10, v11, v12 op_sel:[1,1,1,1]\n"
      "  v_add_i16 v24, v10, v11 clamp\n  v_add_i16 v25, v10, v11 op_sel:[1,0,1]\n"
      "  v_sub_i16 v26, v10, v11 op_sel:[0,1,0] clamp\n";
  const auto a = [](uint32_t l) { return operand(l, 8) ^ (operand(l, 11) << 16); };
  const auto b = [](uint32_t l) { return operand(l, 9) ^ (operand(l, 12) << 16); };
  const auto c = [](uint32_t l) { return operand(l, 10) ^ (operand(l, 13) << 16); };
  const auto d = [](uint32_t l) { return pattern(l, 14); };
  const auto out = run_lanes(body, {a, b, c, d}, {20, 21, 22, 23, 24, 25, 26});
  auto into_low = [](uint32_t old, uint32_t h) { return (old & 0xffff0000u) | h; };
  auto into_high = [](uint32_t old, uint32_t h) { return (old & 0xffffu) | h << 16; };
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const uint32_t A = a(l), B = b(l), C = c(l), D = d(l);
    REQUIRE(out[0][l] == into_low(D, uint16_t(lo(A) * lo(B) + lo(C))));
    REQUIRE(out[1][l] == into_high(D, sat_u16(int64_t(hi(A)) * lo(B) + hi(C))));
    REQUIRE(out[2][l] == into_low(D, sat_i16(int64_t(int16_t(lo(A))) * int16_t(hi(B)) + int16_t(lo(C)))));
    REQUIRE(out[3][l] == into_high(D, uint16_t(int16_t(hi(A)) * int16_t(hi(B)) + int16_t(hi(C)))));
    REQUIRE(out[4][l] == into_low(D, sat_i16(int64_t(slo(A)) + slo(B))));
    REQUIRE(out[5][l] == into_high(D, uint16_t(hi(A) + lo(B))));
    REQUIRE(out[6][l] == into_low(D, sat_i16(int64_t(slo(A)) - int16_t(hi(B)))));
  }
}

TEST_CASE("v_mad_legacy_u16/i16 zero the high half and saturate with clamp", "[emulator][valu]") {
  const std::string body =
      "  v_mad_legacy_u16 v20, v10, v11, v12\n  v_mad_legacy_u16 v21, v10, v11, v12 clamp\n"
      "  v_mad_legacy_i16 v22, v10, v11, v12\n  v_mad_legacy_i16 v23, v10, v11, v12 clamp\n";
  const auto a = [](uint32_t l) { return operand(l, 15); };
  const auto b = [](uint32_t l) { return operand(l, 16); };
  const auto c = [](uint32_t l) { return operand(l, 17); };
  const auto out = run_lanes(body, {a, b, c}, {20, 21, 22, 23});
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const int64_t u = int64_t(lo(a(l))) * lo(b(l)) + lo(c(l));
    const int64_t s = int64_t(slo(a(l))) * slo(b(l)) + slo(c(l));
    REQUIRE(out[0][l] == uint16_t(u));
    REQUIRE(out[1][l] == sat_u16(u));
    REQUIRE(out[2][l] == uint16_t(s));
    REQUIRE(out[3][l] == sat_i16(s));
  }
}

TEST_CASE("16-bit integer operations in SDWA and DPP forms", "[emulator][valu]") {
  const std::string body =
      "  v_mov_b32 v20, v12\n  v_mov_b32 v21, v12\n"
      "  v_add_u16_sdwa v20, v10, v11 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:BYTE_0\n"
      "  v_lshlrev_b16_sdwa v21, v10, v11 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:WORD_1\n"
      "  v_ashrrev_i16_sdwa v22, v10, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_0 src1_sel:WORD_1\n"
      "  v_sub_u16_dpp v23, v10, v11 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf\n";
  const auto a = [](uint32_t l) { return operand(l, 18) ^ (operand(l, 19) << 16); };
  const auto b = [](uint32_t l) { return operand(l, 20) ^ (operand(l, 21) << 16); };
  const auto c = [](uint32_t l) { return pattern(l, 22); };
  const auto out = run_lanes(body, {a, b, c}, {20, 21, 22, 23});
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const uint32_t A = a(l), B = b(l);
    REQUIRE(out[0][l] == ((c(l) & 0xffffu) | uint32_t(uint16_t(hi(A) + (B & 0xff))) << 16));
    REQUIRE(out[1][l] == uint16_t(hi(B) << ((A >> 8) & 15)));
    REQUIRE(out[2][l] == uint16_t(int16_t(hi(B)) >> (A & 15)));
    REQUIRE(out[3][l] == uint16_t(lo(a(l ^ 1)) - lo(B)));
  }
}

TEST_CASE("s_bitset0/1_b32/b64 clear or set one bit and keep the rest", "[emulator][scalar]") {
  const std::string body =
      "  s_mov_b32 s10, 0x0f0f0f0f\n  s_bitset1_b32 s10, 14\n  s_mov_b32 s11, 0x0f0f0f0f\n"
      "  s_mov_b32 s12, 35\n  s_bitset0_b32 s11, s12\n"
      "  s_mov_b64 s[14:15], -1\n  s_bitset0_b64 s[14:15], 40\n  s_mov_b64 s[16:17], 0\n  s_bitset1_b64 s[16:17], 67\n"
      "  v_mov_b32 v20, s10\n  v_mov_b32 v21, s11\n  v_mov_b32 v22, s14\n  v_mov_b32 v23, s15\n"
      "  v_mov_b32 v24, s16\n  v_mov_b32 v25, s17\n";
  const auto out = run_lanes(body, {}, {20, 21, 22, 23, 24, 25});
  const uint64_t cleared = ~0ull & ~(1ull << 40), set = 1ull << (67 & 63);
  for (uint32_t l = 0; l < 64; ++l) {
    REQUIRE(out[0][l] == (0x0f0f0f0fu | 1u << 14));
    REQUIRE(out[1][l] == (0x0f0f0f0fu & ~(1u << (35 & 31))));
    REQUIRE(out[2][l] == uint32_t(cleared));
    REQUIRE(out[3][l] == uint32_t(cleared >> 32));
    REQUIRE(out[4][l] == uint32_t(set));
    REQUIRE(out[5][l] == uint32_t(set >> 32));
  }
}
