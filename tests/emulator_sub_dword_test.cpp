// Byte and short loads and stores of every family (global vaddr / saddr,
// buffer offen / idxen / bothen / soffset, flat, DS) including the d16 forms
// that fill one half of the destination and keep the other. Expected values
// are computed here from the input bytes and the definitions: u = zero-extend,
// s/i = sign-extend, d16 = the 16-bit result in the low half, d16_hi in the high half.
#include <catch2/catch.hpp>

#include <functional>

#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

constexpr uint32_t kPreset = 0x12345678;  // the destination's value before a d16 load

std::vector<uint8_t> input_bytes() {
  std::vector<uint8_t> in(256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint8_t(i * 37 + 0x81);  // half the bytes have bit 7 set
  return in;
}

uint32_t sext8(uint32_t b) { return uint32_t(int32_t(int8_t(uint8_t(b)))); }
uint32_t sext16(uint32_t h) { return uint32_t(int32_t(int16_t(uint16_t(h)))); }
uint32_t low_half(uint32_t v16) { return (kPreset & 0xffff0000u) | (v16 & 0xffff); }
uint32_t high_half(uint32_t v16) { return (kPreset & 0xffffu) | (v16 << 16); }

struct LoadCase {
  std::string line;  // loads into v20
  std::function<uint32_t(uint32_t lane)> want;
};

}  // namespace

