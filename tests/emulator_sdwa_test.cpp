// SDWA (sub-dword addressing) on VOP1 / VOP2 / VOPC operations. Expected values
// follow the CDNA3 / CDNA4 ISA guide, written out here: src*_sel picks a byte or
// word, zero-extended or (sext) sign-extended; the result's low byte / word goes
// to the dst_sel field, the other bits 0 (UNUSED_PAD), the field's sign above it
// (UNUSED_SEXT) or the old destination's (UNUSED_PRESERVE).
#include <catch2/catch.hpp>

#include <cmath>

#include "emulator_lane_kernel.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/lane_modifiers.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

const char* const kSelects[] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
const char* const kUnused[] = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"};

int width_of(int sel) { return sel < 4 ? 8 : sel < 6 ? 16 : 32; }
int shift_of(int sel) { return sel < 4 ? 8 * sel : sel < 6 ? 16 * (sel - 4) : 0; }

uint32_t selected(uint32_t v, int sel, bool sext) {
  const int w = width_of(sel);
  if (w == 32) return v;
  uint32_t x = (v >> shift_of(sel)) & ((1u << w) - 1);
  if (sext && (x >> (w - 1)) & 1) x |= ~0u << w;
  return x;
}

uint32_t written(uint32_t result, uint32_t old, int sel, int unused) {
  const int w = width_of(sel), at = shift_of(sel);
  if (w == 32) return result;
  const uint32_t mask = ((1u << w) - 1) << at, field = (result << at) & mask;
  if (unused == 2) return (old & ~mask) | field;
  const bool negative = (result >> (w - 1)) & 1;
  const uint32_t above = at + w < 32 ? ~0u << (at + w) : 0u;
  return field | (unused == 1 && negative ? above : 0u);
}

uint32_t mixed(uint32_t l) { return pattern(l, 11) | (l % 5 == 0 ? 0x80808080u : 0u); }
uint32_t other(uint32_t l) { return l % 3 == 0 ? (mixed(l) >> 16 & 0xff) | (pattern(l, 12) & ~0xffu) : pattern(l, 12); }
uint32_t old_value(uint32_t l) { return 0x5a000000u | l; }

}  // namespace

TEST_CASE("SDWA: every source select, zero- and sign-extended", "[emulator][sdwa]") {
  std::string body;
  std::vector<int> outputs;
  for (int sel = 0; sel < 7; ++sel) {
    body += fmt::format("  v_mov_b32_sdwa v{}, v10 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:{}\n", 20 + 2 * sel,
                        kSelects[sel]);
    body += fmt::format("  v_mov_b32_sdwa v{}, sext(v10) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:{}\n",
                        21 + 2 * sel, kSelects[sel]);
    outputs.push_back(20 + 2 * sel);
    outputs.push_back(21 + 2 * sel);
  }
  const auto out = run_lanes(body, {mixed}, outputs);
  for (int sel = 0; sel < 7; ++sel) {
    for (uint32_t l = 0; l < 64; ++l) {
      INFO(kSelects[sel] << " lane " << l);
      REQUIRE(out[2 * sel][l] == selected(mixed(l), sel, false));
      REQUIRE(out[2 * sel + 1][l] == selected(mixed(l), sel, true));
    }
  }
}

TEST_CASE("SDWA: every destination select with each dst_unused", "[emulator][sdwa]") {
  std::string body;
  std::vector<std::pair<int, int>> forms;
  std::vector<int> outputs;
  for (int sel = 0; sel < 6; ++sel) {
    for (int unused = 0; unused < 3; ++unused) {
      const int reg = 20 + int(forms.size());
      body += fmt::format("  v_mov_b32 v{0}, v11\n  v_mov_b32_sdwa v{0}, v10 dst_sel:{1} dst_unused:{2} src0_sel:DWORD\n",
                          reg, kSelects[sel], kUnused[unused]);
      forms.emplace_back(sel, unused);
      outputs.push_back(reg);
    }
  }
  const auto out = run_lanes(body, {mixed, old_value}, outputs);
  for (size_t f = 0; f < forms.size(); ++f) {
    for (uint32_t l = 0; l < 64; ++l) {
      INFO(kSelects[forms[f].first] << " " << kUnused[forms[f].second] << " lane " << l);
      REQUIRE(out[f][l] == written(mixed(l), old_value(l), forms[f].first, forms[f].second));
    }
  }
}

