// VALU integer/float operations, EXEC masking, VOP3 modifiers, AGPR moves.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "cdna4/error.hpp"
#include "emulator_test_kernel.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

struct LaneCheck {
  const char* what;
  int reg;
  std::function<uint32_t(uint32_t lane)> expected;
};

uint32_t bf16_of(float f) { return bits(f) >> 16; }  // exact for the small values used here

}  // namespace

TEST_CASE("vector ALU operations give the expected value in every lane", "[emulator]") {
  const std::string body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  v_lshlrev_b32 v3, 2, v0
  v_mov_b32 v1, 0
  v_add_u32 v10, 7, v0
  v_subrev_u32 v11, 5, v0
  v_mul_lo_u32 v12, v0, v0
  v_mad_u32_u24 v13, v0, 3, v0
  v_lshl_add_u32 v14, v0, 2, 1
  v_and_or_b32 v15, v0, 15, 64
  v_mov_b32 v20, 2
  v_cmp_gt_u32 vcc, 32, v0
  v_cndmask_b32 v16, 1, v20, vcc
  v_bfe_u32 v17, v0, 2, 3
  s_mov_b32 s20, 0x0c0c0004
  v_perm_b32 v18, v0, v14, s20
  v_cvt_f32_u32 v19, v0
  v_fma_f32 v21, v19, 0.5, -1.0
  v_mul_f32_e64 v22, -v21, 0.5 mul:2
  v_add_f32_e64 v23, v21, 0 clamp
  v_add_f32_e64 v24, |v21|, -v19
  v_cvt_u32_f32 v25, v21
  v_cvt_pk_bf16_f32 v26, v19, v21
  v_add_co_u32 v27, vcc, -1, v0
  v_mov_b32 v29, 0
  v_addc_co_u32 v28, vcc, 0, v29, vcc
  v_cmp_lt_u32_e64 s[22:23], v0, 10
  v_cndmask_b32_e64 v30, 0, 1, s[22:23]
  v_lshlrev_b64 v[32:33], 30, v[0:1]
  v_readfirstlane_b32 s24, v14
  v_mov_b32 v34, s24
  s_mov_b32 exec_lo, 0xffff
  s_mov_b32 exec_hi, 0
  v_mov_b32 v35, 77
  s_mov_b64 exec, -1
  v_accvgpr_write_b32 a0, v0
  v_accvgpr_mov_b32 a1, a0
  v_accvgpr_read_b32 v36, a1
  v_xor_b32 v37, v0, v14
  v_lshrrev_b32 v38, 1, v0
  v_max_f32 v39, v21, 2.0
  s_waitcnt lgkmcnt(0)
)";
  const LaneCheck checks[] = {
      {"v_add_u32", 10, [](uint32_t l) { return l + 7; }},
      {"v_subrev_u32", 11, [](uint32_t l) { return l - 5; }},
      {"v_mul_lo_u32", 12, [](uint32_t l) { return l * l; }},
      {"v_mad_u32_u24", 13, [](uint32_t l) { return 4 * l; }},
      {"v_lshl_add_u32", 14, [](uint32_t l) { return 4 * l + 1; }},
      {"v_and_or_b32", 15, [](uint32_t l) { return (l & 15) | 64; }},
      {"v_cndmask_b32 (vcc)", 16, [](uint32_t l) { return l < 32 ? 2u : 1u; }},
      {"v_bfe_u32", 17, [](uint32_t l) { return (l >> 2) & 7; }},
      {"v_perm_b32", 18, [](uint32_t l) { return l | (((4 * l + 1) & 0xff) << 8); }},
      {"v_cvt_f32_u32", 19, [](uint32_t l) { return bits(float(l)); }},
      {"v_fma_f32", 21, [](uint32_t l) { return bits(float(l) * 0.5f - 1.0f); }},
      {"v_mul_f32 neg + omod", 22, [](uint32_t l) { return bits(-(float(l) * 0.5f - 1.0f) * 0.5f * 2.0f); }},
      {"v_add_f32 clamp", 23, [](uint32_t l) { return bits(std::fmin(std::fmax(float(l) * 0.5f - 1.0f, 0.0f), 1.0f)); }},
      {"v_add_f32 abs/neg", 24, [](uint32_t l) { return bits(std::fabs(float(l) * 0.5f - 1.0f) - float(l)); }},
      {"v_cvt_u32_f32", 25, [](uint32_t l) { return l < 2 ? 0u : uint32_t(float(l) * 0.5f - 1.0f); }},
      {"v_cvt_pk_bf16_f32", 26, [](uint32_t l) { return bf16_of(float(l)) | (bf16_of(float(l) * 0.5f - 1.0f) << 16); }},
      {"v_add_co_u32", 27, [](uint32_t l) { return l - 1; }},
      {"v_addc_co_u32", 28, [](uint32_t l) { return l > 0 ? 1u : 0u; }},
      {"v_cmp_lt_u32_e64 + v_cndmask_b32_e64", 30, [](uint32_t l) { return l < 10 ? 1u : 0u; }},
      {"v_lshlrev_b64 lo", 32, [](uint32_t l) { return l << 30; }},
      {"v_lshlrev_b64 hi", 33, [](uint32_t l) { return l >> 2; }},
      {"v_readfirstlane_b32", 34, [](uint32_t) { return 1u; }},
      {"EXEC mask", 35, [](uint32_t l) { return l < 16 ? 77u : 0u; }},
      {"v_accvgpr write/mov/read", 36, [](uint32_t l) { return l; }},
      {"v_xor_b32", 37, [](uint32_t l) { return l ^ (4 * l + 1); }},
      {"v_lshrrev_b32", 38, [](uint32_t l) { return l >> 1; }},
      {"v_max_f32", 39, [](uint32_t l) { return bits(std::fmax(float(l) * 0.5f - 1.0f, 2.0f)); }},
  };
  std::string stores;
  for (const auto& c : checks)
    stores += fmt::format("  global_store_dword v3, v{}, s[4:5]\n  s_add_u32 s4, s4, 256\n  s_addc_u32 s5, s5, 0\n", c.reg);
  KernelShape shape;
  shape.vgprs = 64;
  shape.accum_offset = 48;
  auto k = TestKernel::build(body + stores + "  s_endpgm\n", shape);
  std::vector<uint32_t> out(64 * std::size(checks), 0);
  Args args;
  args.add(out);
  run(k, args.dispatch(), randomized(1));
  for (size_t i = 0; i < std::size(checks); ++i)
    for (uint32_t l = 0; l < 64; ++l) {
      INFO(checks[i].what << " lane " << l);
      REQUIRE(out[i * 64 + l] == checks[i].expected(l));
    }
}

