// Buffer resources with swizzle_enable / cache_swizzle and a stride: raw (offen)
// accesses stay linear, indexed ones use the swizzled layout of the ISA guide.
#include <catch2/catch.hpp>

#include "emulator_test_kernel.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

// s[8:11] = V# over kernarg buffer 0 with word1 |= stride_bits << 16, word2 = records, word3 = `word3`.
std::string resource(uint32_t stride_bits, uint32_t records, uint32_t word3) {
  return fmt::format(R"(
  s_load_dwordx4 s[8:11], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  s_mov_b64 s[4:5], s[10:11]
  s_and_b32 s9, s9, 0xffff
  s_or_b32 s9, s9, {}
  s_mov_b32 s10, {}
  s_mov_b32 s11, {}
)",
                     stride_bits << 16, records, word3);
}

std::vector<uint32_t> pattern(size_t n) {
  std::vector<uint32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = uint32_t(0x1000 + 7 * i);
  return v;
}

}  // namespace

TEST_CASE("raw offen buffer loads through a swizzle-enabled V# (HipKittens make_srsrc) address linearly",
          "[emulator][buffer_swizzle]") {
  // stride 256 | cache_swizzle | swizzle_enable, word3 = 0x110000 as HipKittens builds it.
  std::string body = resource(256 | 0x4000 | 0x8000, 4096, 0x110000) + R"(
  v_lshlrev_b32 v2, 2, v0
  v_lshlrev_b32 v3, 4, v0
  s_mov_b32 s12, 32
  buffer_load_dword v10, v2, s[8:11], s12 offen offset:8
  buffer_load_dwordx4 v[12:15], v3, s[8:11], 0 offen
  s_mov_b32 m0, 0
  s_nop 0
  buffer_load_dwordx4 v3, s[8:11], 0 offen offset:16 lds
  s_waitcnt vmcnt(0)
  ds_read_b128 v[16:19], v3 offset:16
  s_waitcnt lgkmcnt(0)
)";
  for (int r : {10, 12, 15, 16, 19})
    body += fmt::format("  global_store_dword v2, v{}, s[4:5]\n  s_add_u32 s4, s4, 256\n  s_addc_u32 s5, s5, 0\n", r);
  body += "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
  KernelShape shape;
  shape.lds = 2048;
  auto k = TestKernel::build(body, shape);
  auto in = pattern(1024);
  std::vector<uint32_t> out(5 * 64, 0);
  Args args;
  args.add(in);
  args.add(out);
  auto stats = run(k, args.dispatch(1, 64), randomized(3));
  CHECK(race_text(stats).empty());
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    CHECK(out[l] == in[(4 * l + 8 + 32) / 4]);
    CHECK(out[64 + l] == in[4 * l]);
    CHECK(out[128 + l] == in[4 * l + 3]);
    CHECK(out[192 + l] == in[4 * l + 4]);
    CHECK(out[256 + l] == in[4 * l + 7]);
  }
}

TEST_CASE("indexed loads through a swizzled V# follow the ISA's swizzled buffer addressing",
          "[emulator][buffer_swizzle]") {
  // element_size = 2 << word3[20:19], index_stride = 8 << word3[22:21].
  for (auto [esize_field, istride_field, stride] : {std::tuple{1u, 0u, 16u}, {3u, 1u, 48u}, {2u, 3u, 24u}}) {
    uint32_t element = 2u << esize_field, index_stride = 8u << istride_field;
    INFO("element " << element << " index_stride " << index_stride << " stride " << stride);
    uint32_t word3 = 0x20000 | (esize_field << 19) | (istride_field << 21);
    std::string body = resource(stride | 0x8000, 64, word3) + R"(
  v_lshlrev_b32 v2, 2, v0
  v_mov_b32 v6, v0
  v_and_b32 v7, 3, v0
  v_lshlrev_b32 v7, 2, v7
  s_mov_b32 s12, 4
  buffer_load_dword v10, v6, s[8:11], 0 idxen offset:4
  buffer_load_dword v11, v[6:7], s[8:11], s12 idxen offen
  s_waitcnt vmcnt(0)
  global_store_dword v2, v10, s[4:5]
  global_store_dword v2, v11, s[4:5] offset:256
  s_waitcnt vmcnt(0)
  s_endpgm
)";
    auto k = TestKernel::build(body);
    auto in = pattern(8192);
    std::vector<uint32_t> out(128, 0);
    Args args;
    args.add(in);
    args.add(out);
    run(k, args.dispatch(1, 64), instant());
    auto swizzled = [&](uint32_t index, uint32_t offset) {
      uint32_t index_msb = index / index_stride, index_lsb = index % index_stride;
      uint32_t offset_msb = offset / element, offset_lsb = offset % element;
      return (index_msb * stride + offset_msb * element) * index_stride + index_lsb * element + offset_lsb;
    };
    for (uint32_t l = 0; l < 64; ++l) {
      INFO("lane " << l);
      CHECK(out[l] == in[swizzled(l, 4) / 4]);
      CHECK(out[64 + l] == in[(4 + swizzled(l, 4 * (l % 4))) / 4]);  // soffset is added after the swizzle
    }
  }
}

TEST_CASE("buffer resources with add_tid_enable are refused", "[emulator][buffer_swizzle]") {
  std::string body = resource(16, 64, 0x20000 | (1u << 23)) + R"(
  buffer_load_dword v10, off, s[8:11], 0
  s_waitcnt vmcnt(0)
  s_endpgm
)";
  auto k = TestKernel::build(body);
  auto in = pattern(64);
  Args args;
  args.add(in);
  args.add(in);
  CHECK_THAT(test::error_of([&] { run(k, args.dispatch(1, 64), instant()); }), Catch::Contains("add-tid"));
}
