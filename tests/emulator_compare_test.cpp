// VOPC compares: every predicate of every operand type, e32 (VCC) and e64
// (SGPR pair) forms, v_cmpx (EXEC and the destination), EXEC masking and
// v_cmp_class. Expected values are the ISA guide's definitions evaluated on the
// host: float predicates on IEEE values (NaN unordered, -0 == +0; the N forms
// are the negations, true for NaN), integer ones on the signed or unsigned
// value of the low 16 / 32 / 64 bits.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "emulator_lane_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

using FloatTest = std::function<bool(double, double)>;
using IntTest = std::function<bool(int, bool)>;  // (a <=> b as -1 / 0 / 1, unused)

const std::pair<const char*, FloatTest> kFloatPredicates[] = {
    {"f", [](double, double) { return false; }},
    {"lt", [](double a, double b) { return a < b; }},
    {"eq", [](double a, double b) { return a == b; }},
    {"le", [](double a, double b) { return a <= b; }},
    {"gt", [](double a, double b) { return a > b; }},
    {"lg", [](double a, double b) { return a < b || a > b; }},
    {"ge", [](double a, double b) { return a >= b; }},
    {"o", [](double a, double b) { return !std::isnan(a) && !std::isnan(b); }},
    {"u", [](double a, double b) { return std::isnan(a) || std::isnan(b); }},
    {"nge", [](double a, double b) { return !(a >= b); }},
    {"nlg", [](double a, double b) { return !(a < b || a > b); }},
    {"ngt", [](double a, double b) { return !(a > b); }},
    {"nle", [](double a, double b) { return !(a <= b); }},
    {"neq", [](double a, double b) { return !(a == b); }},
    {"nlt", [](double a, double b) { return !(a < b); }},
    {"tru", [](double, double) { return true; }},
};

const std::pair<const char*, std::function<bool(int)>> kIntegerPredicates[] = {
    {"f", [](int) { return false; }},     {"lt", [](int c) { return c < 0; }},
    {"eq", [](int c) { return c == 0; }}, {"le", [](int c) { return c <= 0; }},
    {"gt", [](int c) { return c > 0; }},  {"ne", [](int c) { return c != 0; }},
    {"ge", [](int c) { return c >= 0; }}, {"t", [](int) { return true; }},
};

// One float value in the three widths, its value and its v_cmp_class bit.
struct Special {
  uint16_t h;
  uint32_t f;
  uint64_t d;
  double value;
  int cls;  // 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf
};
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
const Special kSpecials[] = {
    {0xfc00, 0xff800000u, 0xfff0000000000000ull, -kInf, 2},
    {0xc100, 0xc0200000u, 0xc004000000000000ull, -2.5, 3},
    {0xbc00, 0xbf800000u, 0xbff0000000000000ull, -1.0, 3},
    {0x8001, 0x80000001u, 0x8000000000000001ull, 0, 4},  // value filled in per width
    {0x8000, 0x80000000u, 0x8000000000000000ull, -0.0, 5},
    {0x0000, 0x00000000u, 0x0000000000000000ull, 0.0, 6},
    {0x0001, 0x00000001u, 0x0000000000000001ull, 0, 7},
    {0x3c00, 0x3f800000u, 0x3ff0000000000000ull, 1.0, 8},
    {0x4100, 0x40200000u, 0x4004000000000000ull, 2.5, 8},
    {0x7c00, 0x7f800000u, 0x7ff0000000000000ull, kInf, 9},
    {0x7e00, 0x7fc00000u, 0x7ff8000000000000ull, kNan, 1},
    {0x7c01, 0x7f800001u, 0x7ff0000000000001ull, kNan, 0},
};
constexpr int kNumSpecials = int(std::size(kSpecials));

double special_value(const Special& s, int bits) {
  if (s.cls == 4 || s.cls == 7) {
    const double smallest = bits == 16 ? std::ldexp(1.0, -24) : bits == 32 ? std::ldexp(1.0, -149) : std::ldexp(1.0, -1074);
    return s.cls == 4 ? -smallest : smallest;
  }
  return s.value;
}
uint64_t special_bits(const Special& s, int bits) { return bits == 16 ? s.h : bits == 32 ? s.f : s.d; }

