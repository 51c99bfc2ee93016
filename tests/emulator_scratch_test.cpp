// Private (scratch) memory: every scratch_* addressing form, sub-dword and d16
// forms, flat accesses through the private aperture, per-lane isolation, the
// private segment size SGPR and bounds errors. Expected values come from the
// per-lane byte image each test builds from the instructions' definitions.
#include <catch2/catch.hpp>

#include <array>

#include "cdna4/error.hpp"
#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

constexpr uint32_t kValueStep = 0x9e3779b1u;
uint32_t value_constant(int i) { return uint32_t(i + 1) * 0x2545f491u; }
uint32_t lane_value(uint32_t lane, int i) { return lane * kValueStep + value_constant(i); }

// v(10+i) = lane * kValueStep + value_constant(i), i = 0..9 (lane = v0).
std::string lane_values() {
  std::string s = fmt::format("  s_mov_b32 s8, 0x{:x}\n  v_mul_lo_u32 v9, v0, s8\n", kValueStep);
  for (int i = 0; i < 10; ++i) s += fmt::format("  s_mov_b32 s9, 0x{:x}\n  v_add_u32 v{}, s9, v9\n", value_constant(i), 10 + i);
  return s;
}

uint32_t sext8(uint32_t b) { return uint32_t(int32_t(int8_t(uint8_t(b)))); }
uint32_t sext16(uint32_t h) { return uint32_t(int32_t(int16_t(uint16_t(h)))); }

}  // namespace

TEST_CASE("scratch loads and stores in every addressing form and width", "[emulator][scratch]") {
  KernelShape shape;
  shape.private_bytes = 48;
  std::string body = "  s_load_dwordx2 s[6:7], s[0:1], 0x0\n" + lane_values() + R"(
  v_mov_b32 v3, 16
  s_mov_b32 s5, 20
  scratch_store_dwordx4 off, v[10:13], off
  scratch_store_dwordx2 v3, v[14:15], off
  scratch_store_dword off, v16, s5 offset:4
  s_mov_b32 s5, 12
  scratch_store_dword v3, v17, s5 offset:4
  scratch_store_dword off, v10, off offset:28
  scratch_store_short off, v18, off offset:36
  scratch_store_short_d16_hi off, v18, off offset:38
  scratch_store_byte off, v19, off offset:40
  scratch_store_byte_d16_hi off, v19, off offset:41
  scratch_store_short_d16_hi off, v19, off offset:42
  v_mov_b32 v4, 0
  scratch_load_dwordx4 v[20:23], v4, off offset:4
  s_mov_b32 s5, 8
  scratch_load_dwordx3 v[24:26], off, s5 offset:16
  scratch_load_dword v27, off, off offset:36
  scratch_load_sbyte v28, off, off offset:40
  scratch_load_ubyte v29, off, off offset:41
  scratch_load_sshort v30, off, off offset:42
  scratch_load_ushort v31, v3, s5 offset:18
  s_mov_b32 s9, 0x12345678
  v_mov_b32 v32, s9
  v_mov_b32 v33, s9
  v_mov_b32 v34, s9
  v_mov_b32 v35, s9
  scratch_load_ubyte_d16 v32, off, off offset:40
  scratch_load_sbyte_d16_hi v33, off, off offset:41
  scratch_load_short_d16 v34, off, off offset:42
  scratch_load_short_d16_hi v35, off, off offset:36
  s_waitcnt vmcnt(0)
  v_lshlrev_b32 v5, 6, v0
  s_waitcnt lgkmcnt(0)
  global_store_dwordx4 v5, v[20:23], s[6:7]
  global_store_dwordx4 v5, v[24:27], s[6:7] offset:16
  global_store_dwordx4 v5, v[28:31], s[6:7] offset:32
  global_store_dwordx4 v5, v[32:35], s[6:7] offset:48
  s_endpgm
)";
  TestKernel k = TestKernel::build(body, shape);
  constexpr uint32_t kThreads = 100;  // the second wave has 36 lanes
  for (bool instant_mode : {true, false}) {
    std::vector<uint32_t> out(128 * 16, 0xdeadbeef);
    Args args;
    args.add(out);
    auto stats = run(k, args.dispatch(1, kThreads), instant_mode ? instant() : randomized(3));
    CHECK(stats.races.empty());
    for (uint32_t l = 0; l < 128; ++l) {
      INFO("lane " << l << (instant_mode ? " instant" : " randomized"));
      const uint32_t* got = &out[l * 16];
      if (l >= kThreads) {
        for (int i = 0; i < 16; ++i) CHECK(got[i] == 0xdeadbeef);
        continue;
      }
      // The lane's private bytes as the stores define them.
      std::array<uint8_t, 48> mem{};
      auto put = [&](uint32_t at, uint32_t v, uint32_t n) { std::memcpy(&mem[at], &v, n); };
      for (int d = 0; d < 4; ++d) put(4 * d, lane_value(l, d), 4);
      put(16, lane_value(l, 4), 4);
      put(20, lane_value(l, 5), 4);
      put(24, lane_value(l, 6), 4);
      put(32, lane_value(l, 7), 4);
      put(28, lane_value(l, 0), 4);
      put(36, lane_value(l, 8) & 0xffff, 2);
      put(38, lane_value(l, 8) >> 16, 2);
      put(40, lane_value(l, 9) & 0xff, 1);
      put(41, (lane_value(l, 9) >> 16) & 0xff, 1);
      put(42, lane_value(l, 9) >> 16, 2);
      auto dword = [&](uint32_t at) {
        uint32_t v;
        std::memcpy(&v, &mem[at], 4);
        return v;
      };
      auto half = [&](uint32_t at) { return uint32_t(mem[at] | mem[at + 1] << 8); };
      const uint32_t want[16] = {
          dword(4), dword(8), dword(12), dword(16),             // dwordx4 vaddr 0 + 4
          dword(24), dword(28), dword(32), dword(36),           // dwordx3 saddr 8 + 16, dword 36
          sext8(mem[40]), mem[41], sext16(half(42)), half(42),  // sbyte, ubyte, sshort, ushort (16 + 8 + 18)
          0x12340000u | mem[40],                                // ubyte_d16: low half, zero-extended byte
          (sext8(mem[41]) << 16) | 0x5678u,                     // sbyte_d16_hi: high half, sign-extended byte
          0x12340000u | half(42),                               // short_d16
          (half(36) << 16) | 0x5678u,                           // short_d16_hi
      };
      for (int i = 0; i < 16; ++i) CHECK(got[i] == want[i]);
    }
  }
}

