#pragma once
// cdna4-run's raw kernarg mode: the explicit kernarg bytes come from --kernarg
// FILE or --kernarg-size N, buffers are placed at byte offsets with
// --buf NAME@OFFSET=..., scalars with --arg TYPE@OFFSET=VALUE.
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cdna4/runtime.hpp"

namespace cdna4::tools {

// The tool's strict number parser (throws naming `what`) and its size-checked file reader.
using ParseUint = uint64_t (*)(const std::string& text, const std::string& what);
using ReadFile = std::vector<uint8_t> (*)(const std::string& path, size_t expected_size);

// "NAME@OFFSET" -> {NAME, OFFSET}; a key without '@' is not a placement.
struct Placement {
  std::string name;
  uint64_t offset = 0;
};

std::optional<Placement> parse_placement(const std::string& key, const std::string& flag, ParseUint parse_uint) {
  size_t at = key.find('@');
  if (at == std::string::npos) return std::nullopt;
  if (at == 0 || at + 1 == key.size())
    throw Error(fmt::format("{} {}: expected NAME@OFFSET", flag, key));
  return Placement{key.substr(0, at), parse_uint(key.substr(at + 1), flag + " " + key + " offset")};
}

// Writes VALUE as TYPE (u8, u16, u32, u64, i8, i16, i32, i64, f32, f64) at `offset`.
void put_typed(KernargBlock& block, const Placement& p, const std::string& text, ParseUint parse_uint) {
  const std::string where = fmt::format("--arg {}@{}={}", p.name, p.offset, text);
  struct Type {
    std::string_view name;
    size_t size;
    bool is_signed, is_float;
  };
  static constexpr Type kTypes[] = {{"u8", 1, false, false},  {"u16", 2, false, false}, {"u32", 4, false, false},
                                    {"u64", 8, false, false}, {"i8", 1, true, false},   {"i16", 2, true, false},
                                    {"i32", 4, true, false},  {"i64", 8, true, false},  {"f32", 4, true, true},
                                    {"f64", 8, true, true}};
  const Type* type = nullptr;
  for (const Type& t : kTypes)
    if (t.name == p.name) type = &t;
  if (!type) throw Error(where + ": the type must be one of u8 u16 u32 u64 i8 i16 i32 i64 f32 f64");
  uint8_t bytes[8] = {};
  if (type->is_float) {
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (text.empty() || *end) throw Error(where + ": not a number");
    float f = float(d);
    type->size == 4 ? std::memcpy(bytes, &f, 4) : std::memcpy(bytes, &d, 8);
  } else {
    bool negative = text.starts_with("-");
    if (negative && !type->is_signed) throw Error(where + ": negative value for an unsigned type");
    uint64_t magnitude = parse_uint(text.substr(negative ? 1 : 0), where);
    int bits = int(type->size) * 8;
    uint64_t limit = bits == 64 ? UINT64_MAX : (1ull << bits) - 1;
    if (type->is_signed) limit >>= 1;
    if (magnitude > limit + (negative ? 1 : 0)) throw Error(where + ": out of range");
    uint64_t value = negative ? uint64_t(0) - magnitude : magnitude;
    std::memcpy(bytes, &value, 8);
  }
  block.put(p.offset, bytes, type->size);
}

// "@FILE" (the file's bytes) or "hex:0011AA.." for a by-value argument of `size` bytes.
std::optional<std::vector<uint8_t>> parse_raw_bytes(const std::string& text, size_t size, const std::string& where,
                                                    ReadFile read_file) {
  std::vector<uint8_t> bytes;
  if (text.starts_with("@")) {
    bytes = read_file(text.substr(1), size);
  } else if (text.starts_with("hex:")) {
    std::string_view hex = std::string_view(text).substr(4);
    if (hex.size() % 2) throw Error(where + ": odd number of hex digits");
    for (size_t i = 0; i < hex.size(); i += 2) {
      unsigned value = 0;
      for (char c : hex.substr(i, 2)) {
        int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                    : (c >= 'a' && c <= 'f')                     ? c - 'a' + 10
                    : (c >= 'A' && c <= 'F')                     ? c - 'A' + 10
                                                                 : -1;
        if (digit < 0) throw Error(fmt::format("{}: '{}' is not a hex digit", where, c));
        value = value * 16 + unsigned(digit);
      }
      bytes.push_back(uint8_t(value));
    }
  } else {
    return std::nullopt;
  }
  if (bytes.size() != size)
    throw Error(fmt::format("{}: {} bytes given, the argument has {}", where, bytes.size(), size));
  return bytes;
}

}  // namespace cdna4::tools