TEST_CASE("SDWA on VOP1 / VOP2 operations: selected sources feed the operation", "[emulator][sdwa]") {
  const auto fa = [](uint32_t l) { return bits(float(int(l % 11) - 5) * 0.375f); };
  const auto fb = [](uint32_t l) { return bits(float(int(l % 6) - 2) * 1.5f); };
  const auto halves = [](uint32_t l) { return (0x3c00u + 0x40u * (l % 16)) << 16 | (0xbc00u + l); };  // f16 halves
  const std::string body =
      "  s_mov_b32 s8, 0x8091a2b3\n"
      "  v_mov_b32 v20, v14\n  v_add_u32_sdwa v20, sext(v10), v11 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE "
      "src0_sel:BYTE_1 src1_sel:WORD_0\n"
      "  v_add_u32_sdwa v21, s8, v11 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_3 src1_sel:BYTE_2\n"
      "  v_mul_i32_i24_sdwa v22, sext(v10), v11 dst_sel:BYTE_1 dst_unused:UNUSED_SEXT src0_sel:WORD_1 src1_sel:BYTE_0\n"
      "  v_mov_b32 v23, v14\n  v_add_f32_sdwa v23, -v12, |v13| clamp dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE "
      "src0_sel:DWORD src1_sel:DWORD\n"
      "  v_mul_f32_sdwa v24, v12, v13 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD\n"
      "  v_cvt_f32_f16_sdwa v25, v15 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1\n"
      "  v_add_co_u32_sdwa v26, vcc, v10, v11 dst_sel:WORD_0 dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1\n"
      "  s_nop 1\n  v_cndmask_b32 v27, 0, 1, vcc\n";
  const auto out = run_lanes(body, {mixed, other, fa, fb, old_value, halves}, {20, 21, 22, 23, 24, 25, 26, 27});
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const uint32_t a = mixed(l), b = other(l);
    REQUIRE(out[0][l] == written(selected(a, 1, true) + selected(b, 4, false), old_value(l), 5, 2));
    REQUIRE(out[1][l] == selected(0x8091a2b3u, 3, false) + selected(b, 2, false));
    const int64_t x = int32_t(selected(a, 5, true) << 8) >> 8, y = int32_t(selected(b, 0, false) << 8) >> 8;
    REQUIRE(out[2][l] == written(uint32_t(x * y), 0, 1, 1));
    const float sum = -f32(fa(l)) + std::fabs(f32(fb(l)));
    REQUIRE(out[3][l] == written(bits(std::fmin(std::fmax(sum, 0.0f), 1.0f)), old_value(l), 5, 2));
    REQUIRE(out[4][l] == bits(f32(fa(l) >> 16) * f32(fb(l))));
    REQUIRE(out[5][l] == bits(1.0f + float(l % 16) / 16.0f));  // high half: f16 1 + (l % 16) * 2^-4
    const uint64_t sum64 = uint64_t(a) + selected(b, 5, false);
    REQUIRE(out[6][l] == (uint32_t(sum64) & 0xffffu));
    REQUIRE(out[7][l] == uint32_t(sum64 >> 32));
  }
}

