#pragma once
// The "offset:N" modifier of memory instructions is an MCInst immediate like any
// operand: templates treat it as one more operand, so one template serves every
// offset of the same encodable width (12 bits for buffer, 16 for LDS).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cdna4::codegen {

struct ModifierOffset {
  size_t begin = 0, end = 0;  // the digits inside the modifier text
  int64_t value = 0;
};

// "offen offset:64 lds" -> 64 (and where it is); nothing for no or a zero offset.
inline std::optional<ModifierOffset> find_modifier_offset(std::string_view mods) {
  constexpr std::string_view tag = "offset:";
  for (size_t at = mods.find(tag); at != std::string_view::npos; at = mods.find(tag, at + 1)) {
    if (at != 0 && mods[at - 1] != ' ') continue;
    ModifierOffset o{at + tag.size(), at + tag.size(), 0};
    while (o.end < mods.size() && mods[o.end] >= '0' && mods[o.end] <= '9' && o.end - o.begin < 9)
      o.value = o.value * 10 + (mods[o.end++] - '0');
    if (o.end == o.begin || (o.end < mods.size() && mods[o.end] != ' ') || o.value == 0) return std::nullopt;
    return o;
  }
  return std::nullopt;
}

// The width class of an offset: the parser checks the range, so a template holds one class.
inline char offset_class(int64_t value) { return value < 4096 ? '2' : value < 65536 ? '6' : 'x'; }

}  // namespace cdna4::codegen
