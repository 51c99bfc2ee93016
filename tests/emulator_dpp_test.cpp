// DPP (data parallel primitives) on VOP1 / VOP2 operations. Expected values
// follow the CDNA3 / CDNA4 ISA guide's DPP_CTRL table, written out here lane by
// lane: src0 comes from the permuted lane; a source lane outside the row (16
// lanes) or wave, or inactive, reads 0 with BOUND_CTRL and otherwise disables
// the lane; row_mask / bank_mask disable lanes, which keep their destination.
#include <catch2/catch.hpp>

#include <cstring>
#include <functional>

#include "emulator_lane_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

struct Control {
  std::string syntax;
  std::function<int(int lane)> source;  // -1: outside the row / wave
};

std::vector<Control> every_control() {
  std::vector<Control> c;
  for (const char* perm : {"[0,0,0,0]", "[3,2,1,0]", "[1,0,3,2]", "[2,3,0,1]", "[0,1,2,3]"})
    c.push_back({fmt::format("quad_perm:{}", perm), [p = std::string(perm)](int l) {
                   return 4 * (l / 4) + (p[1 + 2 * (l % 4)] - '0');
                 }});
  for (int n = 1; n <= 15; ++n) {
    c.push_back({fmt::format("row_shl:{}", n), [n](int l) { return l % 16 + n < 16 ? l + n : -1; }});
    c.push_back({fmt::format("row_shr:{}", n), [n](int l) { return l % 16 >= n ? l - n : -1; }});
    c.push_back({fmt::format("row_ror:{}", n), [n](int l) { return 16 * (l / 16) + (l % 16 + 16 - n) % 16; }});
    c.push_back({fmt::format("row_newbcast:{}", n), [n](int l) { return 16 * (l / 16) + n; }});
  }
  c.push_back({"row_newbcast:0", [](int l) { return 16 * (l / 16); }});
  c.push_back({"wave_shl:1", [](int l) { return l < 63 ? l + 1 : -1; }});
  c.push_back({"wave_rol:1", [](int l) { return (l + 1) % 64; }});
  c.push_back({"wave_shr:1", [](int l) { return l > 0 ? l - 1 : -1; }});
  c.push_back({"wave_ror:1", [](int l) { return (l + 63) % 64; }});
  c.push_back({"row_mirror", [](int l) { return 16 * (l / 16) + 15 - l % 16; }});
  c.push_back({"row_half_mirror", [](int l) { return 8 * (l / 8) + 7 - l % 8; }});
  c.push_back({"row_bcast:15", [](int l) { return l >= 16 ? 16 * (l / 16) - 1 : -1; }});  // row r reads lane 16r-1
  c.push_back({"row_bcast:31", [](int l) { return l >= 32 ? 31 : -1; }});                 // rows 2, 3 read lane 31
  return c;
}

uint32_t source_value(uint32_t l) { return 0x1000 + 17 * l; }
uint32_t old_value(uint32_t l) { return 0xa0000 + l; }

float as_f32(uint32_t b) { return f32(b); }

}  // namespace

TEST_CASE("DPP: every dpp_ctrl moves src0 lanes as the ISA's table, with and without bound_ctrl",
          "[emulator][dpp]") {
  const auto controls = every_control();
  std::string body;
  std::vector<int> outputs;
  for (size_t i = 0; i < controls.size(); ++i) {
    const int plain = 20 + 2 * int(i), zero_fill = plain + 1;
    // bound_ctrl:0 is gfx9 assembler syntax for BOUND_CTRL = 1 (LLVM prints bound_ctrl:1).
    body += fmt::format("  v_mov_b32 v{0}, v11\n  v_mov_b32 v{1}, v11\n  v_mov_b32_dpp v{0}, v10 {2}\n"
                        "  v_mov_b32_dpp v{1}, v10 {2} bound_ctrl:0\n",
                        plain, zero_fill, controls[i].syntax);
    outputs.push_back(plain);
    outputs.push_back(zero_fill);
  }
  KernelShape shape;
  shape.vgprs = shape.accum_offset = 256;
  const auto out = run_lanes(body, {source_value, old_value}, outputs, shape);
  for (size_t i = 0; i < controls.size(); ++i) {
    for (int l = 0; l < 64; ++l) {
      INFO(controls[i].syntax << " lane " << l);
      const int s = controls[i].source(l);
      REQUIRE(out[2 * i][l] == (s < 0 ? old_value(l) : source_value(s)));
      REQUIRE(out[2 * i + 1][l] == (s < 0 ? 0u : source_value(s)));
    }
  }
}

