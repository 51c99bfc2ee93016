// VOPC compares: every predicate of the CDNA3 / CDNA4 ISA guide in every
// operand type, one table row per predicate. v_cmp_* writes the lane mask to
// VCC (e32) or an SGPR pair (e64); v_cmpx_* also writes it to EXEC (gfx9).
// Lanes outside EXEC get 0. Float sources take neg / abs; compares see
// denormals as they are; -0 == +0; NaN compares unordered.
#include <compare>
#include <cstring>
#include <string>
#include <utility>

#include "common/element_formats.hpp"
#include "runtime/emulator/handler_registry.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

using Order = std::partial_ordering;

struct Predicate {
  const char* name;
  bool (*holds)(Order);
};

constexpr bool less(Order o) { return o == Order::less; }
constexpr bool equal(Order o) { return o == Order::equivalent; }
constexpr bool greater(Order o) { return o == Order::greater; }

constexpr Predicate kFloatPredicates[] = {
    {"F", [](Order) { return false; }},
    {"LT", [](Order o) { return less(o); }},
    {"EQ", [](Order o) { return equal(o); }},
    {"LE", [](Order o) { return less(o) || equal(o); }},
    {"GT", [](Order o) { return greater(o); }},
    {"LG", [](Order o) { return less(o) || greater(o); }},
    {"GE", [](Order o) { return greater(o) || equal(o); }},
    {"O", [](Order o) { return o != Order::unordered; }},
    {"U", [](Order o) { return o == Order::unordered; }},
    {"NGE", [](Order o) { return !(greater(o) || equal(o)); }},
    {"NLG", [](Order o) { return !(less(o) || greater(o)); }},
    {"NGT", [](Order o) { return !greater(o); }},
    {"NLE", [](Order o) { return !(less(o) || equal(o)); }},
    {"NEQ", [](Order o) { return !equal(o); }},
    {"NLT", [](Order o) { return !less(o); }},
    {"TRU", [](Order) { return true; }},
};

constexpr Predicate kIntegerPredicates[] = {
    {"F", [](Order) { return false; }},
    {"LT", [](Order o) { return less(o); }},
    {"EQ", [](Order o) { return equal(o); }},
    {"LE", [](Order o) { return less(o) || equal(o); }},
    {"GT", [](Order o) { return greater(o); }},
    {"NE", [](Order o) { return !equal(o); }},
    {"GE", [](Order o) { return greater(o) || equal(o); }},
    {"T", [](Order) { return true; }},
};

// v_cmp_class: bit of the class mask (src1) for each class of src0.
enum FloatClass { kSignalingNan, kQuietNan, kNegInf, kNegNormal, kNegDenormal, kNegZero,
                  kPosZero, kPosDenormal, kPosNormal, kPosInf };

// An operand type: its width, and how its bits order and classify.
template <int kBits> struct Float {
  static constexpr int kWidth = kBits;
  static constexpr int kMantissa = kBits == 16 ? 10 : kBits == 32 ? 23 : 52;
  static constexpr uint64_t kSign = 1ull << (kBits - 1);
  static double value(uint64_t b) {
    if constexpr (kBits == 16) return gfx950::element_value(gfx950::Element::f16, uint32_t(b));
    if constexpr (kBits == 32) return as_float(uint32_t(b));
    double d;
    std::memcpy(&d, &b, 8);
    return d;
  }
  static Order order(uint64_t a, uint64_t b) { return value(a) <=> value(b); }
  static int classify(uint64_t b) {
    const uint64_t exponent_mask = (kSign - 1) >> kMantissa, mantissa_mask = (1ull << kMantissa) - 1;
    const uint64_t exponent = (b >> kMantissa) & exponent_mask, mantissa = b & mantissa_mask;
    const bool negative = b & kSign;
    if (exponent == exponent_mask) {
      if (mantissa) return (mantissa >> (kMantissa - 1)) ? kQuietNan : kSignalingNan;
      return negative ? kNegInf : kPosInf;
    }
    if (exponent == 0) return mantissa ? (negative ? kNegDenormal : kPosDenormal) : (negative ? kNegZero : kPosZero);
    return negative ? kNegNormal : kPosNormal;
  }
};
template <int kBits, bool kSigned> struct Integer {
  static constexpr int kWidth = kBits;
  static constexpr uint64_t kSign = 0;  // no neg / abs
  static Order order(uint64_t a, uint64_t b) {
    if constexpr (kSigned) {
      constexpr int shift = 64 - kBits;
      return int64_t(a << shift) >> shift <=> int64_t(b << shift) >> shift;
    }
    constexpr uint64_t mask = kBits == 64 ? ~0ull : (1ull << kBits) - 1;
    return (a & mask) <=> (b & mask);
  }
};