// Lane l compares special a_index(l) with special b_index(l); the last lanes compare equal values.
int a_index(uint32_t l) { return int(l % kNumSpecials); }
int b_index(uint32_t l) { return l >= 56 ? a_index(l) : int((l / kNumSpecials + 5 * l) % kNumSpecials); }

const uint64_t kIntegers[] = {0, 1, ~0ull, 5, 42, 0x7fffull, 0x8000ull, 0x7fffffffull, 0x80000000ull,
                              0xffffffffull, 0x7fffffffffffffffull, 0x8000000000000000ull, 0x123456789abcdef0ull};
constexpr int kNumIntegers = int(std::size(kIntegers));
int ia_index(uint32_t l) { return int(l % kNumIntegers); }
int ib_index(uint32_t l) { return l >= 56 ? ia_index(l) : int((l / kNumIntegers + 3 * l + 1) % kNumIntegers); }

int64_t signed_value(uint64_t v, int bits) { return bits == 64 ? int64_t(v) : int64_t(v << (64 - bits)) >> (64 - bits); }
uint64_t unsigned_value(uint64_t v, int bits) { return bits == 64 ? v : v & ((1ull << bits) - 1); }

// Inputs: a in v10 (v[10:11] for 64 bits), b in v12 (v[12:13]); 16- and 32-bit
// values carry garbage in the bits above them, which compares must ignore.
std::vector<LaneFn> lane_inputs(int bits, std::function<uint64_t(uint32_t)> a, std::function<uint64_t(uint32_t)> b) {
  const uint32_t garbage = bits == 16 ? 0xdead0000u : 0;
  return {[=](uint32_t l) { return uint32_t(a(l)) | garbage; }, [=](uint32_t l) { return uint32_t(a(l) >> 32); },
          [=](uint32_t l) { return uint32_t(b(l)) | garbage; }, [=](uint32_t l) { return uint32_t(b(l) >> 32); },
          [](uint32_t l) { return pattern(l, 9) & 0x3ffu; }};
}
std::string operands(int bits) { return bits == 64 ? "v[10:11], v[12:13]" : "v10, v12"; }

// Every predicate of `type`: even rows in the e64 form into s[20:21], odd rows
// in the e32 form into VCC; each mask turned into lanes 0 / 1.
std::string compare_body(const std::string& type, int bits, const std::vector<const char*>& predicates) {
  std::string body;
  for (size_t p = 0; p < predicates.size(); ++p) {
    const bool e64 = p % 2 == 0;
    body += fmt::format("  v_cmp_{}_{}{} {}, {}\n  s_nop 1\n  v_cndmask_b32 v{}, 0, 1, {}\n", predicates[p], type,
                        e64 ? "_e64" : "_e32", e64 ? "s[20:21]" : "vcc", operands(bits), 20 + p,
                        e64 ? "s[20:21]" : "vcc");
  }
  return body;
}

std::vector<int> registers(size_t n) {
  std::vector<int> r(n);
  for (size_t i = 0; i < n; ++i) r[i] = int(20 + i);
  return r;
}

}  // namespace

TEST_CASE("VOPC float compares: every predicate in f16, f32 and f64", "[emulator][compare]") {
  std::vector<const char*> names;
  for (const auto& p : kFloatPredicates) names.push_back(p.first);
  for (int bits : {16, 32, 64}) {
    const std::string type = fmt::format("f{}", bits);
    auto a = [bits](uint32_t l) { return special_bits(kSpecials[a_index(l)], bits); };
    auto b = [bits](uint32_t l) { return special_bits(kSpecials[b_index(l)], bits); };
    const auto out = run_lanes(compare_body(type, bits, names), lane_inputs(bits, a, b), registers(names.size()));
    for (size_t p = 0; p < names.size(); ++p) {
      for (uint32_t l = 0; l < 64; ++l) {
        const double x = special_value(kSpecials[a_index(l)], bits), y = special_value(kSpecials[b_index(l)], bits);
        INFO("v_cmp_" << names[p] << "_" << type << " lane " << l << ": " << x << " vs " << y);
        REQUIRE(out[p][l] == uint32_t(kFloatPredicates[p].second(x, y)));
      }
    }
  }
}