TEST_CASE("DPP: row_mask and bank_mask disable lanes, which keep their destination", "[emulator][dpp]") {
  const uint32_t masks[][2] = {{0xf, 0xf}, {0xa, 0xf}, {0x5, 0x3}, {0x1, 0x8}, {0xc, 0x6}, {0x0, 0xf}};
  std::string body;
  std::vector<int> outputs;
  for (size_t i = 0; i < std::size(masks); ++i) {
    body += fmt::format("  v_mov_b32 v{0}, v11\n  v_mov_b32_dpp v{0}, v10 row_ror:3 row_mask:0x{1:x} bank_mask:0x{2:x}\n",
                        20 + i, masks[i][0], masks[i][1]);
    outputs.push_back(int(20 + i));
  }
  const auto out = run_lanes(body, {source_value, old_value}, outputs);
  for (size_t i = 0; i < std::size(masks); ++i) {
    for (int l = 0; l < 64; ++l) {
      INFO("row_mask 0x" << std::hex << masks[i][0] << " bank_mask 0x" << masks[i][1] << std::dec << " lane " << l);
      const bool enabled = ((masks[i][0] >> (l / 16)) & 1) && ((masks[i][1] >> (l % 16 / 4)) & 1);
      REQUIRE(out[i][l] == (enabled ? source_value(16 * (l / 16) + (l % 16 + 13) % 16) : old_value(l)));
    }
  }
}

TEST_CASE("DPP: an inactive source lane is invalid; inactive lanes keep their destination", "[emulator][dpp]") {
  const uint64_t exec = 0x5a5af0f03c3cff00ull;
  const std::string body = fmt::format(
      "  v_mov_b32 v20, v11\n  v_mov_b32 v21, v11\n  v_mov_b32 v22, v11\n"
      "  s_mov_b32 exec_lo, 0x{:x}\n  s_mov_b32 exec_hi, 0x{:x}\n"
      "  v_mov_b32_dpp v20, v10 row_shr:1\n  v_mov_b32_dpp v21, v10 row_shr:1 bound_ctrl:0\n"
      "  v_mov_b32_dpp v22, v10 wave_ror:1 bound_ctrl:0\n  s_mov_b64 exec, -1\n",
      uint32_t(exec), uint32_t(exec >> 32));
  const auto out = run_lanes(body, {source_value, old_value}, {20, 21, 22});
  auto active = [&](int l) { return l >= 0 && ((exec >> l) & 1); };
  for (int l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const int shr = l % 16 >= 1 ? l - 1 : -1, ror = (l + 63) % 64;
    if (!active(l)) {
      REQUIRE(out[0][l] == old_value(l));
      REQUIRE(out[1][l] == old_value(l));
      REQUIRE(out[2][l] == old_value(l));
      continue;
    }
    REQUIRE(out[0][l] == (active(shr) ? source_value(shr) : old_value(l)));
    REQUIRE(out[1][l] == (active(shr) ? source_value(shr) : 0u));
    REQUIRE(out[2][l] == (active(ror) ? source_value(ror) : 0u));
  }
}