TEST_CASE("SDWA compares: selected sources, VCC or SGPR pair, v_cmpx writes EXEC too", "[emulator][sdwa]") {
  const auto halves = [](uint32_t l) { return (0x3c00u + 0x100u * (l % 8)) << 16 | (0x4000u + 0x80u * (l % 5)); };
  const auto fa = [](uint32_t l) { return l % 9 == 0 ? 0x7fc00000u : bits(float(int(l % 7) - 3)); };
  const auto fb = [](uint32_t l) { return bits(float(int(l % 5) - 2)); };
  const std::string body =
      "  v_cmp_eq_u32_sdwa s[8:9], v10, v11 src0_sel:BYTE_2 src1_sel:BYTE_0\n"
      "  v_cmp_lt_i32_sdwa vcc, sext(v10), sext(v11) src0_sel:BYTE_1 src1_sel:WORD_0\n"
      "  v_cmp_nge_f32_sdwa s[12:13], -v12, |v13| src0_sel:DWORD src1_sel:DWORD\n"
      "  v_cmp_gt_f16_sdwa s[14:15], v14, v14 src0_sel:WORD_1 src1_sel:WORD_0\n"
      "  v_cmpx_eq_u32_sdwa s[16:17], v10, v11 src0_sel:BYTE_2 src1_sel:BYTE_0\n"
      "  s_mov_b64 s[18:19], exec\n  s_mov_b64 exec, -1\n"
      "  v_cndmask_b32 v20, 0, 1, s[8:9]\n  v_cndmask_b32 v21, 0, 1, vcc\n  v_cndmask_b32 v22, 0, 1, s[12:13]\n"
      "  v_cndmask_b32 v23, 0, 1, s[14:15]\n  v_cndmask_b32 v24, 0, 1, s[16:17]\n  v_cndmask_b32 v25, 0, 1, s[18:19]\n";
  const auto out = run_lanes(body, {mixed, other, fa, fb, halves}, {20, 21, 22, 23, 24, 25});
  auto f16 = [](uint32_t h) { return std::ldexp(float(1024 + (h & 0x3ff)), int((h >> 10) & 0x1f) - 25); };
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const uint32_t a = mixed(l), b = other(l);
    const bool eq = selected(a, 2, false) == selected(b, 0, false);
    REQUIRE(out[0][l] == uint32_t(eq));
    REQUIRE(out[1][l] == uint32_t(int32_t(selected(a, 1, true)) < int32_t(selected(b, 4, true))));
    REQUIRE(out[2][l] == uint32_t(!(-f32(fa(l)) >= std::fabs(f32(fb(l))))));
    REQUIRE(out[3][l] == uint32_t(f16(halves(l) >> 16) > f16(halves(l) & 0xffff)));
    REQUIRE(out[4][l] == uint32_t(eq));
    REQUIRE(out[5][l] == uint32_t(eq));
  }
}

TEST_CASE("DPP / SDWA names and control operands as LLVM 22 lays them out", "[emulator][sdwa][dpp]") {
  CHECK(emu::base_opcode_name("V_MUL_F32_dpp_vi") == "V_MUL_F32");
  CHECK(emu::base_opcode_name("V_CMP_EQ_U32_sdwa_gfx9") == "V_CMP_EQ_U32");
  CHECK(emu::lane_form_of("V_MOV_B64_dpp_gfx9") == emu::LaneForm::Dpp);
  CHECK(emu::lane_form_of("V_CVT_F32_FP8_sdwa_gfx9") == emu::LaneForm::Sdwa);
  CHECK(emu::lane_form_of("V_MUL_F32_e64_vi") == emu::LaneForm::None);
  struct Shape {
    size_t sources;
    std::vector<int64_t> controls;  // as the MCInst holds them
    std::vector<int64_t> left;      // clamp [, omod] for the operation
    uint8_t src0, src1, dst, unused;
  };
  const Shape shapes[] = {
      {1, {0, 5, 2, 2}, {0}, 2, 6, 5, 2},              // v_mov_b32_sdwa: clamp, dst_sel, dst_unused, src0_sel
      {1, {0, 1, 6, 0, 5}, {0, 1}, 5, 6, 6, 0},        // v_cvt_f32_f16_sdwa: clamp, omod, dst_sel, dst_unused, src0_sel
      {1, {0, 0, 3}, {0, 0}, 3, 6, 6, 0},              // v_cvt_f32_fp8_sdwa: clamp, omod, src0_sel (no dst_sel)
      {2, {1, 0, 4, 0, 5, 3}, {1, 0}, 5, 3, 4, 0},     // v_add_f32_sdwa: clamp, omod, dst_sel, dst_unused, sels
      {2, {0, 4, 1, 5, 3}, {0}, 5, 3, 4, 1},           // v_add_u32_sdwa: clamp, dst_sel, dst_unused, sels
      {2, {0, 2, 0}, {0}, 2, 0, 6, 0},                 // v_cmp_*_sdwa: clamp, src0_sel, src1_sel
  };
  for (const Shape& s : shapes) {
    std::vector<int64_t> controls = s.controls;
    emu::LaneControls out;
    REQUIRE(emu::take_lane_controls(emu::LaneForm::Sdwa, s.sources, controls, out).empty());
    CHECK(controls == s.left);
    CHECK(out.source_sel[0] == s.src0);
    CHECK(out.source_sel[1] == s.src1);
    CHECK(out.dst_sel == s.dst);
    CHECK(out.dst_unused == s.unused);
  }
  std::vector<int64_t> dpp = {0x153, 0xa, 0x3, 1};  // row_newbcast:3 row_mask:0xa bank_mask:0x3 bound_ctrl
  emu::LaneControls out;
  REQUIRE(emu::take_lane_controls(emu::LaneForm::Dpp, 2, dpp, out).empty());
  CHECK(dpp.empty());
  CHECK((out.dpp_ctrl == 0x153 && out.row_mask == 0xa && out.bank_mask == 0x3 && out.bound_ctrl));
}