TEST_CASE("VOPC integer compares: every predicate in i16, i32, i64, u16, u32, u64", "[emulator][compare]") {
  std::vector<const char*> names;
  for (const auto& p : kIntegerPredicates) names.push_back(p.first);
  for (bool is_signed : {true, false}) {
    for (int bits : {16, 32, 64}) {
      const std::string type = fmt::format("{}{}", is_signed ? 'i' : 'u', bits);
      auto a = [](uint32_t l) { return kIntegers[ia_index(l)]; };
      auto b = [](uint32_t l) { return kIntegers[ib_index(l)]; };
      const auto out = run_lanes(compare_body(type, bits, names), lane_inputs(bits, a, b), registers(names.size()));
      for (size_t p = 0; p < names.size(); ++p) {
        for (uint32_t l = 0; l < 64; ++l) {
          const uint64_t x = a(l) & (bits == 64 ? ~0ull : 0xffffffffull), y = b(l) & (bits == 64 ? ~0ull : 0xffffffffull);
          int order;
          if (is_signed) {
            const int64_t sx = signed_value(x, bits), sy = signed_value(y, bits);
            order = sx < sy ? -1 : sx > sy ? 1 : 0;
          } else {
            const uint64_t ux = unsigned_value(x, bits), uy = unsigned_value(y, bits);
            order = ux < uy ? -1 : ux > uy ? 1 : 0;
          }
          INFO("v_cmp_" << names[p] << "_" << type << " lane " << l << ": 0x" << std::hex << x << " vs 0x" << y);
          REQUIRE(out[p][l] == uint32_t(kIntegerPredicates[p].second(order)));
        }
      }
    }
  }
}

TEST_CASE("v_cmp_class tests src0's class against the src1 mask in every width", "[emulator][compare]") {
  for (int bits : {16, 32, 64}) {
    const std::string type = fmt::format("f{}", bits);
    auto a = [bits](uint32_t l) { return special_bits(kSpecials[a_index(l)], bits); };
    const std::string src0 = bits == 64 ? "v[10:11]" : "v10";
    const std::string body = fmt::format(
        "  v_cmp_class_{0}_e64 s[20:21], {1}, v14\n  s_nop 1\n  v_cndmask_b32 v20, 0, 1, s[20:21]\n"
        "  v_cmp_class_{0} vcc, {1}, v14\n  s_nop 1\n  v_cndmask_b32 v21, 0, 1, vcc\n"
        "  s_movk_i32 s8, 0x3c0\n  v_cmp_class_{0}_e64 s[20:21], -{1}, s8\n  s_nop 1\n  v_cndmask_b32 v22, 0, 1, s[20:21]\n"
        "  v_cmp_class_{0}_e64 s[20:21], {1}, 1\n  s_nop 1\n  v_cndmask_b32 v23, 0, 1, s[20:21]\n"
        "  v_cmp_class_{0}_e64 s[20:21], {1}, 2\n  s_nop 1\n  v_cndmask_b32 v24, 0, 1, s[20:21]\n",
        type, src0);
    const auto out = run_lanes(body, lane_inputs(bits, a, a), {20, 21, 22, 23, 24});
    for (uint32_t l = 0; l < 64; ++l) {
      const int cls = kSpecials[a_index(l)].cls;
      // Negation mirrors the sign classes (2..9 -> 9..2) and leaves NaNs.
      const int negated = cls < 2 ? cls : 11 - cls;
      INFO(type << " lane " << l << " class " << cls);
      REQUIRE(out[0][l] == ((pattern(l, 9) >> cls) & 1));
      REQUIRE(out[1][l] == ((pattern(l, 9) >> cls) & 1));
      REQUIRE(out[2][l] == ((0x3c0u >> negated) & 1));
      REQUIRE(out[3][l] == uint32_t(cls == 0));  // signalling NaN: quiet bit (the mantissa's top) clear
      REQUIRE(out[4][l] == uint32_t(cls == 1));
    }
  }
}

