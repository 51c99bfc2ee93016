// Cases where the emulator's fast paths must behave exactly as the per-dword,
// per-lane paths they shortcut: outputs, race and hazard reports, and errors.
#include <catch2/catch.hpp>

#include "emulator_test_kernel.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// s[8:11] = V# over kernarg buffer 0 with num_records = 4096.
const char* kResource = R"(
  s_load_dwordx2 s[8:9], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  s_and_b32 s9, s9, 0xffff
  s_mov_b32 s10, 4096
  s_mov_b32 s11, 0x00020000
)";

std::string lds_dma_past_the_end(const char* load) {
  return test::error_of([&] {
    std::string body = std::string(kResource) + fmt::format(R"(
  v_lshlrev_b32 v4, 4, v0
  s_mov_b32 m0, 8
  s_nop 0
  {} v4, s[8:11], 0 offen lds
  s_waitcnt vmcnt(0)
  s_endpgm
)",
                                                                  load);
    KernelShape shape;
    shape.lds = 1024;
    auto k = TestKernel::build(body, shape);
    std::vector<uint32_t> in(1024, 7);
    Args args;
    args.add(in);
    run(k, args.dispatch(), randomized(1));
  });
}

}  // namespace

// Lane 63 writes LDS at 8 + 63 * 16 = 1016: its third dword (0x400) is the first
// one past the 1024 bytes, and the error names that dword, as for the dword form.
TEST_CASE("an LDS-DMA x3/x4 load past the end of LDS names the first dword outside it", "[emulator-review]") {
  for (const char* load : {"buffer_load_dwordx4", "buffer_load_dwordx3"}) {
    INFO(load);
    CHECK_THAT(lds_dma_past_the_end(load),
               Catch::Contains("LDS access of 4 bytes at 0x400 is outside the workgroup's 1024 bytes of LDS"));
  }
}

namespace {

// LDS dword i holds 0x1000 + i (4 KiB); global buffer 0 dword i holds 0x50000 + i.
// Every fast-path load writes a register it reads its address from, some with EXEC
// on even lanes only (odd lanes keep 0xdead0000 + register); v[4:22] are stored.
const char* kOverlappingLoads = R"(
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshlrev_b32 v1, 2, v0
  v_add_u32 v2, 0x1000, v0
  s_waitcnt lgkmcnt(0)
  s_mov_b32 s8, s4
  s_and_b32 s9, s5, 0xffff
  s_mov_b32 s10, 4096
  s_mov_b32 s11, 0x00020000
)";

std::vector<uint32_t> overlapping_loads(emu::EmulatorOptions options) {
  std::string body = kOverlappingLoads;
  for (int i = 0; i < 16; ++i) body += fmt::format("  ds_write_b32 v1, v2 offset:{}\n  v_add_u32 v2, 64, v2\n", 256 * i);
  for (int r = 4; r <= 22; ++r) body += fmt::format("  v_mov_b32 v{}, 0x{:x}\n", r, 0xdead0000u + r);
  body += R"(
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v4, 4, v0
  v_lshlrev_b32 v9, 3, v0
  v_lshlrev_b32 v12, 3, v0
  v_lshlrev_b32 v14, 3, v0
  v_lshlrev_b32 v16, 4, v0
  v_lshlrev_b32 v20, 3, v0
  v_add_u32 v22, 0x800, v1
  s_mov_b32 m0, 0x800
  s_nop 1
  ds_read_b128 v[4:7], v4 offset:16
  ds_read2_b64 v[8:11], v9 offset0:1 offset1:5
  ds_read_b64_tr_b16 v[12:13], v12
  buffer_load_dwordx4 v[16:19], v16, s[8:11], 0 offen
  buffer_load_dword v1, s[8:11], 0 offen lds
  s_mov_b32 exec_lo, 0x55555555
  s_mov_b32 exec_hi, 0x55555555
  ds_read_b64 v[14:15], v14
  buffer_load_dwordx2 v[20:21], v20, s[8:11], 0 offen offset:8
  s_mov_b64 exec, -1
  s_waitcnt vmcnt(0) lgkmcnt(0)
  ds_read_b32 v22, v22
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
)";
  for (int r = 4; r <= 22; ++r) body += store_and_advance(r, 1, 6);
  body += "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
  KernelShape shape;
  shape.lds = 4096;
  const TestKernel k = TestKernel::build(body, shape);
  std::vector<uint32_t> global(1024), out(19 * 64, 0);
  for (uint32_t i = 0; i < global.size(); ++i) global[i] = 0x50000 + i;
  Args args;
  args.add(global);
  args.add(out);
  run_race_free(k, args.dispatch(), options);
  return out;
}

uint32_t lds_dword(uint32_t i) { return 0x1000 + i; }
uint32_t lds_half(uint32_t byte) { return (lds_dword(byte / 4) >> (16 * (byte / 2 % 2))) & 0xffff; }

// The same, from the instructions' definitions.
std::vector<uint32_t> overlapping_loads_expected() {
  std::vector<uint32_t> out(19 * 64);
  auto at = [&](int reg, int lane) -> uint32_t& { return out[size_t(reg - 4) * 64 + lane]; };
  for (uint32_t l = 0; l < 64; ++l) {
    const bool even = l % 2 == 0;
    for (int d = 0; d < 4; ++d) at(4 + d, l) = lds_dword(4 * l + 4 + d);
    at(8, l) = lds_dword(2 * l + 2);
    at(9, l) = lds_dword(2 * l + 3);
    at(10, l) = lds_dword(2 * l + 10);
    at(11, l) = lds_dword(2 * l + 11);
    // Lane 16 b + 4 p + e: element e of lanes 16 b + p + 4 j, j = 0..3, each lane's 8 bytes at 8 lane.
    const uint32_t b = l / 16, p = (l % 16) / 4, e = l % 4;
    uint64_t tr = 0;
    for (uint32_t j = 0; j < 4; ++j) tr |= uint64_t(lds_half(8 * (16 * b + p + 4 * j) + 2 * e)) << (16 * j);
    at(12, l) = uint32_t(tr);
    at(13, l) = uint32_t(tr >> 32);
    at(14, l) = even ? lds_dword(2 * l) : 8 * l;
    at(15, l) = even ? lds_dword(2 * l + 1) : 0xdead000f;
    for (int d = 0; d < 4; ++d) at(16 + d, l) = 0x50000 + 4 * l + d;
    at(20, l) = even ? 0x50000 + 2 * l + 2 : 8 * l;
    at(21, l) = even ? 0x50000 + 2 * l + 3 : 0xdead0015;
    at(22, l) = 0x50000 + l;  // the LDS-DMA block at 0x800
  }
  return out;
}

}  // namespace

TEST_CASE("fast-path loads into their own address registers, full and half EXEC, every completion mode",
          "[emulator-review]") {
  const std::vector<uint32_t> want = overlapping_loads_expected();
  emu::EmulatorOptions one_thread = instant();
  one_thread.threads = 1;
  for (const emu::EmulatorOptions& options : {instant(), one_thread, randomized(1), randomized(2), randomized(3)}) {
    const std::vector<uint32_t> got = overlapping_loads(options);
    for (size_t i = 0; i < want.size(); ++i) {
      INFO("v" << 4 + i / 64 << " lane " << i % 64 << (options.instant_completion ? " instant" : " randomized"));
      REQUIRE(got[i] == want[i]);
    }
  }
}