TEST_CASE("byte and short loads in every family and addressing form, with d16 halves", "[emulator][subdword]") {
  const std::vector<uint8_t> in = input_bytes();
  auto b = [&](uint32_t i) -> uint32_t { return i < in.size() ? in[i] : 0; };
  auto h = [&](uint32_t i) -> uint32_t { return b(i) | b(i + 1) << 8; };
  // v2 = 4 lane, v3 = lane, v[4:5] = (lane, 2), v7 = 4 lane + 200, v[10:11] = &in[4 lane];
  // s[12:15]: raw V# over in (256 bytes), s[16:19]: stride-4 V# over in (64 records), s20 = 8.
  const std::vector<LoadCase> cases = {
      {"global_load_ubyte v20, v2, s[4:5] offset:1", [&](uint32_t l) { return b(4 * l + 1); }},
      {"global_load_sbyte v20, v[10:11], off offset:1", [&](uint32_t l) { return sext8(b(4 * l + 1)); }},
      {"global_load_sbyte v20, v2, s[4:5] offset:3", [&](uint32_t l) { return sext8(b(4 * l + 3)); }},
      {"global_load_ubyte v20, v[10:11], off offset:3", [&](uint32_t l) { return b(4 * l + 3); }},
      {"global_load_ubyte_d16 v20, v2, s[4:5] offset:1", [&](uint32_t l) { return low_half(b(4 * l + 1)); }},
      {"global_load_ubyte_d16_hi v20, v[10:11], off offset:1", [&](uint32_t l) { return high_half(b(4 * l + 1)); }},
      {"global_load_sbyte_d16 v20, v2, s[4:5] offset:3", [&](uint32_t l) { return low_half(sext8(b(4 * l + 3))); }},
      {"global_load_sbyte_d16_hi v20, v[10:11], off offset:3",
       [&](uint32_t l) { return high_half(sext8(b(4 * l + 3))); }},
      {"global_load_short_d16 v20, v2, s[4:5] offset:2", [&](uint32_t l) { return low_half(h(4 * l + 2)); }},
      {"global_load_short_d16_hi v20, v[10:11], off offset:2", [&](uint32_t l) { return high_half(h(4 * l + 2)); }},
      {"buffer_load_ubyte v20, v2, s[12:15], 0 offen offset:1", [&](uint32_t l) { return b(4 * l + 1); }},
      {"buffer_load_sbyte v20, v3, s[16:19], 0 idxen offset:3", [&](uint32_t l) { return sext8(b(4 * l + 3)); }},
      {"buffer_load_sbyte_d16_hi v20, v[4:5], s[16:19], 0 idxen offen offset:1",
       [&](uint32_t l) { return high_half(sext8(b(4 * l + 3))); }},
      {"buffer_load_ubyte_d16 v20, off, s[12:15], s20 offset:5", [&](uint32_t) { return low_half(b(13)); }},
      {"buffer_load_short_d16 v20, v2, s[12:15], 0 offen offset:2", [&](uint32_t l) { return low_half(h(4 * l + 2)); }},
      {"buffer_load_short_d16_hi v20, v3, s[16:19], 0 idxen offset:2",
       [&](uint32_t l) { return high_half(h(4 * l + 2)); }},
      // Raw range check per byte: 4 lane + 200 + 1 <= 256 only for lanes below 14; the rest read 0.
      {"buffer_load_sbyte v20, v7, s[12:15], 0 offen", [&](uint32_t l) { return sext8(b(4 * l + 200)); }},
      {"buffer_load_ubyte_d16_hi v20, v7, s[12:15], 0 offen", [&](uint32_t l) { return high_half(b(4 * l + 200)); }},
      {"buffer_load_sshort v20, v7, s[12:15], 0 offen offset:2",
       [&](uint32_t l) { return 4 * l + 204 <= 256 ? sext16(h(4 * l + 202)) : 0u; }},
      {"flat_load_ubyte_d16 v20, v[10:11] offset:1", [&](uint32_t l) { return low_half(b(4 * l + 1)); }},
      {"flat_load_sbyte_d16_hi v20, v[10:11] offset:3", [&](uint32_t l) { return high_half(sext8(b(4 * l + 3))); }},
      {"flat_load_short_d16 v20, v[10:11] offset:2", [&](uint32_t l) { return low_half(h(4 * l + 2)); }},
      {"flat_load_short_d16_hi v20, v[10:11] offset:2", [&](uint32_t l) { return high_half(h(4 * l + 2)); }},
      {"ds_read_u8 v20, v2 offset:1", [&](uint32_t l) { return b(4 * l + 1); }},
      {"ds_read_i8 v20, v2 offset:3", [&](uint32_t l) { return sext8(b(4 * l + 3)); }},
      {"ds_read_u16 v20, v2 offset:2", [&](uint32_t l) { return h(4 * l + 2); }},
      {"ds_read_i16 v20, v2 offset:2", [&](uint32_t l) { return sext16(h(4 * l + 2)); }},
      {"ds_read_u8_d16 v20, v2 offset:1", [&](uint32_t l) { return low_half(b(4 * l + 1)); }},
      {"ds_read_u8_d16_hi v20, v2 offset:3", [&](uint32_t l) { return high_half(b(4 * l + 3)); }},
      {"ds_read_i8_d16 v20, v2 offset:3", [&](uint32_t l) { return low_half(sext8(b(4 * l + 3))); }},
      {"ds_read_i8_d16_hi v20, v2 offset:3", [&](uint32_t l) { return high_half(sext8(b(4 * l + 3))); }},
      {"ds_read_u16_d16 v20, v2 offset:2", [&](uint32_t l) { return low_half(h(4 * l + 2)); }},
      {"ds_read_u16_d16_hi v20, v2 offset:2", [&](uint32_t l) { return high_half(h(4 * l + 2)); }},
  };
  std::string body = fmt::format(R"(
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshlrev_b32 v2, 2, v0
  v_mov_b32 v3, v0
  v_mov_b32 v4, v0
  v_mov_b32 v5, 2
  v_add_u32 v7, 200, v2
  s_mov_b32 s20, 8
  s_mov_b32 s9, 0x{:x}
  v_mov_b32 v30, s9
  s_waitcnt lgkmcnt(0)
)",
                                 kPreset);
  body += lane_address(10, 4, 2) + buffer_resource(12, 4, 256) + buffer_resource(16, 4, 64, 4);
  body += R"(
  global_load_dword v21, v2, s[4:5]
  s_waitcnt vmcnt(0)
  ds_write_b32 v2, v21
  s_waitcnt lgkmcnt(0)
)";
  for (const LoadCase& c : cases)
    body += fmt::format("  v_mov_b32 v20, v30\n  {}\n  s_waitcnt vmcnt(0) lgkmcnt(0)\n", c.line) + store_and_advance(20, 2, 6);
  body += "  s_endpgm\n";
  KernelShape shape;
  shape.lds = 256;
  TestKernel k = TestKernel::build(body, shape);
  for (bool instant_mode : {true, false}) {
    std::vector<uint8_t> input = in;
    std::vector<uint32_t> out(cases.size() * 64, 0xdeadbeef);
    Args args;
    args.add(input);
    args.add(out);
    auto stats = run(k, args.dispatch(1, 64), instant_mode ? instant() : randomized(4));
    CHECK(stats.races.empty());
    for (size_t c = 0; c < cases.size(); ++c)
      for (uint32_t l = 0; l < 64; ++l) {
        INFO(cases[c].line << " lane " << l);
        CHECK(out[c * 64 + l] == cases[c].want(l));
      }
  }
}