TEST_CASE("DPP on the operations foreign kernels use: src0 permuted, src1 and modifiers as usual",
          "[emulator][dpp]") {
  const auto i24 = [](uint32_t l) { return (pattern(l, 1) & 0x00ffffffu) ^ (l % 3 ? 0x800000u : 0u); };
  const auto ints = [](uint32_t l) { return pattern(l, 2); };
  const auto floats_a = [](uint32_t l) { return bits(float(int(l % 13) - 6) * 0.75f); };
  const auto floats_b = [](uint32_t l) { return bits(float(int(l % 7) - 3) * 1.25f + 0.5f); };
  const auto accum = [](uint32_t l) { return bits(float(l) * 0.5f); };
  const std::string body =
      "  v_mov_b32 v30, v11\n  v_mul_i32_i24_dpp v30, v10, v11 row_shr:1 bound_ctrl:0\n"
      "  v_mov_b32 v31, v11\n  v_subrev_f32_dpp v31, v12, v13 quad_perm:[1,1,1,1]\n"
      "  v_mov_b32 v32, v11\n  v_mul_f32_dpp v32, -v12, |v13| row_newbcast:3\n"
      "  v_mov_b32 v33, v11\n  v_add_co_u32_dpp v33, vcc, v10, v11 row_shl:1 row_mask:0x5\n"
      "  s_nop 1\n  v_cndmask_b32 v34, 0, 1, vcc\n"
      "  v_mov_b32 v35, v14\n  s_nop 1\n  v_fmac_f32_dpp v35, v12, v13 row_ror:4\n"  // fmac reads v35
      "  v_mov_b32 v36, v11\n  v_mov_b32 v37, v11\n  v_mov_b64_dpp v[36:37], v[10:11] row_newbcast:5\n"
      "  s_mov_b32 vcc_lo, 0x0f0f3355\n  s_mov_b32 vcc_hi, 0xff00aa55\n"
      "  v_mov_b32 v38, v11\n  v_cndmask_b32_dpp v38, v10, v11, vcc row_mirror\n"
      "  v_mov_b32 v39, v10\n  s_nop 1\n  v_mov_b32_dpp v39, v39 row_shr:2 bound_ctrl:0\n"
      "  v_mov_b32 v40, v11\n  v_add_f32_dpp v40, v12, v13 row_bcast:15 row_mask:0xa\n";
  const auto out = run_lanes(body, {i24, ints, floats_a, floats_b, accum}, {30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40});
  const uint64_t vcc = 0xff00aa550f0f3355ull;
  auto sext24 = [](uint32_t v) { return int32_t(v << 8) >> 8; };
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const uint32_t row = 16 * (l / 16), in_row = l % 16;
    const uint32_t src_shr = in_row >= 1 ? i24(l - 1) : 0;
    REQUIRE(out[0][l] == uint32_t(int64_t(sext24(src_shr)) * sext24(ints(l))));
    REQUIRE(out[1][l] == bits(as_f32(floats_b(l)) - as_f32(floats_a(4 * (l / 4) + 1))));
    REQUIRE(out[2][l] == bits(-as_f32(floats_a(row + 3)) * std::fabs(as_f32(floats_b(l)))));
    // row_shl:1 with rows 0 and 2 enabled: lane 15 of a row has no source and no bound_ctrl, so it
    // does not execute (no carry); disabled rows keep v33 and produce no carry either.
    const bool runs = ((0x5 >> (l / 16)) & 1) && in_row < 15;
    const uint64_t sum = uint64_t(i24(runs ? l + 1 : l)) + ints(l);
    REQUIRE(out[3][l] == (runs ? uint32_t(sum) : ints(l)));
    REQUIRE(out[4][l] == (runs ? uint32_t(sum >> 32) : 0u));
    const uint32_t ror4 = row + (in_row + 12) % 16;
    REQUIRE(out[5][l] == bits(std::fma(as_f32(floats_a(ror4)), as_f32(floats_b(l)), as_f32(accum(l)))));
    REQUIRE(out[6][l] == i24(row + 5));
    REQUIRE(out[7][l] == ints(row + 5));
    const uint32_t mirror = row + 15 - in_row;
    REQUIRE(out[8][l] == (((vcc >> l) & 1) ? ints(l) : i24(mirror)));
    REQUIRE(out[9][l] == (in_row >= 2 ? i24(l - 2) : 0u));
    const bool odd_row = (l / 16) % 2 == 1;
    REQUIRE(out[10][l] == (odd_row ? bits(as_f32(floats_a(row - 1)) + as_f32(floats_b(l))) : ints(l)));
  }
}
