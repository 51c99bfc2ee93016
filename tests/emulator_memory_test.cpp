// MUBUF (incl. out-of-range rules and LDS-DMA addressing), global and DS access.
#include <catch2/catch.hpp>

#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// s[8:11] = V# over the buffer whose pointer is kernarg dword pair `arg`, with
// num_records = `records`.
std::string make_resource(int first_sgpr, int arg, uint32_t records) {
  return fmt::format(R"(
  s_load_dwordx2 s[{0}:{1}], s[0:1], {2}
  s_waitcnt lgkmcnt(0)
  s_and_b32 s{1}, s{1}, 0xffff
  s_mov_b32 s{3}, {4}
  s_mov_b32 s{5}, 0x00020000
)",
                     first_sgpr, first_sgpr + 1, 8 * arg, first_sgpr + 2, records, first_sgpr + 3);
}

std::vector<uint32_t> iota_buffer(size_t n, uint32_t start) {
  std::vector<uint32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + uint32_t(i);
  return v;
}

}  // namespace

TEST_CASE("buffer loads and stores follow the V# range: out-of-range loads give 0, stores are dropped", "[emulator]") {
  std::string body = make_resource(8, 0, 100) + make_resource(12, 1, 40) + R"(
  v_lshlrev_b32 v3, 2, v0
  v_lshlrev_b32 v4, 4, v0
  s_mov_b32 s16, 4
  buffer_load_dword v10, v3, s[8:11], 0 offen
  buffer_load_dwordx4 v[20:23], v4, s[8:11], 0 offen
  buffer_load_dword v11, v3, s[8:11], 0 offen offset:8
  buffer_load_dword v12, v3, s[8:11], s16 offen
  s_waitcnt vmcnt(0)
  buffer_store_dword v10, v3, s[12:15], 0 offen
  s_mov_b32 s13, s13
  s_load_dwordx2 s[4:5], s[0:1], 16
  s_waitcnt lgkmcnt(0)
)";
  for (int r : {11, 12, 20, 21, 22, 23})
    body += fmt::format("  global_store_dword v3, v{}, s[4:5]\n  s_add_u32 s4, s4, 256\n  s_addc_u32 s5, s5, 0\n", r);
  body += "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
  auto k = TestKernel::build(body);
  auto in = iota_buffer(256, 1000);
  std::vector<uint32_t> stored(64, 0xcafe);
  std::vector<uint32_t> out(6 * 64, 0xffffffff);
  Args args;
  args.add(in);
  args.add(stored);
  args.add(out);
  for (uint64_t seed : {1, 2}) {
    std::fill(stored.begin(), stored.end(), 0xcafe);
    run(k, args.dispatch(), randomized(seed));
    for (uint32_t l = 0; l < 64; ++l) {
      INFO("lane " << l);
      // num_records 40 on the store side: lanes 0..9 land, the rest are dropped.
      CHECK(stored[l] == (l < 10 ? in[l] : 0xcafeu));
      CHECK(out[0 * 64 + l] == (4 * l + 8 + 4 <= 100 ? in[l + 2] : 0u));  // instruction offset
      CHECK(out[1 * 64 + l] == (4 * l + 4 + 4 <= 100 ? in[l + 1] : 0u));  // soffset
      for (uint32_t d = 0; d < 4; ++d)  // range checked per dword
        CHECK(out[(2 + d) * 64 + l] == (16 * l + 4 * d + 4 <= 100 ? in[4 * l + d] : 0u));
    }
  }
}

