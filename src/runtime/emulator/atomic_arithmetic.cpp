#include "runtime/emulator/atomic_arithmetic.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <string>

namespace cdna4::emu {
namespace {

struct NamedOp {
  std::string_view name;
  AtomicOp op;
  bool has_wide;
};

constexpr NamedOp kOps[] = {
    {"SWAP", AtomicOp::Swap, true},        {"CMPSWAP", AtomicOp::CmpSwap, true},
    {"ADD", AtomicOp::Add, true},          {"SUB", AtomicOp::Sub, true},
    {"SMIN", AtomicOp::SMin, true},        {"UMIN", AtomicOp::UMin, true},
    {"SMAX", AtomicOp::SMax, true},        {"UMAX", AtomicOp::UMax, true},
    {"AND", AtomicOp::And, true},          {"OR", AtomicOp::Or, true},
    {"XOR", AtomicOp::Xor, true},          {"INC", AtomicOp::Inc, true},
    {"DEC", AtomicOp::Dec, true},          {"ADD_F32", AtomicOp::AddF32, false},
    {"PK_ADD_F16", AtomicOp::PkAddF16, false}, {"PK_ADD_BF16", AtomicOp::PkAddBf16, false},
};

template <class T> T integer_combine(AtomicOp op, T old, T data, T compare) {
  using S = std::make_signed_t<T>;
  switch (op) {
    case AtomicOp::Swap: return data;
    case AtomicOp::CmpSwap: return old == compare ? data : old;
    case AtomicOp::Add: return T(old + data);
    case AtomicOp::Sub: return T(old - data);
    case AtomicOp::SMin: return S(old) < S(data) ? old : data;
    case AtomicOp::UMin: return std::min(old, data);
    case AtomicOp::SMax: return S(old) > S(data) ? old : data;
    case AtomicOp::UMax: return std::max(old, data);
    case AtomicOp::And: return old & data;
    case AtomicOp::Or: return old | data;
    case AtomicOp::Xor: return old ^ data;
    case AtomicOp::Inc: return old >= data ? T(0) : T(old + 1);
    case AtomicOp::Dec: return (old == 0 || old > data) ? data : T(old - 1);
    default: return old;
  }
}

// Two halves added in fp32 and rounded once to the 16-bit format: an fp32 sum
// of two 16-bit values rounded to nearest even and then rounded again is the
// correctly rounded 16-bit sum (fp32 has at least 2p+2 bits for p = 8 and 11).
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)> uint32_t packed_add(uint32_t old, uint32_t data) {
  uint32_t result = 0;
  for (int half = 0; half < 2; ++half) {
    uint16_t a = uint16_t(old >> (16 * half)), b = uint16_t(data >> (16 * half));
    result |= uint32_t(Narrow(Widen(a) + Widen(b))) << (16 * half);
  }
  return result;
}

float f32_from_bf16(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

}  // namespace

bool parse_atomic(std::string_view name, AtomicKind& kind) {
  bool wide = name.ends_with("_X2");
  if (wide) name.remove_suffix(3);
  for (const auto& e : kOps) {
    if (e.name != name || (wide && !e.has_wide)) continue;
    kind = {e.op, wide};
    return true;
  }
  return false;
}

uint16_t bf16_from_f32(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

uint16_t f16_from_f32(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  uint32_t abs = u & 0x7fffffff;
  if (abs > 0x7f800000) return uint16_t(sign | 0x7e00 | ((abs >> 13) & 0x3ff));  // quiet NaN
  if (abs >= 0x477ff000) return uint16_t(sign | 0x7c00);  // rounds to infinity (65520 and up)
  if (abs < 0x38800000) {  // below the smallest normal half: subnormal or zero
    // Align to units of 2^-24 and round to nearest even.
    // value = mantissa * 2^(exponent - 150) = (mantissa >> shift) units of 2^-24.
    uint32_t mantissa = (abs & 0x7fffff) | 0x800000;
    int shift = 126 - int(abs >> 23);
    if (shift > 25) return sign;  // below a quarter unit (or zero / fp32 subnormal): rounds to zero
    uint32_t q = mantissa >> shift;
    uint32_t rem = mantissa & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    return uint16_t(sign | q);
  }
  uint32_t r = abs - 0x38000000;  // rebias exponent 127 -> 15
  r += 0xfff + ((r >> 13) & 1);
  return uint16_t(sign | (r >> 13));
}

float f32_from_f16(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000 | (mantissa << 13));
  if (exp == 0) {
    float v = std::ldexp(float(mantissa), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mantissa << 13));
}

uint64_t atomic_combine(AtomicKind kind, uint64_t old, uint64_t data, uint64_t compare) {
  switch (kind.op) {
    case AtomicOp::AddF32:
      return std::bit_cast<uint32_t>(std::bit_cast<float>(uint32_t(old)) + std::bit_cast<float>(uint32_t(data)));
    case AtomicOp::PkAddF16: return packed_add<f32_from_f16, f16_from_f32>(uint32_t(old), uint32_t(data));
    case AtomicOp::PkAddBf16: return packed_add<f32_from_bf16, bf16_from_f32>(uint32_t(old), uint32_t(data));
    default: break;
  }
  if (kind.wide) return integer_combine<uint64_t>(kind.op, old, data, compare);
  return integer_combine<uint32_t>(kind.op, uint32_t(old), uint32_t(data), uint32_t(compare));
}

uint64_t atomic_apply(AtomicKind kind, uint64_t address, uint64_t data, uint64_t compare) {
  auto run = [&](auto* word) -> uint64_t {
    using T = std::remove_pointer_t<decltype(word)>;
    std::atomic_ref<T> ref(*word);
    T old = ref.load(std::memory_order_relaxed);
    while (!ref.compare_exchange_weak(old, T(atomic_combine(kind, old, data, compare)), std::memory_order_acq_rel,
                                      std::memory_order_relaxed)) {
    }
    return old;
  };
  if (kind.wide) return run(reinterpret_cast<uint64_t*>(address));
  return run(reinterpret_cast<uint32_t*>(address));
}

}  // namespace cdna4::emu
