#pragma once
// Reference semantics of the memory atomics, written from the ISA definitions
// (CDNA3/CDNA4 ISA guide, "MUBUF / FLAT / SMEM atomics"), and the checks that
// show a contended run was atomic: every participant's pre-op value is one
// state of a serial order and the final value is that order's last state.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace cdna4::emutest {

struct AtomicCase {
  std::string name;   // mnemonic part after "..._atomic_", e.g. "add", "cmpswap_x2"
  bool wide = false;  // 64-bit operands
  bool cmpswap = false;
  // Per-participant data for the exact (own address) phase and the contended phase.
  uint64_t (*own_data)(uint32_t id) = nullptr;
  uint64_t (*shared_data)(uint32_t id) = nullptr;
  uint64_t (*apply)(uint64_t old, uint64_t data, uint64_t compare) = nullptr;
  uint64_t shared_init = 0;
  uint64_t (*init)(uint32_t id) = nullptr;  // own word's initial value (default: own_init)
  enum class Contention { Sequence, Fold, Swap, CmpSwap } contention = Contention::Fold;
};

inline uint64_t own_init(uint32_t id, bool wide) {
  uint64_t v = 0x9e3779b97f4a7c15ull * (id + 1);
  return wide ? v : (v >> 32);
}

inline uint64_t initial(const AtomicCase& c, uint32_t id) { return c.init ? c.init(id) : own_init(id, c.wide); }