// A source's lane bits (its low kWidth bits; 64-bit from a register pair),
// with neg / abs on the sign bit of float types.
template <class Type> void fetch_lanes(const Wave& w, const Operand& o, uint64_t* out) {
  LaneValues lo, hi;
  fetch(w, o, lo, 0);
  if constexpr (Type::kWidth == 64) {
    if (o.kind == OperandKind::Imm) {
      for (int l = 0; l < kLanes; ++l) out[l] = o.imm;
    } else {
      fetch(w, o, hi, 1);
      for (int l = 0; l < kLanes; ++l) out[l] = lo[l] | uint64_t(hi[l]) << 32;
    }
  } else {
    for (int l = 0; l < kLanes; ++l) out[l] = lo[l] & ((1ull << Type::kWidth) - 1);
  }
  if (Type::kSign && (o.abs || o.neg)) {
    const uint64_t clear = o.abs ? ~Type::kSign : ~0ull, flip = o.neg ? Type::kSign : 0;
    for (int l = 0; l < kLanes; ++l) out[l] = (out[l] & clear) ^ flip;
  }
}

void write_compare(Wave& w, const Inst& in, uint64_t mask, bool writes_exec) {
  mask &= w.exec();
  w.set_s64(in.dst[0].index, mask);
  if (writes_exec) w.set_s64(sreg::kExecLo, mask);
}

template <class Type, const Predicate* kPredicates, size_t kRow, bool kWritesExec>
void compare(Wave& w, const Inst& in) {
  uint64_t a[kLanes], b[kLanes];
  fetch_lanes<Type>(w, in.src[0], a);
  fetch_lanes<Type>(w, in.src[1], b);
  uint64_t mask = 0;
  for (int l = 0; l < kLanes; ++l) mask |= uint64_t(kPredicates[kRow].holds(Type::order(a[l], b[l]))) << l;
  write_compare(w, in, mask, kWritesExec);
}

// src1 is the 10-bit class mask (a 32-bit operand for every width).
template <class Type, bool kWritesExec> void compare_class(Wave& w, const Inst& in) {
  uint64_t a[kLanes];
  LaneValues classes;
  fetch_lanes<Type>(w, in.src[0], a);
  fetch(w, in.src[1], classes);
  uint64_t mask = 0;
  for (int l = 0; l < kLanes; ++l) mask |= uint64_t((classes[l] >> Type::classify(a[l])) & 1) << l;
  write_compare(w, in, mask, kWritesExec);
}

template <class Type, const Predicate* kPredicates, size_t... kRow>
void add_rows(HandlerRegistry& r, const char* type, uint16_t flags, std::index_sequence<kRow...>) {
  auto add = [&](const char* predicate, Handler cmp, Handler cmpx) {
    const std::string suffix = std::string("_") + predicate + "_" + type;
    r.add("V_CMP" + suffix, {cmp, OperandForm::Compare, flags, 0});
    r.add("V_CMPX" + suffix, {cmpx, OperandForm::Compare, flags, 0});
  };
  (add(kPredicates[kRow].name, compare<Type, kPredicates, kRow, false>, compare<Type, kPredicates, kRow, true>), ...);
}

template <class Type> void add_float_type(HandlerRegistry& r, const char* type) {
  constexpr uint16_t kFlags = hflag::kSourceModifiersOnly;
  add_rows<Type, kFloatPredicates>(r, type, kFlags, std::make_index_sequence<std::size(kFloatPredicates)>());
  r.add(std::string("V_CMP_CLASS_") + type, {compare_class<Type, false>, OperandForm::Compare, kFlags, 0});
  r.add(std::string("V_CMPX_CLASS_") + type, {compare_class<Type, true>, OperandForm::Compare, kFlags, 0});
}
template <class Type> void add_integer_type(HandlerRegistry& r, const char* type) {
  add_rows<Type, kIntegerPredicates>(r, type, 0, std::make_index_sequence<std::size(kIntegerPredicates)>());
}

}  // namespace

void register_vector_compare(HandlerRegistry& r) {
  add_float_type<Float<16>>(r, "F16");
  add_float_type<Float<32>>(r, "F32");
  add_float_type<Float<64>>(r, "F64");
  add_integer_type<Integer<16, true>>(r, "I16");
  add_integer_type<Integer<32, true>>(r, "I32");
  add_integer_type<Integer<64, true>>(r, "I64");
  add_integer_type<Integer<16, false>>(r, "U16");
  add_integer_type<Integer<32, false>>(r, "U32");
  add_integer_type<Integer<64, false>>(r, "U64");
}

}  // namespace cdna4::emu