TEST_CASE("byte and short stores in every family, d16_hi storing the high half", "[emulator][subdword]") {
  // Lane l owns out bytes [16 l, 16 l + 16) and LDS bytes [16 l, 16 l + 8), read back into out + 1024.
  const std::string body = std::string(R"(
  s_load_dwordx2 s[6:7], s[0:1], 0
  v_lshlrev_b32 v8, 4, v0
  s_mov_b32 s8, 0x9e3779b1
  v_mul_lo_u32 v12, v0, s8
  v_xor_b32 v13, 0x8badf00d, v12
  s_waitcnt lgkmcnt(0)
)") + lane_address(14, 6, 8) + buffer_resource(12, 6, 1024) + R"(
  global_store_byte v8, v12, s[6:7]
  global_store_byte_d16_hi v[14:15], v12, off offset:1
  buffer_store_byte v13, v8, s[12:15], 0 offen offset:2
  buffer_store_byte_d16_hi v13, v8, s[12:15], 0 offen offset:3
  global_store_short v8, v13, s[6:7] offset:4
  global_store_short_d16_hi v[14:15], v13, off offset:6
  flat_store_byte_d16_hi v[14:15], v13 offset:8
  buffer_store_short_d16_hi v12, v8, s[12:15], 0 offen offset:10
  ds_write_b8 v8, v12
  ds_write_b8_d16_hi v8, v12 offset:1
  ds_write_b16 v8, v13 offset:2
  ds_write_b16_d16_hi v8, v13 offset:4
  ds_write_b16 v8, v12 offset:6
  s_waitcnt lgkmcnt(0)
  ds_read_b64 v[16:17], v8
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v9, 3, v0
  global_store_dwordx2 v9, v[16:17], s[6:7] offset:1024
  s_endpgm
)";
  KernelShape shape;
  shape.lds = 1024;
  TestKernel k = TestKernel::build(body, shape);
  for (bool instant_mode : {true, false}) {
    std::vector<uint8_t> out(1024 + 64 * 8, 0xee);
    Args args;
    args.add(out);
    auto stats = run(k, args.dispatch(1, 64), instant_mode ? instant() : randomized(6));
    CHECK(stats.races.empty());
    for (uint32_t l = 0; l < 64; ++l) {
      INFO("lane " << l);
      const uint32_t v12 = l * 0x9e3779b1u, v13 = v12 ^ 0x8badf00du;
      auto byte = [](uint32_t v, int n) { return uint8_t(v >> (8 * n)); };
      const uint8_t want[16] = {byte(v12, 0), byte(v12, 2), byte(v13, 0), byte(v13, 2),
                                byte(v13, 0), byte(v13, 1), byte(v13, 2), byte(v13, 3),
                                byte(v13, 2), 0xee,         byte(v12, 2), byte(v12, 3),
                                0xee,         0xee,         0xee,         0xee};
      for (int i = 0; i < 16; ++i) CHECK(int(out[16 * l + i]) == int(want[i]));
      const uint8_t lds[8] = {byte(v12, 0), byte(v12, 2), byte(v13, 0), byte(v13, 1),
                              byte(v13, 2), byte(v13, 3), byte(v12, 0), byte(v12, 1)};
      for (int i = 0; i < 8; ++i) CHECK(int(out[1024 + 8 * l + i]) == int(lds[i]));
    }
  }
}
