#pragma once
// Limits on schedule JSON checked before the document becomes a tree: nesting
// depth (a deep document would overflow the stack of any recursive walk) and
// duplicate keys (nlohmann would keep the last one silently). And excerpts of
// values for messages that cost what they show, not the size of the value.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace cdna4::detail {

constexpr int kMaxJsonDepth = 64;  // schedules need 4

// Throws ScheduleError (file, JSON path) for invalid JSON, nesting deeper than
// kMaxJsonDepth, or a key given twice in one object.
void check_json_structure(std::string_view text, const std::string& file);

// "line L column C" of byte offset `byte` (1-based, as parsers report it).
std::string line_and_column(std::string_view text, size_t byte);

// At most about `limit` characters of `v` as JSON, "..." when cut.
std::string json_excerpt(const nlohmann::json& v, size_t limit = 40);

}  // namespace cdna4::detail
