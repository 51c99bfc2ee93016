#pragma once
// A strict MessagePack reader for the AMDGPU metadata note, and a YAML printer
// for displaying what it read. Map keys must be strings, unique within their
// map; nesting is bounded; ext types and trailing bytes are refused.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cdna4::msgpack {

struct Value {
  enum class Kind { Nil, Bool, Int, UInt, Float, String, Binary, Array, Map };
  Kind kind = Kind::Nil;
  bool boolean = false;
  int64_t integer = 0;    // Int: always negative (non-negative integers are UInt)
  uint64_t unsigned_integer = 0;
  double real = 0;
  std::string text;       // String, Binary
  std::vector<Value> items;        // Array elements, or Map values in document order
  std::vector<std::string> keys;   // Map keys, keys[i] naming items[i]

  const Value* find(std::string_view key) const;  // Map only; nullptr when absent
};

// "a string", "an unsigned integer", ... for messages.
const char* describe(Value::Kind kind);

constexpr int kMaxDepth = 32;

// Throws cdna4::Error saying what is wrong and at which byte.
Value parse(std::span<const uint8_t> bytes);

// Block-style YAML of a parsed document, keys padded as LLVM prints them.
std::string to_yaml(const Value& root);

}  // namespace cdna4::msgpack