inline uint16_t ref_bf16(double exact) {
  // Round to nearest even on the 8-bit significand of bf16 (inputs here are finite and normal).
  int e;
  double m = std::frexp(exact, &e);                     // exact = m * 2^e, 0.5 <= |m| < 1
  double scaled = std::ldexp(m, 8);                     // 8 significant bits
  double r = std::nearbyint(scaled);                    // default rounding: to nearest even
  float f = float(std::ldexp(r, e - 8));
  return uint16_t(std::bit_cast<uint32_t>(f) >> 16);
}
inline double bf16_value(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

// Checks pre-op values `returned` (one per participant) and the final value of a
// contended address against `c`.
inline void check_contended(const AtomicCase& c, const std::vector<uint64_t>& returned, uint64_t final_value,
                            bool check_returns) {
  const uint32_t n = uint32_t(returned.size());
  const uint64_t mask = c.wide ? ~0ull : 0xffffffffull;
  switch (c.contention) {
    case AtomicCase::Contention::Sequence: {  // same data for everyone: the states are fixed
      std::vector<uint64_t> states;
      uint64_t s = c.shared_init;
      for (uint32_t i = 0; i < n; ++i) {
        states.push_back(s);
        s = c.apply(s, c.shared_data(i), 0) & mask;
      }
      CHECK(final_value == s);
      if (check_returns) {
        std::vector<uint64_t> got = returned;
        std::sort(got.begin(), got.end());
        std::sort(states.begin(), states.end());
        CHECK(got == states);
      }
      break;
    }
    case AtomicCase::Contention::Fold: {  // commutative and associative: order does not matter
      uint64_t s = c.shared_init;
      for (uint32_t i = 0; i < n; ++i) s = c.apply(s, c.shared_data(i), 0) & mask;
      CHECK(final_value == s);
      if (check_returns && !c.name.starts_with("xor")) {
        // Each pre-op value is a state on the way: applying the rest of the data to it gives the final value.
        uint64_t all = s;
        for (uint64_t r : returned) CHECK((c.apply(r, all, 0) & mask) == all);
      }
      break;
    }
    case AtomicCase::Contention::Swap: {  // the values returned plus the final one are the initial one plus the data
      std::vector<uint64_t> expected{c.shared_init}, got{final_value};
      for (uint32_t i = 0; i < n; ++i) expected.push_back(c.shared_data(i) & mask);
      if (check_returns) {
        got.insert(got.end(), returned.begin(), returned.end());
        std::sort(got.begin(), got.end());
        std::sort(expected.begin(), expected.end());
        CHECK(got == expected);
      } else {
        CHECK(std::find(expected.begin() + 1, expected.end(), final_value) != expected.end());
      }
      break;
    }
    case AtomicCase::Contention::CmpSwap: {  // everyone expects the initial value: exactly one wins
      std::vector<uint64_t> data;
      for (uint32_t i = 0; i < n; ++i) data.push_back(c.shared_data(i) & mask);
      CHECK(std::find(data.begin(), data.end(), final_value) != data.end());
      if (check_returns) {
        CHECK(std::count(returned.begin(), returned.end(), c.shared_init) == 1);
        CHECK(uint32_t(std::count(returned.begin(), returned.end(), final_value)) == n - 1);
      }
      break;
    }
  }
}

// The integer atomics as the ISA defines them (narrow forms on the low 32 bits).
template <bool kWide> AtomicCase integer_case(const std::string& op) {
  using T = std::conditional_t<kWide, uint64_t, uint32_t>;
  using S = std::make_signed_t<T>;
  AtomicCase c;
  c.name = op + (kWide ? "_x2" : "");
  c.wide = kWide;
  c.own_data = [](uint32_t id) -> uint64_t { return T(0x12345 + id * 0x10001ull + (uint64_t(id) << 40)); };
  c.shared_data = c.own_data;
  if (op == "add" || op == "sub" || op == "inc" || op == "dec") {
    c.contention = AtomicCase::Contention::Sequence;
    c.shared_data = [](uint32_t) -> uint64_t { return kWide ? 0x100000003ull : 3; };
  }
  if (op == "add") c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return T(T(o) + T(d)); };
  if (op == "sub") c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return T(T(o) - T(d)); };
  if (op == "swap") {
    c.contention = AtomicCase::Contention::Swap;
    c.apply = [](uint64_t, uint64_t d, uint64_t) -> uint64_t { return T(d); };
  }
  if (op == "cmpswap") {
    c.cmpswap = true;
    c.contention = AtomicCase::Contention::CmpSwap;
    c.apply = [](uint64_t o, uint64_t d, uint64_t cmp) -> uint64_t { return T(o) == T(cmp) ? T(d) : T(o); };
  }
  if (op == "smin") c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return S(T(o)) < S(T(d)) ? T(o) : T(d); };
  if (op == "umin") c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return std::min(T(o), T(d)); };
  if (op == "smax") c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return S(T(o)) > S(T(d)) ? T(o) : T(d); };
  if (op == "umax") c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return std::max(T(o), T(d)); };
  if (op == "and") c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return T(o & d); };
  if (op == "or") c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return T(o | d); };
  if (op == "xor") c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return T(o ^ d); };
  if (op == "inc") c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return T(o) >= T(d) ? T(0) : T(T(o) + 1); };
  if (op == "dec")
    c.apply = [](uint64_t o, uint64_t d, uint64_t) -> uint64_t { return (T(o) == 0 || T(o) > T(d)) ? T(d) : T(T(o) - 1); };
  if (op == "inc" || op == "dec") {  // a small limit so the contended sequence wraps
    c.shared_data = [](uint32_t) -> uint64_t { return 37; };
    c.own_data = [](uint32_t id) -> uint64_t { return id % 3 == 0 ? T(~0ull) : T(id * 0x10001ull); };
  }
  if (op == "xor") c.shared_data = [](uint32_t id) -> uint64_t { return T(1ull << (id % (kWide ? 64 : 32))) | T(id << 8); };
  if (op == "and") {
    c.shared_init = T(~0ull);
    c.shared_data = [](uint32_t id) -> uint64_t { return T(~(1ull << (id % 61))); };
  }
  if (op == "or") c.shared_data = [](uint32_t id) -> uint64_t { return T(1ull << (id % 61)); };
  if (op == "umin" || op == "smin") c.shared_init = kWide ? 0x7fffffffffffffffull : 0x7fffffff;
  return c;
}

}  // namespace cdna4::emutest