TEST_CASE("integer VOP3 with clamp is rejected, not ignored", "[emulator]") {
  auto k = TestKernel::build("  v_add_u32_e64 v1, v0, v0 clamp\n  s_endpgm\n");
  Args args;
  const std::string m = cdna4::test::error_of([&] { run(k, args.dispatch(), instant()); });
  CHECK(m.find("V_ADD_U32_e64") != std::string::npos);
  CHECK(m.find("clamp") != std::string::npos);
  CHECK(m.find("0x0") != std::string::npos);
}

TEST_CASE("an unknown instruction stops the run with its name and address", "[emulator]") {
  auto k = TestKernel::build("  s_nop 0\n  v_log_legacy_f32 v1, v0\n  s_endpgm\n");
  Args args;
  const std::string m = cdna4::test::error_of([&] { run(k, args.dispatch(), instant()); });
  INFO(m);
  CHECK(m.find("V_LOG_LEGACY_F32") != std::string::npos);
  CHECK(m.find("v_log_legacy_f32") != std::string::npos);
  CHECK(m.find("at 0x4") != std::string::npos);
  CHECK(m.find("unsupported instruction") != std::string::npos);
}

TEST_CASE("a global access outside every region is an error", "[emulator]") {
  auto k = TestKernel::build(R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v3, 2, v0
  global_load_dword v1, v3, s[4:5] offset:256
  s_waitcnt vmcnt(0)
  s_endpgm
)");
  std::vector<uint32_t> small(64);
  Args args;
  args.add(small);
  CHECK_THROWS_WITH(run(k, args.dispatch(), instant()), Catch::Contains("outside every memory region"));
}
