// Vector memory atomics (global saddr / global vaddr / flat / buffer offen), with
// and without return, on 2048 lanes of 8 workgroups run on 4 host threads:
// every lane first updates its own word (exact pre-op and post-op values), then
// all lanes hit one word (returning) and another (not returning).
#include <catch2/catch.hpp>

#include "emulator_atomic_reference.hpp"
#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

enum class Form { GlobalSaddr, GlobalVaddr, Flat, BufferOffen };
constexpr uint32_t kGroups = 8, kBlock = 256, kLanes = kGroups * kBlock;

// One atomic instruction of `form` on the word at byte offset v3 (or 0 for the
// shared phases, v9) of the buffer whose pointer is in s[ptr:ptr+1] (V# in s[rsrc:rsrc+3]).
std::string atomic_inst(const AtomicCase& c, Form form, bool returns, int ptr, int rsrc, const char* offset_reg) {
  std::string data = c.cmpswap ? (c.wide ? "v[4:7]" : "v[4:5]") : (c.wide ? "v[4:5]" : "v4");
  std::string ret = c.wide ? "v[10:11]" : "v10";
  std::string rtn = returns ? " sc0" : "";
  std::string dst = returns ? ret + ", " : "";
  std::string address64 = fmt::format(R"(
  v_mov_b32 v13, s{1}
  v_add_co_u32 v12, vcc, s{0}, {2}
  s_nop 1
  v_addc_co_u32 v13, vcc, 0, v13, vcc
)", ptr, ptr + 1, offset_reg);
  switch (form) {
    case Form::GlobalSaddr:
      return fmt::format("  global_atomic_{} {}{}, {}, s[{}:{}]{}\n", c.name, dst, offset_reg, data, ptr, ptr + 1, rtn);
    case Form::GlobalVaddr:
      return address64 + fmt::format("  global_atomic_{} {}v[12:13], {}, off{}\n", c.name, dst, data, rtn);
    case Form::Flat:
      return address64 + fmt::format("  flat_atomic_{} {}v[12:13], {}{}\n", c.name, dst, data, rtn);
    case Form::BufferOffen:
      // The pre-op value comes back in the data registers.
      return fmt::format("  buffer_atomic_{} {}, {}, s[{}:{}], 0 offen{}\n", c.name, data, offset_reg, rsrc, rsrc + 3,
                         rtn) +
             (returns ? fmt::format("  s_waitcnt vmcnt(0)\n  v_mov_b32 v10, v4\n  v_mov_b32 v11, v5\n") : "");
  }
  return {};
}

std::string load_data(const AtomicCase& c, int data_ptr, int cmp_ptr) {
  const char* load = c.wide ? "global_load_dwordx2" : "global_load_dword";
  std::string r = fmt::format("  {} {}, v2, s[{}:{}]\n", load, c.wide ? "v[4:5]" : "v4", data_ptr, data_ptr + 1);
  if (c.cmpswap) r += fmt::format("  {} {}, v2, s[{}:{}]\n", load, c.wide ? "v[6:7]" : "v5", cmp_ptr, cmp_ptr + 1);
  return r + "  s_waitcnt vmcnt(0)\n";
}

std::string make_rsrc(int first, int ptr) {
  return fmt::format("  s_mov_b32 s{0}, s{2}\n  s_and_b32 s{1}, s{3}, 0xffff\n  s_mov_b32 s{4}, {6}\n  s_mov_b32 s{5}, 0x00020000\n",
                     first, first + 1, ptr, ptr + 1, first + 2, first + 3, kLanes * 8);
}