TEST_CASE("LDS-DMA buffer loads write LDS at M0 + lane * size", "[emulator]") {
  std::string body = make_resource(8, 0, 4096) + R"(
  s_load_dwordx2 s[4:5], s[0:1], 8
  v_lshlrev_b32 v3, 2, v0
  v_lshlrev_b32 v4, 4, v0
  v_sub_u32 v5, 63, v0
  v_lshlrev_b32 v5, 4, v5
  s_mov_b32 m0, 256
  s_nop 0
  buffer_load_dwordx4 v5, s[8:11], 0 offen lds
  s_mov_b32 m0, 0
  s_nop 0
  buffer_load_dword v3, s[8:11], 0 offen lds
  s_waitcnt vmcnt(0)
  ds_read_b128 v[20:23], v4 offset:256
  v_sub_u32 v6, 63, v0
  v_lshlrev_b32 v6, 2, v6
  ds_read_b32 v24, v6
  s_waitcnt lgkmcnt(0)
)";
  for (int r : {20, 21, 22, 23, 24})
    body += fmt::format("  global_store_dword v3, v{}, s[4:5]\n  s_add_u32 s4, s4, 256\n  s_addc_u32 s5, s5, 0\n", r);
  body += "  s_endpgm\n";
  KernelShape shape;
  shape.lds = 2048;
  auto k = TestKernel::build(body, shape);
  auto in = iota_buffer(1024, 0);
  std::vector<uint32_t> out(5 * 64, 0xffffffff);
  Args args;
  args.add(in);
  args.add(out);
  auto stats = run(k, args.dispatch(), randomized(7));
  CHECK(stats.races.empty());
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    // lane l wrote LDS 256 + 16 l from global element (63 - l) * 4; read back by the same lane
    for (uint32_t d = 0; d < 4; ++d) CHECK(out[d * 64 + l] == in[(63 - l) * 4 + d]);
    // dword form: lane l wrote LDS 4 l = in[l]; lane l reads the slot of lane 63 - l
    CHECK(out[4 * 64 + l] == in[63 - l]);
  }
}

TEST_CASE("DS writes and reads (b32, b64, b128, read2/write2) round-trip through LDS", "[emulator]") {
  std::string body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  v_lshlrev_b32 v3, 2, v0
  v_lshlrev_b32 v4, 3, v0
  v_lshlrev_b32 v5, 4, v0
  v_add_u32 v10, 0x3e8, v0
  v_mul_lo_u32 v12, v0, 3
  v_add_u32 v13, 1, v12
  v_add_u32 v14, 2, v12
  v_mov_b32 v15, v0
  ds_write_b32 v3, v10
  ds_write_b64 v4, v[12:13] offset:2048
  ds_write_b128 v5, v[12:15] offset:1024
  ds_write2_b32 v3, v12, v14 offset0:128 offset1:192
  s_waitcnt lgkmcnt(0)
  v_add_u32 v6, 1, v0
  v_and_b32 v6, 63, v6
  v_lshlrev_b32 v7, 2, v6
  v_lshlrev_b32 v8, 3, v6
  v_lshlrev_b32 v9, 4, v6
  ds_read_b32 v20, v7
  ds_read_b64 v[22:23], v8 offset:2048
  ds_read_b128 v[24:27], v9 offset:1024
  ds_read2_b32 v[28:29], v7 offset0:128 offset1:192
  s_waitcnt lgkmcnt(0)
)";
  for (int r : {20, 22, 23, 24, 25, 26, 27, 28, 29})
    body += fmt::format("  global_store_dword v3, v{}, s[4:5]\n  s_add_u32 s4, s4, 256\n  s_addc_u32 s5, s5, 0\n", r);
  body += "  s_endpgm\n";
  KernelShape shape;
  shape.lds = 4096;
  auto k = TestKernel::build(body, shape);
  std::vector<uint32_t> out(9 * 64, 0xffffffff);
  Args args;
  args.add(out);
  auto stats = run(k, args.dispatch(), randomized(5));
  CHECK(stats.races.empty());
  for (uint32_t l = 0; l < 64; ++l) {
    uint32_t n = (l + 1) % 64;
    INFO("lane " << l);
    CHECK(out[0 * 64 + l] == 1000 + n);
    CHECK(out[1 * 64 + l] == 3 * n);
    CHECK(out[2 * 64 + l] == 3 * n + 1);
    CHECK(out[3 * 64 + l] == 3 * n);
    CHECK(out[4 * 64 + l] == 3 * n + 1);
    CHECK(out[5 * 64 + l] == 3 * n + 2);
    CHECK(out[6 * 64 + l] == n);
    CHECK(out[7 * 64 + l] == 3 * n);      // write2 offset0 128 dwords -> 512 bytes
    CHECK(out[8 * 64 + l] == 3 * n + 2);  // offset1 192 dwords -> 768 bytes
  }
}