TEST_CASE("v_cmp / v_cmpx: 0 outside EXEC; v_cmpx writes EXEC and its destination; 64-bit e32 and e64",
          "[emulator][compare]") {
  const uint64_t exec = 0xf0f0ff0012345678ull;
  auto a = [](uint32_t l) { return uint64_t(l % 3) << 32 | (l % 5); };
  auto b = [](uint32_t l) { return uint64_t(l % 2) << 32 | (l % 4); };
  const std::string body = fmt::format(
      "  s_mov_b32 exec_lo, 0x{:x}\n  s_mov_b32 exec_hi, 0x{:x}\n"
      "  v_cmp_eq_u64_e64 s[20:21], v[10:11], v[12:13]\n  v_cmp_eq_u64 vcc, v[10:11], v[12:13]\n"
      "  s_mov_b64 s[22:23], vcc\n  v_cmpx_le_u64_e64 s[24:25], v[10:11], v[12:13]\n  s_mov_b64 s[26:27], exec\n"
      "  s_mov_b64 exec, -1\n  v_cmpx_gt_i32 vcc, v10, v12\n  s_mov_b64 s[28:29], exec\n  s_mov_b64 s[36:37], vcc\n  s_mov_b64 exec, -1\n"
      "  v_cmp_eq_u64 vcc, -1, v[10:11]\n  s_mov_b64 s[30:31], vcc\n"
      "  v_cmp_lt_f64 vcc, 1.0, v[12:13]\n  s_mov_b64 s[32:33], vcc\n"
      "  v_cmp_eq_f16 vcc, 1.0, v12\n  s_mov_b64 s[34:35], vcc\n"
      "  v_cndmask_b32 v20, 0, 1, s[20:21]\n  v_cndmask_b32 v21, 0, 1, s[22:23]\n"
      "  v_cndmask_b32 v22, 0, 1, s[24:25]\n  v_cndmask_b32 v23, 0, 1, s[26:27]\n"
      "  v_cndmask_b32 v24, 0, 1, s[36:37]\n  v_cndmask_b32 v25, 0, 1, s[28:29]\n"
      "  v_cndmask_b32 v26, 0, 1, s[30:31]\n  v_cndmask_b32 v27, 0, 1, s[32:33]\n  v_cndmask_b32 v28, 0, 1, s[34:35]\n",
      uint32_t(exec), uint32_t(exec >> 32));
  auto c = [](uint32_t l) { return l % 4 == 0 ? ~0ull : l % 4 == 1 ? 0x3ff0000000000000ull : l % 4 == 2 ? 0x4000000000000000ull : 0x3c00; };
  auto inputs = lane_inputs(64, a, b);
  inputs[0] = [&](uint32_t l) { return l >= 48 ? uint32_t(c(l)) : uint32_t(a(l)); };
  inputs[1] = [&](uint32_t l) { return l >= 48 ? uint32_t(c(l) >> 32) : uint32_t(a(l) >> 32); };
  inputs[2] = [&](uint32_t l) { return l >= 48 ? uint32_t(c(l + 1)) : uint32_t(b(l)); };
  inputs[3] = [&](uint32_t l) { return l >= 48 ? uint32_t(c(l + 1) >> 32) : uint32_t(b(l) >> 32); };
  const auto out = run_lanes(body, inputs, registers(9));
  for (uint32_t l = 0; l < 64; ++l) {
    INFO("lane " << l);
    const uint64_t x = l >= 48 ? c(l) : a(l), y = l >= 48 ? c(l + 1) : b(l);
    const bool on = (exec >> l) & 1;
    REQUIRE(out[0][l] == uint32_t(on && x == y));
    REQUIRE(out[1][l] == uint32_t(on && x == y));
    REQUIRE(out[2][l] == uint32_t(on && x <= y));
    REQUIRE(out[3][l] == uint32_t(on && x <= y));
    REQUIRE(out[4][l] == uint32_t(int32_t(x) > int32_t(y)));  // v_cmpx e32 writes VCC too
    REQUIRE(out[5][l] == uint32_t(int32_t(x) > int32_t(y)));
    REQUIRE(out[6][l] == uint32_t(x == ~0ull));
    double yd;
    std::memcpy(&yd, &y, 8);
    REQUIRE(out[7][l] == uint32_t(1.0 < yd));
    REQUIRE(out[8][l] == uint32_t((y & 0xffff) == 0x3c00));
  }
}