// Kernarg: targetA, targetB, targetC, retA, retB, dataA, cmpA, dataB, cmpB.
std::string atomic_kernel(const AtomicCase& c, Form form) {
  const char* store = c.wide ? "global_store_dwordx2" : "global_store_dword";
  std::string ret = c.wide ? "v[10:11]" : "v10";
  std::string body = R"(
  s_load_dwordx16 s[20:35], s[0:1], 0
  s_load_dwordx2 s[36:37], s[0:1], 64
  v_lshl_add_u32 v1, s2, 8, v0
  v_lshlrev_b32 v2, 3, v1
  v_mov_b32 v9, 0
  s_waitcnt lgkmcnt(0)
)";
  body += fmt::format("  v_lshlrev_b32 v3, {}, v1\n", c.wide ? 3 : 2);
  body += make_rsrc(40, 20) + make_rsrc(44, 22) + make_rsrc(48, 24);
  body += load_data(c, 30, 32);
  body += atomic_inst(c, form, true, 20, 40, "v3");
  body += fmt::format("  s_waitcnt vmcnt(0)\n  {} v2, {}, s[26:27]\n", store, ret);
  body += load_data(c, 34, 36);
  body += atomic_inst(c, form, true, 22, 44, "v9");
  body += fmt::format("  s_waitcnt vmcnt(0)\n  {} v2, {}, s[28:29]\n", store, ret);
  body += load_data(c, 34, 36);
  body += atomic_inst(c, form, false, 24, 48, "v9");
  body += "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
  return body;
}

uint64_t word(const std::vector<uint32_t>& v, uint32_t i, bool wide) {
  return wide ? (v[2 * i] | (uint64_t(v[2 * i + 1]) << 32)) : v[i];
}
void put(std::vector<uint32_t>& v, uint32_t i, bool wide, uint64_t x) {
  if (wide) {
    v[2 * i] = uint32_t(x);
    v[2 * i + 1] = uint32_t(x >> 32);
  } else {
    v[i] = uint32_t(x);
  }
}

uint64_t own_compare(const AtomicCase& c, uint32_t id) { return initial(c, id) + (id % 2); }

void run_case(const AtomicCase& c, Form form) {
  KernelShape shape;
  shape.sgprs = 56;
  shape.kernarg_size = 72;
  auto k = TestKernel::build(atomic_kernel(c, form), shape);
  const uint64_t mask = c.wide ? ~0ull : 0xffffffffull;
  std::vector<uint32_t> ta(2 * kLanes), tb(2, 0), tc(2, 0), ra(2 * kLanes, 0xbad), rb(2 * kLanes, 0xbad);
  std::vector<uint32_t> da(2 * kLanes), ca(2 * kLanes), db(2 * kLanes), cb(2 * kLanes);
  for (uint32_t i = 0; i < kLanes; ++i) {
    put(ta, i, c.wide, initial(c, i));
    put(da, i, true, c.own_data(i) & mask);  // inputs and returns use 8-byte slots
    put(ca, i, true, own_compare(c, i) & mask);
    put(db, i, true, c.shared_data(i) & mask);
    put(cb, i, true, c.shared_init);
  }
  put(tb, 0, c.wide, c.shared_init);
  put(tc, 0, c.wide, c.shared_init);
  Args args;
  for (auto* v : {&ta, &tb, &tc, &ra, &rb, &da, &ca, &db, &cb}) args.add(*v);
  emu::EmulatorOptions o = randomized(3);
  o.threads = 4;
  auto stats = run(k, args.dispatch(kGroups, kBlock), o);
  CHECK(race_text(stats).empty());
  std::vector<uint64_t> returned;
  for (uint32_t i = 0; i < kLanes; ++i) {
    uint64_t init = initial(c, i) & mask;
    INFO("lane " << i);
    REQUIRE((word(ra, i, true) & mask) == init);
    REQUIRE(word(ta, i, c.wide) == (c.apply(init, c.own_data(i) & mask, own_compare(c, i) & mask) & mask));
    returned.push_back(word(rb, i, true) & mask);
  }
  check_contended(c, returned, word(tb, 0, c.wide), true);
  check_contended(c, std::vector<uint64_t>(returned.size(), 0), word(tc, 0, c.wide), false);
}

void run_all_forms(const AtomicCase& c) {
  for (Form f : {Form::GlobalSaddr, Form::GlobalVaddr, Form::Flat, Form::BufferOffen}) {
    INFO("form " << int(f));
    run_case(c, f);
  }
}

}  // namespace

#define INTEGER_ATOMIC_TEST(op)                                                                      \
  TEST_CASE("atomic " op " and " op "_x2: global/flat/buffer, returning and not", "[emulator][atomic]") { \
    run_all_forms(integer_case<false>(op));                                                        \
    run_all_forms(integer_case<true>(op));                                                         \
  }
