// Scalar stores and atomics: s_store_dword*, s_buffer_store_dword*, s_atomic_*,
// s_buffer_atomic_*, s_dcache_wb / s_dcache_inv. Atomics run on 64 waves of 16
// workgroups on 4 host threads: each wave updates its own word, then all waves
// hit one word (returning, glc) and another (not returning).
#include <catch2/catch.hpp>

#include "emulator_atomic_reference.hpp"
#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

constexpr uint32_t kGroups = 16, kWavesPerGroup = 4, kWaves = kGroups * kWavesPerGroup;

TEST_CASE("s_store_dword, _x2, _x4 write SGPRs to memory (immediate and SGPR offsets)", "[emulator][scalar_store]") {
  std::string body = R"(
  s_load_dwordx2 s[4:5], s[0:1], 0
  s_mov_b32 s8, 0x11111111
  s_mov_b32 s9, 0x22222222
  s_mov_b32 s10, 0x33333333
  s_mov_b32 s11, 0x44444444
  s_mov_b32 s12, 40
  s_waitcnt lgkmcnt(0)
  s_store_dword s8, s[4:5], 0x4
  s_store_dwordx2 s[8:9], s[4:5], 0x10
  s_store_dwordx4 s[8:11], s[4:5], s12
  s_store_dword s11, s[4:5], 0x0 glc
  s_dcache_wb
  s_waitcnt lgkmcnt(0)
  s_load_dwordx4 s[16:19], s[4:5], s12
  s_dcache_inv
  s_waitcnt lgkmcnt(0)
  s_store_dwordx4 s[16:19], s[4:5], 0x40
  s_dcache_wb
  s_waitcnt lgkmcnt(0)
  s_endpgm
)";
  auto k = TestKernel::build(body);
  std::vector<uint32_t> out(32, 0);
  Args args;
  args.add(out);
  auto stats = run(k, args.dispatch(1, 64), randomized(2));
  CHECK(race_text(stats).empty());
  std::vector<uint32_t> expected(32, 0);
  const uint32_t s[4] = {0x11111111, 0x22222222, 0x33333333, 0x44444444};
  expected[0] = s[3];
  expected[1] = s[0];
  expected[4] = s[0], expected[5] = s[1];
  for (int d = 0; d < 4; ++d) expected[10 + d] = expected[16 + d] = s[d];
  CHECK(out == expected);
}

TEST_CASE("s_buffer_store_dword(_x2) writes through a V# and drops dwords beyond num_records", "[emulator][scalar_store]") {
  std::string body = R"(
  s_load_dwordx2 s[8:9], s[0:1], 0
  s_waitcnt lgkmcnt(0)
  s_and_b32 s9, s9, 0xffff
  s_mov_b32 s10, 24
  s_mov_b32 s11, 0x00020000
  s_mov_b32 s16, 0xaaaa0001
  s_mov_b32 s17, 0xaaaa0002
  s_mov_b32 s12, 20
  s_nop 0
  s_buffer_store_dword s16, s[8:11], 0x8
  s_buffer_store_dwordx2 s[16:17], s[8:11], 0x10
  s_buffer_store_dwordx2 s[16:17], s[8:11], s12
  s_buffer_store_dword s17, s[8:11], 0x18
  s_dcache_wb
  s_waitcnt lgkmcnt(0)
  s_endpgm
)";
  auto k = TestKernel::build(body);
  std::vector<uint32_t> out(16, 0);
  Args args;
  args.add(out);
  auto stats = run(k, args.dispatch(1, 64), randomized(4));
  CHECK(race_text(stats).empty());
  std::vector<uint32_t> expected(16, 0);
  expected[2] = 0xaaaa0001;
  expected[4] = 0xaaaa0001;
  expected[5] = 0xaaaa0001;  // the x2 at 20 overwrites dword 5; its second dword (24..27) is out of range
  CHECK(out == expected);    // and so is the dword store at 24
}