// Regression: with instant completion a store re-applied the register write-back
// of the load before it, so v3 (set to 7 after the load) was stored as the
// loaded value by the second store.
TEST_CASE("a store does not repeat the previous load's register write-back", "[emulator]") {
  auto k = TestKernel::build(R"(
  s_load_dwordx4 s[4:7], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0
  global_load_dword v3, v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_mov_b32 v3, 7
  global_store_dword v1, v3, s[6:7]
  global_store_dword v1, v3, s[6:7] offset:256
  s_waitcnt vmcnt(0)
  s_endpgm
)");
  auto in = iota_buffer(64, 100);
  std::vector<uint32_t> out(128, 0);
  Args args;
  args.add(in);
  args.add(out);
  for (bool instant_mode : {true, false}) {
    std::fill(out.begin(), out.end(), 0u);
    run(k, args.dispatch(), instant_mode ? instant() : randomized(3));
    INFO("instant completion: " << instant_mode);
    CHECK(out == std::vector<uint32_t>(128, 7u));
  }
}

// ds_read_b64_tr_b16 / _b8 as kernels use them: per 16-lane block, lane s points
// at row s / G, columns n * (s % G).. of a row-major tile T of n rows x 16
// columns (n = 4 b16 or 8 bytes per lane, G = 16 / n lanes per row); lane i of
// the block then holds column i of T, row j in its element j. Each block's tile
// sits at its own LDS place, and the rows of a tile are not adjacent.
TEST_CASE("transposing LDS reads give each lane a column of its 16-lane block's tile", "[emulator]") {
  const std::string body = R"(
  s_load_dwordx4 s[4:7], s[0:1], 0
  s_load_dwordx2 s[8:9], s[0:1], 16
  v_lshlrev_b32 v1, 4, v0
  v_lshlrev_b32 v2, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_dwordx4 v[4:7], v1, s[4:5]
  global_load_dword v3, v2, s[6:7]
  s_waitcnt vmcnt(0)
  ds_write_b128 v1, v[4:7]
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b64_tr_b16 v[10:11], v3
  ds_read_b64_tr_b8 v[12:13], v3 offset:8
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v2, 2, v0
  global_store_dword v2, v10, s[8:9]
  global_store_dword v2, v11, s[8:9] offset:256
  global_store_dword v2, v12, s[8:9] offset:512
  global_store_dword v2, v13, s[8:9] offset:768
  s_endpgm
)";
  KernelShape shape;
  shape.lds = 1024;
  auto k = TestKernel::build(body, shape);
  std::vector<uint8_t> lds(1024);
  for (size_t i = 0; i < lds.size(); ++i) lds[i] = uint8_t(i * 37 + 11);
  // Block b's tile rows are 64 bytes apart, starting at 256 b; a b16 row is 32
  // bytes (4 lanes of 8), a byte row 16 (2 lanes of 8; the tr_b8 read adds 8).
  std::vector<uint32_t> address(64);
  for (int l = 0; l < 64; ++l) address[l] = 256 * (l / 16) + 64 * (l % 16 / 4) + 8 * (l % 4);
  std::vector<uint32_t> out(4 * 64);
  Args args;
  args.add(lds);
  args.add(address);
  args.add(out);
  auto stats = run(k, args.dispatch(), randomized(3));
  CHECK(stats.races.empty());
  for (int l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const int b = l / 16, i = l % 16;
    const uint64_t tr16 = out[l] | uint64_t(out[64 + l]) << 32, tr8 = out[128 + l] | uint64_t(out[192 + l]) << 32;
    for (int j = 0; j < 4; ++j) {  // b16: T row j is 32 bytes from lane 4 j's address
      const uint32_t at = 256 * b + 64 * j + 2 * i;
      CHECK(((tr16 >> (16 * j)) & 0xffff) == (lds[at] | lds[at + 1] << 8));
    }
    for (int j = 0; j < 8; ++j) {  // bytes: T row j from lane 2 j's address (+8), 16 bytes
      const int lane = 2 * j + i / 8;
      const uint32_t at = address[16 * b + lane] + 8 + i % 8;
      CHECK(((tr8 >> (8 * j)) & 0xff) == lds[at]);
    }
  }
}