INTEGER_ATOMIC_TEST("add")
INTEGER_ATOMIC_TEST("sub")
INTEGER_ATOMIC_TEST("swap")
INTEGER_ATOMIC_TEST("cmpswap")
INTEGER_ATOMIC_TEST("smin")
INTEGER_ATOMIC_TEST("umin")
INTEGER_ATOMIC_TEST("smax")
INTEGER_ATOMIC_TEST("umax")
INTEGER_ATOMIC_TEST("and")
INTEGER_ATOMIC_TEST("or")
INTEGER_ATOMIC_TEST("xor")
INTEGER_ATOMIC_TEST("inc")
INTEGER_ATOMIC_TEST("dec")

namespace {

uint32_t f32_bits(float f) { return std::bit_cast<uint32_t>(f); }
uint16_t bf16_bits(double v) { return ref_bf16(v); }
uint16_t f16_bits(double v) { return std::bit_cast<uint16_t>(static_cast<_Float16>(v)); }
double f16_value(uint16_t h) { return double(std::bit_cast<_Float16>(h)); }

}  // namespace

TEST_CASE("atomic add_f32: IEEE round to nearest even, fp32 denormals kept (gfx950)", "[emulator][atomic]") {
  AtomicCase c;
  c.name = "add_f32";
  c.contention = AtomicCase::Contention::Sequence;
  c.init = [](uint32_t id) -> uint64_t { return id % 16 == 0 ? 0x00000123u : f32_bits(float(id) * 0.37f - 100.0f); };
  c.own_data = [](uint32_t id) -> uint64_t {
    return id % 16 == 0 ? 0x80000456u : f32_bits(float(id % 97) * 1.3e-3f + 0.1f);
  };
  c.shared_data = [](uint32_t) -> uint64_t { return f32_bits(1.0f); };
  c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t {
    return f32_bits(std::bit_cast<float>(uint32_t(o)) + std::bit_cast<float>(uint32_t(d)));
  };
  run_all_forms(c);
}

TEST_CASE("atomic pk_add_bf16: two bf16 adds, each rounded to nearest even", "[emulator][atomic]") {
  AtomicCase c;
  c.name = "pk_add_bf16";
  c.contention = AtomicCase::Contention::Sequence;
  c.init = [](uint32_t id) -> uint64_t {
    return bf16_bits(1.0 + (id % 13) / 128.0) | uint32_t(bf16_bits(-(3.0 + id * 0.01))) << 16;
  };
  c.own_data = [](uint32_t id) -> uint64_t {
    return bf16_bits(1.0 / 256 * (1 + id % 3)) | uint32_t(bf16_bits((id % 11) * 0.125 + 1e-3)) << 16;
  };
  c.shared_data = [](uint32_t) -> uint64_t { return bf16_bits(1.0) | uint32_t(bf16_bits(2.0)) << 16; };
  c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t {
    uint64_t r = 0;
    for (int h = 0; h < 2; ++h)
      r |= uint64_t(bf16_bits(bf16_value(uint16_t(o >> 16 * h)) + bf16_value(uint16_t(d >> 16 * h)))) << 16 * h;
    return r;
  };
  run_all_forms(c);
}

TEST_CASE("atomic pk_add_f16: two f16 adds, each rounded to nearest even", "[emulator][atomic]") {
  AtomicCase c;
  c.name = "pk_add_f16";
  c.contention = AtomicCase::Contention::Sequence;
  c.init = [](uint32_t id) -> uint64_t {
    return f16_bits(1.0 + (id % 29) / 1024.0) | uint32_t(f16_bits(-(30.0 + id * 0.07))) << 16;
  };
  c.own_data = [](uint32_t id) -> uint64_t {
    return f16_bits(1.0 / 2048 * (1 + id % 3)) | uint32_t(f16_bits((id % 7) * 0.3 + 6e-5)) << 16;
  };
  c.shared_data = [](uint32_t) -> uint64_t { return f16_bits(1.0) | uint32_t(f16_bits(-0.5)) << 16; };
  c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t {
    uint64_t r = 0;
    for (int h = 0; h < 2; ++h)
      r |= uint64_t(f16_bits(f16_value(uint16_t(o >> 16 * h)) + f16_value(uint16_t(d >> 16 * h)))) << 16 * h;
    return r;
  };
  run_all_forms(c);
}