TEST_CASE("flat accesses in the private aperture reach the lane's private segment", "[emulator][scratch][flat]") {
  KernelShape shape;
  shape.private_bytes = 16;
  std::string body = "  s_load_dwordx2 s[6:7], s[0:1], 0x0\n" + lane_values() + R"(
  s_mov_b64 s[10:11], src_private_base
  v_mov_b32 v2, 8
  v_mov_b32 v3, s11
  flat_store_dword v[2:3], v10
  flat_store_byte v[2:3], v11 offset:4
  flat_store_short_d16_hi v[2:3], v11 offset:6
  scratch_load_dword v20, off, off offset:8
  flat_load_dword v21, v[2:3] offset:4
  v_mov_b32 v22, v12
  flat_load_sbyte_d16_hi v22, v[2:3] offset:4
  scratch_store_dword off, v13, off
  v_mov_b32 v4, 0
  v_mov_b32 v5, s11
  flat_load_dword v23, v[4:5]
  s_waitcnt vmcnt(0) lgkmcnt(0)
  v_lshlrev_b32 v5, 4, v0
  global_store_dwordx4 v5, v[20:23], s[6:7]
  s_endpgm
)";
  TestKernel k = TestKernel::build(body, shape);
  std::vector<uint32_t> out(64 * 4, 0);
  Args args;
  args.add(out);
  auto stats = run(k, args.dispatch(1, 64), randomized(5));
  CHECK(stats.races.empty());
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const uint32_t b11 = lane_value(l, 1);
    const uint32_t at4 = (b11 & 0xff) | ((b11 >> 16) << 16);  // byte 4, bytes 6..7; byte 5 never written (0)
    CHECK(out[4 * l + 0] == lane_value(l, 0));
    CHECK(out[4 * l + 1] == at4);
    CHECK(out[4 * l + 2] == ((sext8(at4 & 0xff) << 16) | (lane_value(l, 2) & 0xffff)));
    CHECK(out[4 * l + 3] == lane_value(l, 3));
  }
}

