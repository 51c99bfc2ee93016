// Aperture registers and flat addressing: flat_load/store into the shared
// aperture go to LDS, into the private aperture to the lane's private segment
// (emulator_scratch_test.cpp), other addresses to global memory.
#include <catch2/catch.hpp>

#include "emulator_test_kernel.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

TEST_CASE("src_shared_base / src_private_base read the gfx9 aperture bases (32-bit reads give the low dword)",
          "[emulator][flat]") {
  std::string body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_mov_b64 s[6:7], src_shared_base
  s_mov_b64 s[8:9], src_private_base
  s_mov_b32 s10, src_shared_base
  s_mov_b32 s11, 0x1234
  s_add_u32 s11, s11, src_private_base
  v_mov_b32 v1, src_shared_base
  v_mov_b32 v2, 0
  s_waitcnt lgkmcnt(0)
)";
  for (int r = 6; r <= 11; ++r)
    body += fmt::format("  v_mov_b32 v3, s{}\n  global_store_dword v2, v3, s[4:5] offset:{}\n", r, 4 * (r - 6));
  body += "  global_store_dword v2, v1, s[4:5] offset:24\n  s_endpgm\n";
  auto k = TestKernel::build(body);
  std::vector<uint32_t> out(7, 0xffffffff);
  Args args;
  args.add(out);
  run(k, args.dispatch(1, 64), instant());
  CHECK(out == std::vector<uint32_t>{0, 0x10000, 0, 0x20000, 0, 0x1234, 0});
}

TEST_CASE("flat_load/flat_store reach LDS through the shared aperture and global memory elsewhere",
          "[emulator][flat]") {
  std::string body = R"(
  s_load_dwordx4 s[4:7], s[0:1], 0
  s_mov_b64 s[8:9], src_shared_base
  v_lshlrev_b32 v2, 2, v0
  v_lshlrev_b32 v3, 4, v0
  s_waitcnt lgkmcnt(0)
  // LDS through flat: v[10:11] = shared base + 4 * lane
  v_mov_b32 v10, v2
  v_mov_b32 v11, s9
  v_add_u32 v12, 0x100, v0
  flat_store_dword v[10:11], v12 offset:16
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v13, v2 offset:16
  v_add_u32 v14, 0x200, v0
  ds_write_b32 v2, v14 offset:512
  s_waitcnt lgkmcnt(0)
  v_add_u32 v10, 0x200, v10
  flat_load_dword v15, v[10:11]
  s_waitcnt lgkmcnt(0)
  // global through flat: x4 load of in[4 lane ...], dword store to out
  v_mov_b32 v21, s5
  v_add_co_u32 v20, vcc, s4, v3
  s_nop 1
  v_addc_co_u32 v21, vcc, 0, v21, vcc
  flat_load_dwordx4 v[24:27], v[20:21]
  v_mov_b32 v31, s7
  v_add_co_u32 v30, vcc, s6, v2
  s_nop 1
  v_addc_co_u32 v31, vcc, 0, v31, vcc
  s_waitcnt vmcnt(0)
  v_add_u32 v28, v24, v27
  flat_store_dword v[30:31], v28
  flat_store_dword v[30:31], v13 offset:256
  flat_store_dword v[30:31], v15 offset:512
  s_waitcnt vmcnt(0)
  s_endpgm
)";
  KernelShape shape;
  shape.lds = 1024;
  auto k = TestKernel::build(body, shape);
  std::vector<uint32_t> in(256), out(3 * 64, 0);
  for (uint32_t i = 0; i < in.size(); ++i) in[i] = 1000 + 3 * i;
  Args args;
  args.add(in);
  args.add(out);
  auto stats = run(k, args.dispatch(1, 64), randomized(5));
  CHECK(race_text(stats).empty());
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    CHECK(out[l] == in[4 * l] + in[4 * l + 3]);
    CHECK(out[64 + l] == 0x100 + l);  // flat store to LDS, read back by ds_read
    CHECK(out[128 + l] == 0x200 + l);  // ds_write, read back by flat_load
  }
}

TEST_CASE("a flat load from LDS is counted by lgkmcnt: reading its result without the wait races", "[emulator][flat]") {
  std::string body = R"(
  s_mov_b64 s[8:9], src_shared_base
  v_lshlrev_b32 v10, 2, v0
  v_mov_b32 v11, s9
  flat_load_dword v12, v[10:11]
  s_waitcnt vmcnt(0)
  v_add_u32 v13, 1, v12
  s_endpgm
)";
  KernelShape shape;
  shape.lds = 256;
  auto k = TestKernel::build(body, shape);
  Args args;
  auto stats = run(k, args.dispatch(1, 64), randomized(1));
  CHECK_THAT(race_text(stats), Catch::Contains("lgkmcnt"));
}

TEST_CASE("a flat access into the private aperture of a kernel without a private segment is out of bounds",
          "[emulator][flat]") {
  std::string body = R"(
  s_mov_b64 s[8:9], src_private_base
  v_mov_b32 v10, 0
  v_mov_b32 v11, s9
  flat_load_dword v12, v[10:11]
  s_waitcnt vmcnt(0) lgkmcnt(0)
  s_endpgm
)";
  auto k = TestKernel::build(body);
  Args args;
  CHECK_THAT(test::error_of([&] { run(k, args.dispatch(1, 64), instant()); }),
             Catch::Contains("lane 0: private access of 4 bytes at 0x0 is outside the lane's 0 bytes"));
}
