// SALU, branches and SMEM on hand-written kernels.
#include <catch2/catch.hpp>

#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// Stores s<reg> to out[slot] (every lane writes the same value).
std::string store_sgpr(int reg, int slot) {
  return fmt::format("  v_mov_b32 v1, s{}\n  global_store_dword v2, v1, s[4:5] offset:{}\n", reg, 4 * slot);
}

}  // namespace

TEST_CASE("scalar ALU, compares and branches compute the expected values", "[emulator]") {
  std::string body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v2, 0
  // sum of 1..10 with a counted loop
  s_mov_b32 s10, 0
  s_mov_b32 s11, 1
loop:
  s_add_u32 s10, s10, s11
  s_add_u32 s11, s11, 1
  s_cmp_le_u32 s11, 10
  s_cbranch_scc1 loop
  // carries, shifts, logic, SOPK, select
  s_mov_b32 s12, 0xffffffff
  s_add_u32 s12, s12, 2
  s_addc_u32 s13, 0, 0
  s_lshl_b32 s14, 3, 4
  s_lshr_b32 s15, 0x80000000, 31
  s_ashr_i32 s16, 0x80000000, 31
  s_mov_b32 s17, 0xff0
  s_and_b32 s17, s17, 0x0ff
  s_mov_b32 s18, 0xf00
  s_or_b32 s18, s18, 15
  s_mov_b32 s19, 0xff
  s_xor_b32 s19, s19, 15
  s_mul_i32 s20, -3, 7
  s_movk_i32 s21, 0x8000
  s_mov_b32 s22, 40
  s_addk_i32 s22, 0x2
  s_mov_b32 s23, 0xabcd
  s_bfe_u32 s23, s23, (8 << 16) | 4
  s_cmp_eq_u32 s22, 42
  s_cselect_b32 s24, 11, 22
  s_cmpk_lt_i32 s20, -30
  s_cselect_b32 s25, 1, 2
  s_min_i32 s26, -5, 3
  s_max_u32 s27, 5, 3
  s_lshl2_add_u32 s28, 3, 100
  s_mov_b64 s[30:31], exec
  s_cmp_eq_u64 s[30:31], -1
  s_cselect_b32 s29, 7, 9
  // branch over a store that must not happen
  s_branch skip
  s_mov_b32 s10, 0xdead
skip:
  s_mov_b32 vcc_lo, 0
  s_mov_b32 vcc_hi, 0
  s_cbranch_vccnz bad
  s_cbranch_execz bad
  s_mov_b32 s32, 1
  s_branch done
bad:
  s_mov_b32 s32, 0xbad
done:
)";
  const int regs[] = {10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 32};
  for (size_t i = 0; i < std::size(regs); ++i) body += store_sgpr(regs[i], int(i));
  body += "  s_endpgm\n";
  auto k = TestKernel::build(body);
  std::vector<uint32_t> out(32, 0);
  Args args;
  args.add(out);
  run(k, args.dispatch(), instant());
  const uint32_t expected[] = {55, 1, 1, 48, 1, 0xffffffff, 0xf0, 0xf0f, 0xf0, uint32_t(-21), 0xffff8000u, 42, 0xbc,
                               11, 2, uint32_t(-5), 5, 112, 7, 1};
  for (size_t i = 0; i < std::size(expected); ++i) {
    INFO("slot " << i << " s" << regs[i]);
    CHECK(out[i] == expected[i]);
  }
}

TEST_CASE("SMEM loads read kernel arguments and buffers; s_buffer_load honours num_records", "[emulator]") {
  auto k = TestKernel::build(R"(
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dword s8, s[0:1], 0x10
  s_waitcnt lgkmcnt(0)
  s_load_dwordx8 s[12:19], s[4:5], 0x0
  s_mov_b32 s20, s4
  s_and_b32 s21, s5, 0xffff
  s_mov_b32 s22, 24
  s_mov_b32 s23, 0x00020000
  s_buffer_load_dwordx4 s[24:27], s[20:23], 0x10
  s_waitcnt lgkmcnt(0)
  v_mov_b32 v2, 0
  s_add_u32 s12, s12, s8
)" + [] {
    std::string s;
    for (int i = 0; i < 8; ++i) s += fmt::format("  v_mov_b32 v1, s{}\n  global_store_dword v2, v1, s[6:7] offset:{}\n", 12 + i, 4 * i);
    for (int i = 0; i < 4; ++i) s += fmt::format("  v_mov_b32 v1, s{}\n  global_store_dword v2, v1, s[6:7] offset:{}\n", 24 + i, 32 + 4 * i);
    return s;
  }() + "  s_endpgm\n");
  std::vector<uint32_t> in = {10, 11, 12, 13, 14, 15, 16, 17};
  std::vector<uint32_t> out(12, 0);
  Args args;
  args.add(in);
  args.add(out);
  args.add_u32(1000);
  auto d = args.dispatch();
  run(k, d, randomized(3));
  CHECK(out[0] == 1010);
  for (int i = 1; i < 8; ++i) CHECK(out[i] == in[i]);
  // bytes 16..23 are inside num_records = 24, bytes 24..31 are not
  CHECK(out[8] == 14);
  CHECK(out[9] == 15);
  CHECK(out[10] == 0);
  CHECK(out[11] == 0);
}
