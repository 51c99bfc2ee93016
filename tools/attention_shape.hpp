#pragma once
// cdna4-attn's --shape: "BxNQxNKxHxHKVxD" (batch, queries, keys, query heads,
// key/value heads, head dimension), six strict unsigned numbers (cli_numbers).
// Whether they make a problem (H a multiple of Hkv, D 64 or 128) is validate()'s
// to say, in words naming the field.
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cdna4/attention.hpp"
#include "cli_numbers.hpp"

namespace cdna4::tools {

inline constexpr const char* kAttentionShapeForm = "BxNQxNKxHxHKVxD";

template <typename Failure>
AttentionShape parse_attention_shape(std::string_view text, std::string_view flag) {
  constexpr const char* kNames[6] = {"B", "NQ", "NK", "H", "HKV", "D"};
  int64_t dims[6] = {};
  std::string_view rest = text;
  for (int i = 0; i < 6; ++i) {
    const size_t x = i < 5 ? rest.find('x') : std::string_view::npos;
    if (i < 5 && x == std::string_view::npos)
      throw Failure(fmt::format("{} '{}': expected {} (six numbers), e.g. 2x1024x1024x16x4x128", flag, text,
                                kAttentionShapeForm));
    dims[i] = int64_t(parse_unsigned<Failure>(rest.substr(0, x), fmt::format("{} {}", flag, kNames[i]), INT64_MAX));
    rest = x == std::string_view::npos ? std::string_view() : rest.substr(x + 1);
  }
  AttentionShape shape;
  shape.batch = dims[0], shape.seqlen_q = dims[1], shape.seqlen_k = dims[2];
  shape.heads = dims[3], shape.heads_kv = dims[4], shape.dim = dims[5];
  return shape;
}

// "2x300x300x8x1x128" (the form --shape takes).
inline std::string attention_shape_text(const AttentionShape& s) {
  return fmt::format("{}x{}x{}x{}x{}x{}", s.batch, s.seqlen_q, s.seqlen_k, s.heads, s.heads_kv, s.dim);
}

}  // namespace cdna4::tools