TEST_CASE("a lane's private segment is its own", "[emulator][scratch]") {
  // Every lane of four waves stores its id at the same private address; each
  // must read back its own value, in both completion modes.
  KernelShape shape;
  shape.private_bytes = 4;
  const std::string body = R"(
  s_load_dwordx2 s[6:7], s[0:1], 0x0
  v_xor_b32 v1, 0x5a5a0000, v0
  scratch_store_dword off, v1, off
  v_mov_b32 v1, 0
  scratch_load_dword v2, off, off
  v_lshlrev_b32 v3, 2, v0
  s_waitcnt vmcnt(0) lgkmcnt(0)
  global_store_dword v3, v2, s[6:7]
  s_endpgm
)";
  TestKernel k = TestKernel::build(body, shape);
  for (bool instant_mode : {true, false}) {
    std::vector<uint32_t> out(256, 0);
    Args args;
    args.add(out);
    auto stats = run(k, args.dispatch(1, 256), instant_mode ? instant() : randomized(9));
    CHECK(stats.races.empty());
    for (uint32_t l = 0; l < 256; ++l) CHECK(out[l] == (0x5a5a0000u ^ l));
  }
}

TEST_CASE("the private segment size SGPR holds the per-lane size", "[emulator][scratch]") {
  KernelShape shape;
  shape.private_bytes = 40;
  shape.private_segment_size_sgpr = true;
  TestKernel k = TestKernel::build(R"(
  s_load_dwordx2 s[6:7], s[0:1], 0x0
  v_mov_b32 v1, s2
  v_mov_b32 v2, 0
  s_waitcnt lgkmcnt(0)
  global_store_dword v2, v1, s[6:7]
  s_endpgm
)",
                                   shape);
  std::vector<uint32_t> out(1, 0);
  Args args;
  args.add(out);
  emu::Dispatch d = args.dispatch(1, 64);
  run(k, d, instant());
  CHECK(out[0] == 40);
  d.dynamic_private = 6;  // rounded up to whole dwords
  run(k, d, instant());
  CHECK(out[0] == 48);
}

TEST_CASE("private accesses outside the lane's segment stop the run", "[emulator][scratch]") {
  KernelShape shape;
  shape.private_bytes = 64;
  auto run_body = [&](const std::string& body) {
    TestKernel k = TestKernel::build(body + "  s_endpgm\n", shape);
    std::vector<uint32_t> out(64, 0);
    Args args;
    args.add(out);
    run(k, args.dispatch(1, 64), randomized(1));
  };
  // Lane 5 alone addresses 64..67, one dword past its segment: it must not read lane 6's bytes.
  CHECK_THROWS_WITH(run_body(R"(
  v_mov_b32 v1, 60
  v_cmp_eq_u32 vcc, 5, v0
  v_cndmask_b32 v1, v1, 64, vcc
  scratch_load_dword v2, v1, off
)"),
                    Catch::Contains("lane 5: private access of 4 bytes at 0x40 is outside the lane's 64 bytes"));
  CHECK_THROWS_WITH(run_body("  scratch_store_dwordx2 off, v[0:1], off offset:60\n"),
                    Catch::Contains("private access of 8 bytes at 0x3c"));
  CHECK_THROWS_WITH(run_body("  scratch_load_dword v2, off, off offset:-4\n"), Catch::Contains("private access"));
  CHECK_THROWS_WITH(run_body(R"(
  s_mov_b64 s[10:11], src_private_base
  v_mov_b32 v2, 64
  v_mov_b32 v3, s11
  flat_load_dword v4, v[2:3]
)"),
                    Catch::Contains("private access of 4 bytes at 0x40"));
}

TEST_CASE("private segment buffer and flat scratch init SGPRs are refused with a private segment",
          "[emulator][scratch]") {
  KernelShape shape;
  shape.private_bytes = 16;
  TestKernel k = TestKernel::build("  s_endpgm\n", shape);
  Args args;
  CHECK_NOTHROW(run(k, args.dispatch(1, 64), instant()));
  for (uint16_t bit : {uint16_t(0x1), uint16_t(0x20)}) {
    KernelInfo info = k.info;
    info.kernel_code_properties |= bit;  // the assembler refuses these directives on gfx950
    CHECK_THROWS_WITH(emu::run(k.code, info, args.dispatch(1, 64), instant()),
                      Catch::Contains("architected flat scratch"));
  }
}
