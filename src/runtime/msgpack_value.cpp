#include "runtime/msgpack_value.hpp"

#include <fmt/format.h>

#include <bit>
#include <cctype>
#include <cstring>
#include <unordered_set>

#include "cdna4/error.hpp"

namespace cdna4::msgpack {
namespace {

class Parser {
 public:
  explicit Parser(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  Value document() {
    Value v = value(0);
    if (at_ != bytes_.size())
      throw Error(fmt::format("metadata: {} bytes after the document, which ends at byte {}",
                              bytes_.size() - at_, at_));
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what, size_t at) const {
    throw Error(fmt::format("metadata: {} at byte {}", what, at));
  }

  void need(uint64_t n) const {
    if (n > bytes_.size() - at_) fail(fmt::format("{} more bytes needed, the note ends", n), at_);
  }

  uint64_t big_endian(int n) {
    need(n);
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = v << 8 | bytes_[at_ + i];
    at_ += n;
    return v;
  }

  std::string raw(uint64_t n) {
    need(n);
    std::string s(reinterpret_cast<const char*>(bytes_.data() + at_), n);
    at_ += n;
    return s;
  }

  Value integer(int64_t v) {
    Value out;
    if (v < 0) {
      out.kind = Value::Kind::Int;
      out.integer = v;
    } else {
      out.kind = Value::Kind::UInt;
      out.unsigned_integer = uint64_t(v);
    }
    return out;
  }

  Value container(Value::Kind kind, uint64_t count, int depth, size_t start) {
    if (depth >= kMaxDepth) fail(fmt::format("nesting deeper than {}", kMaxDepth), start);
    // Each element takes at least one byte: a larger count cannot be real.
    const uint64_t min_bytes = kind == Value::Kind::Map ? 2 : 1;
    if (count > (bytes_.size() - at_) / min_bytes)
      fail(fmt::format("{} of {} elements in the {} bytes left", describe(kind), count, bytes_.size() - at_),
           start);
    Value out;
    out.kind = kind;
    std::unordered_set<std::string> keys;
    for (uint64_t i = 0; i < count; ++i) {
      if (kind == Value::Kind::Array) {
        out.items.push_back(value(depth + 1));
        continue;
      }
      const size_t key_at = at_;
      Value key = value(depth + 1);
      if (key.kind != Value::Kind::String)
        fail(fmt::format("map key is {}; metadata keys are strings", describe(key.kind)), key_at);
      if (!keys.insert(key.text).second) fail(fmt::format("duplicate map key '{}'", key.text), key_at);
      out.items.push_back(value(depth + 1));
      out.keys.push_back(std::move(key.text));
    }
    return out;
  }

  Value value(int depth) {
    const size_t start = at_;
    const uint8_t tag = uint8_t(big_endian(1));
    Value v;
    if (tag <= 0x7f) return integer(tag);
    if (tag >= 0xe0) return integer(int8_t(tag));
    if ((tag & 0xf0) == 0x80) return container(Value::Kind::Map, tag & 0x0f, depth, start);
    if ((tag & 0xf0) == 0x90) return container(Value::Kind::Array, tag & 0x0f, depth, start);
    if ((tag & 0xe0) == 0xa0) {
      v.kind = Value::Kind::String;
      v.text = raw(tag & 0x1f);
      return v;
    }
    switch (tag) {
      case 0xc0: return v;
      case 0xc2: case 0xc3:
        v.kind = Value::Kind::Bool;
        v.boolean = tag == 0xc3;
        return v;
      case 0xc4: case 0xc5: case 0xc6:
        v.kind = Value::Kind::Binary;
        v.text = raw(big_endian(1 << (tag - 0xc4)));
        return v;
      case 0xca:
        v.kind = Value::Kind::Float;
        v.real = std::bit_cast<float>(uint32_t(big_endian(4)));
        return v;
      case 0xcb:
        v.kind = Value::Kind::Float;
        v.real = std::bit_cast<double>(big_endian(8));
        return v;
      case 0xcc: case 0xcd: case 0xce: case 0xcf:
        v.kind = Value::Kind::UInt;
        v.unsigned_integer = big_endian(1 << (tag - 0xcc));
        return v;
      case 0xd0: return integer(int8_t(big_endian(1)));
      case 0xd1: return integer(int16_t(big_endian(2)));
      case 0xd2: return integer(int32_t(big_endian(4)));
      case 0xd3: return integer(int64_t(big_endian(8)));
      case 0xd9: case 0xda: case 0xdb:
        v.kind = Value::Kind::String;
        v.text = raw(big_endian(1 << (tag - 0xd9)));
        return v;
      case 0xdc: case 0xdd: return container(Value::Kind::Array, big_endian(tag == 0xdc ? 2 : 4), depth, start);
      case 0xde: case 0xdf: return container(Value::Kind::Map, big_endian(tag == 0xde ? 2 : 4), depth, start);
    }
    fail(fmt::format("unsupported MessagePack type {:#04x}", tag), start);
  }

  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

bool plain(const std::string& s) {
  if (s.empty() || s == "true" || s == "false" || s == "null" || s == "~") return false;
  if (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s == ".") return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' && c != '$') return false;
  return true;
}

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", uint8_t(c));
    else out += c;
  }
  return out + "'";
}

std::string scalar(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Nil: return "~";
    case Value::Kind::Bool: return v.boolean ? "true" : "false";
    case Value::Kind::Int: return std::to_string(v.integer);
    case Value::Kind::UInt: return std::to_string(v.unsigned_integer);
    case Value::Kind::Float: return fmt::format("{}", v.real);
    case Value::Kind::String: return plain(v.text) ? v.text : quoted(v.text);
    case Value::Kind::Binary: return fmt::format("!!binary '{} bytes'", v.text.size());
    default: return "";
  }
}

bool is_container(const Value& v) { return v.kind == Value::Kind::Array || v.kind == Value::Kind::Map; }

// Prints `v`, whose first line continues a line already begun ("key:" or "- ").
void print(std::string& out, const Value& v, int indent, bool after_dash) {
  const std::string pad(indent, ' ');
  if (v.kind == Value::Kind::Array) {
    if (v.items.empty()) return void(out += " []\n");
    if (!after_dash) out += "\n";
    bool first = true;
    for (const Value& item : v.items) {
      if (!first || !after_dash) out += pad;
      out += "- ";
      first = false;
      if (is_container(item)) print(out, item, indent + 2, true);
      else out += scalar(item) + "\n";
    }
  } else if (v.kind == Value::Kind::Map) {
    if (v.items.empty()) return void(out += " {}\n");
    if (!after_dash) out += "\n";
    for (size_t i = 0; i < v.items.size(); ++i) {
      const std::string& key = v.keys[i];
      const Value& field = v.items[i];
      const bool first = i == 0;
      const std::string name = plain(key) ? key : quoted(key);
      if (!first || !after_dash) out += pad;
      out += name + ":";
      if (is_container(field)) {
        print(out, field, indent + 2, false);
      } else {
        out += std::string(name.size() < 16 ? 16 - name.size() : 1, ' ') + scalar(field) + "\n";
      }
    }
  } else {
    out.append(" ").append(scalar(v)).append("\n");
  }
}

}  // namespace

const Value* Value::find(std::string_view key) const {
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) return &items[i];
  return nullptr;
}

const char* describe(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::Nil: return "nil";
    case Value::Kind::Bool: return "a boolean";
    case Value::Kind::Int: return "a negative integer";
    case Value::Kind::UInt: return "an unsigned integer";
    case Value::Kind::Float: return "a float";
    case Value::Kind::String: return "a string";
    case Value::Kind::Binary: return "binary data";
    case Value::Kind::Array: return "an array";
    case Value::Kind::Map: return "a map";
  }
  return "?";
}

Value parse(std::span<const uint8_t> bytes) { return Parser(bytes).document(); }

std::string to_yaml(const Value& root) {
  std::string out = "---";
  if (is_container(root)) {
    print(out, root, 0, false);
  } else {
    out.append(" ").append(scalar(root)).append("\n");
  }
  return out + "...\n";
}

}  // namespace cdna4::msgpack