namespace {

// Kernarg: targetA, targetB, targetC, retA, retB, then per wave data/compare for
// the own and the shared phase (8-byte slots). s3 = global wave id.
std::string scalar_atomic_kernel(const AtomicCase& c, bool buffer) {
  const int dw = c.wide ? 2 : 1, regs = dw * (c.cmpswap ? 2 : 1);
  auto range = [](int first, int n) { return n == 1 ? fmt::format("s{}", first) : fmt::format("s[{}:{}]", first, first + n - 1); };
  std::string store = c.wide ? "s_store_dwordx2" : "s_store_dword";
  std::string atomic = fmt::format("s_{}atomic_{}", buffer ? "buffer_" : "", c.name);
  auto base = [&](int ptr, int rsrc) { return buffer ? range(rsrc, 4) : range(ptr, 2); };
  auto load = [&](int data_ptr, int cmp_ptr, int first) {
    std::string r = fmt::format("  s_load_dwordx2 s[{}:{}], s[{}:{}], s13\n", first, first + 1, data_ptr, data_ptr + 1);
    if (c.cmpswap) {
      r += fmt::format("  s_load_dwordx2 s[{}:{}], s[{}:{}], s13\n", first + 2, first + 3, cmp_ptr, cmp_ptr + 1);
      if (!c.wide) r += fmt::format("  s_waitcnt lgkmcnt(0)\n  s_mov_b32 s{}, s{}\n", first + 1, first + 2);
    }
    return r + "  s_waitcnt lgkmcnt(0)\n";
  };
  std::string body = R"(
  s_load_dwordx16 s[20:35], s[0:1], 0
  s_load_dwordx2 s[36:37], s[0:1], 64
  v_readfirstlane_b32 s3, v0
  s_lshr_b32 s3, s3, 6
  s_lshl2_add_u32 s3, s2, s3
  s_lshl_b32 s13, s3, 3
  s_waitcnt lgkmcnt(0)
)";
  body += fmt::format("  s_lshl_b32 s12, s3, {}\n", c.wide ? 3 : 2);
  for (auto [rsrc, ptr] : {std::pair{40, 20}, {44, 22}, {48, 24}})
    body += fmt::format("  s_mov_b32 s{}, s{}\n  s_and_b32 s{}, s{}, 0xffff\n  s_mov_b32 s{}, {}\n  s_mov_b32 s{}, 0x20000\n",
                        rsrc, ptr, rsrc + 1, ptr + 1, rsrc + 2, kWaves * 8, rsrc + 3);
  body += load(30, 32, 52);
  body += fmt::format("  {} {}, {}, s12 glc\n", atomic, range(52, regs), base(20, 40));
  body += load(34, 36, 56);
  body += fmt::format("  {} {}, {}, 0x0 glc\n", atomic, range(56, regs), base(22, 44));
  body += load(34, 36, 60);
  body += fmt::format("  {} {}, {}, 0x0\n", atomic, range(60, regs), base(24, 48));
  body += "  s_waitcnt lgkmcnt(0)\n";
  body += fmt::format("  {} {}, s[26:27], s13\n  {} {}, s[28:29], s13\n", store, range(52, dw), store, range(56, dw));
  body += "  s_dcache_wb\n  s_waitcnt lgkmcnt(0)\n  s_endpgm\n";
  return body;
}

void put64(std::vector<uint32_t>& v, uint32_t i, uint64_t x) {
  v[2 * i] = uint32_t(x);
  v[2 * i + 1] = uint32_t(x >> 32);
}
uint64_t get64(const std::vector<uint32_t>& v, uint32_t i) { return v[2 * i] | (uint64_t(v[2 * i + 1]) << 32); }

void run_scalar_case(const AtomicCase& c, bool buffer) {
  KernelShape shape;
  shape.sgprs = 72;
  shape.kernarg_size = 72;
  auto k = TestKernel::build(scalar_atomic_kernel(c, buffer), shape);
  const uint64_t mask = c.wide ? ~0ull : 0xffffffffull;
  std::vector<uint32_t> ta(2 * kWaves), tb(2), tc(2), ra(2 * kWaves), rb(2 * kWaves);
  std::vector<uint32_t> da(2 * kWaves), ca(2 * kWaves), db(2 * kWaves), cb(2 * kWaves);
  auto own_compare = [&](uint32_t i) { return (initial(c, i) + i % 2) & mask; };
  for (uint32_t i = 0; i < kWaves; ++i) {
    if (c.wide) put64(ta, i, initial(c, i));
    else ta[i] = uint32_t(initial(c, i));
    put64(da, i, c.own_data(i) & mask);
    put64(ca, i, own_compare(i));
    put64(db, i, c.shared_data(i) & mask);
    put64(cb, i, c.shared_init);
  }
  put64(tb, 0, c.shared_init);
  put64(tc, 0, c.shared_init);
  Args args;
  for (auto* v : {&ta, &tb, &tc, &ra, &rb, &da, &ca, &db, &cb}) args.add(*v);
  emu::EmulatorOptions o = randomized(9);
  o.threads = 4;
  auto stats = run(k, args.dispatch(kGroups, 64 * kWavesPerGroup), o);
  CHECK(race_text(stats).empty());
  std::vector<uint64_t> returned;
  for (uint32_t i = 0; i < kWaves; ++i) {
    INFO("wave " << i);
    uint64_t init = initial(c, i) & mask;
    REQUIRE((get64(ra, i) & mask) == init);
    uint64_t now = c.wide ? get64(ta, i) : ta[i];
    REQUIRE(now == (c.apply(init, c.own_data(i) & mask, own_compare(i)) & mask));
    returned.push_back(get64(rb, i) & mask);
  }
  check_contended(c, returned, get64(tb, 0) & mask, true);
  check_contended(c, std::vector<uint64_t>(kWaves, 0), get64(tc, 0) & mask, false);
}

}  // namespace

#define SCALAR_ATOMIC_TEST(op)                                                                               \
  TEST_CASE("s_atomic_" op " and s_buffer_atomic_" op " (and _x2), with and without glc", "[emulator][scalar_atomic]") { \
    for (bool buffer : {false, true}) {                                                                      \
      INFO("buffer " << buffer);                                                                             \
      run_scalar_case(integer_case<false>(op), buffer);                                                      \
      run_scalar_case(integer_case<true>(op), buffer);                                                       \
    }                                                                                                        \
  }
SCALAR_ATOMIC_TEST("add")
SCALAR_ATOMIC_TEST("sub")
SCALAR_ATOMIC_TEST("swap")
SCALAR_ATOMIC_TEST("cmpswap")
SCALAR_ATOMIC_TEST("smin")
SCALAR_ATOMIC_TEST("umin")
SCALAR_ATOMIC_TEST("smax")
SCALAR_ATOMIC_TEST("umax")
SCALAR_ATOMIC_TEST("and")
SCALAR_ATOMIC_TEST("or")
SCALAR_ATOMIC_TEST("xor")
SCALAR_ATOMIC_TEST("inc")
SCALAR_ATOMIC_TEST("dec")