TEST_CASE("SDWA v_cvt_f32_fp8 / v_cvt_f32_bf8: src0_sel picks the byte that is converted", "[emulator][sdwa]") {
  // Lane l holds the codes 4l .. 4l+3 in bytes 0..3: all 256 codes over the wave.
  const auto codes = [](uint32_t l) { return (4 * l) | (4 * l + 1) << 8 | (4 * l + 2) << 16 | (4 * l + 3) << 24; };
  std::string body;
  for (int sel = 0; sel < 6; ++sel) {
    body += fmt::format("  v_cvt_f32_fp8_sdwa v{}, v10 src0_sel:{}\n", 20 + sel, kSelects[sel]);
    body += fmt::format("  v_cvt_f32_bf8_sdwa v{}, v10 src0_sel:{}\n", 30 + sel, kSelects[sel]);
  }
  const auto out = run_lanes(body, {codes}, {20, 21, 22, 23, 24, 25, 30, 31, 32, 33, 34, 35});
  // OCP E4M3 (bias 7, S.1111.111 NaN, no infinities) and E5M2 (bias 15, IEEE specials), subnormals kept.
  auto fp8 = [](uint32_t c) {
    const int e = (c >> 3) & 15, m = c & 7;
    if (e == 15 && m == 7) return std::nanf("");
    const float v = e ? std::ldexp(float(8 + m), e - 10) : std::ldexp(float(m), -9);
    return c & 0x80 ? -v : v;
  };
  auto bf8 = [](uint32_t c) {
    const int e = (c >> 2) & 31, m = c & 3;
    if (e == 31) return m ? std::nanf("") : (c & 0x80 ? -INFINITY : INFINITY);
    const float v = e ? std::ldexp(float(4 + m), e - 17) : std::ldexp(float(m), -16);
    return c & 0x80 ? -v : v;
  };
  // The conversion's NaN sign is its own business (docs/emulator.md); any NaN matches a NaN code.
  auto same = [](uint32_t got, float want) { return std::isnan(want) ? std::isnan(f32(got)) : got == bits(want); };
  for (int sel = 0; sel < 6; ++sel) {
    for (uint32_t l = 0; l < 64; ++l) {
      const uint32_t code = selected(codes(l), sel, false) & 0xff;  // the low byte of the selected field
      INFO(kSelects[sel] << " lane " << l << " code 0x" << std::hex << code << " got 0x" << out[sel][l] << " / 0x"
                         << out[6 + sel][l]);
      REQUIRE(same(out[sel][l], fp8(code)));
      REQUIRE(same(out[6 + sel][l], bf8(code)));
    }
  }
}
