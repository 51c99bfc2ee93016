#pragma once
// The fused epilogue's activations, one row each: the value, its name and its
// steps. A step is one fp32 operation on three registers (x holds the value on
// entry and the result on exit, t and u are scratch) and fp32 constants given by
// bit pattern. The code generator emits each step as its VALU instruction
// (codegen/gemm/store_c.cpp), the CPU reference computes it in fp32 with one
// rounding to nearest even (runtime/reference_epilogue.cpp), so both read the
// same list: a new activation is a new row, its enum value, its line in
// docs/codegen.md and the schema's enum (tests/activations_test.cpp checks
// both against the rows) and its test.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "cdna4/schedule.hpp"

namespace cdna4::activations {

// d = a * b, a + b, fma(a, b, c), max(a, b) as v_max_f32 runs it
// (common/float_min_max.hpp: a quiet NaN operand yields the other),
// 2^a (v_exp_f32), 1 / a (v_rcp_f32).
enum class Op : uint8_t { mul, add, fma, max, exp2, rcp };
enum class Var : uint8_t { x, t, u };

// A step's source: a register, or an fp32 constant by bit pattern.
struct Src {
  bool constant = false;
  Var var = Var::x;
  uint32_t bits = 0;
  constexpr Src() = default;
  constexpr Src(Var v) : var(v) {}
  constexpr Src(uint32_t fp32_bits) : constant(true), bits(fp32_bits) {}
};

struct Step {
  Op op = Op::mul;
  Var d = Var::x;
  Src a, b = Var::x, c = Var::x;  // b for binary ops and fma, c for fma
};

constexpr Step mul(Var d, Src a, Src b) { return {Op::mul, d, a, b}; }
constexpr Step add(Var d, Src a, Src b) { return {Op::add, d, a, b}; }
constexpr Step fma(Var d, Src a, Src b, Src c) { return {Op::fma, d, a, b, c}; }
constexpr Step max(Var d, Src a, Src b) { return {Op::max, d, a, b}; }
constexpr Step exp2(Var d, Src a) { return {Op::exp2, d, a}; }
constexpr Step rcp(Var d, Src a) { return {Op::rcp, d, a}; }

// Up to 12 steps, written as a braced list.
struct Steps {
  std::array<Step, 12> at{};
  uint8_t size = 0;
  constexpr Steps(std::initializer_list<Step> steps) {
    for (const Step& s : steps) at[size++] = s;  // past 12: not a constant expression
  }
  constexpr const Step* begin() const { return at.data(); }
  constexpr const Step* end() const { return at.data() + size; }
};

struct Row {
  Activation value;
  const char* name;
  Steps steps;
};

constexpr Var x = Var::x, t = Var::t, u = Var::u;

// fp32 constants.
constexpr uint32_t kZero = 0x00000000;
constexpr uint32_t kOne = 0x3f800000;
constexpr uint32_t kMinusOne = 0xbf800000;
constexpr uint32_t kTwo = 0x40000000;
constexpr uint32_t kMinusLog2e = 0xbfb8aa3b;   // -log2(e)
constexpr uint32_t kMinus2Log2e = 0xc038aa3b;  // -2 log2(e)
constexpr uint32_t kGeluC0 = 0x3f4c422a;       // sqrt(2 / pi)
constexpr uint32_t kGeluC1 = 0x3d122279;       // 0.044715 sqrt(2 / pi)

// In enum order. The formulas and their error bounds: docs/codegen.md, "Fused epilogue".
inline constexpr Row kRows[] = {
    {Activation::none, "none", {}},
    {Activation::relu, "relu", {max(x, kZero, x)}},  // maxNum(0, x): NaN gives 0
    // x / (1 + 2^(-2 log2 e * x (c0 + c1 x^2))) = 0.5 x (1 + tanh(x (c0 + c1 x^2)))
    {Activation::gelu, "gelu",
     {mul(t, x, x), mul(t, kGeluC1, t), add(t, kGeluC0, t), mul(u, x, t), mul(t, kMinus2Log2e, u), exp2(t, t),
      add(t, kOne, t), rcp(t, t), mul(x, x, t)}},
    // x / (1 + 2^(-x log2 e))
    {Activation::silu, "silu", {mul(t, kMinusLog2e, x), exp2(t, t), add(t, kOne, t), rcp(t, t), mul(x, x, t)}},
    // 2 / (1 + 2^(-2 log2 e * x)) - 1
    {Activation::tanh, "tanh", {mul(t, kMinus2Log2e, x), exp2(t, t), add(t, kOne, t), rcp(t, t), fma(x, kTwo, t, kMinusOne)}},
};

// gfx950's VALU encodings: VOP2 (mul, add, max) takes a constant only as its
// first source; VOP3 (fma) takes inline constants only (0, +-0.5, +-1, +-2,
// +-4, 1 / (2 pi), or the integers 0..64 and -16..-1 as bit patterns).
constexpr bool inline_constant(uint32_t bits) {
  for (uint32_t f : {0x3f000000u, 0x3f800000u, 0x40000000u, 0x40800000u, 0x3e22f983u})
    if (bits == f || bits == (f | 0x80000000u)) return true;
  return bits <= 64 || bits >= uint32_t(-16);
}
constexpr bool encodable(const Step& s) {
  switch (s.op) {
    case Op::mul:
    case Op::add:
    case Op::max: return !s.b.constant;
    case Op::fma:
      for (const Src& src : {s.a, s.b, s.c})
        if (src.constant && !inline_constant(src.bits)) return false;
      return true;
    case Op::exp2:
    case Op::rcp: return true;
  }
  return false;
}
constexpr bool well_formed() {
  for (size_t i = 0; i < std::size(kRows); ++i) {
    if (kRows[i].value != Activation(i)) return false;
    for (const Step& s : kRows[i].steps)
      if (!encodable(s)) return false;
  }
  return true;
}
static_assert(well_formed(), "activation rows: out of enum order, or a step gfx950 cannot encode");

constexpr const Row* find(Activation value) {
  return size_t(value) < std::size(kRows) ? &kRows[size_t(value)] : nullptr;
}

// Every name, `separator` between two.
inline std::string names(std::string_view separator) {
  std::string out;
  for (const Row& r : kRows) out += (out.empty() ? "" : std::string(separator)) + r.name;
  return out;
}

}  // namespace cdna4::activations
