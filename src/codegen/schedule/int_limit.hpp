#pragma once
// The values an integer field of a schedule may take: a range lo..hi or a short
// list. Its words ("expected 64 or 128, got 96", "expected an integer in 1..4,
// got 5") are the same wherever the value is checked: the JSON readers and the
// checks of a schedule built in code.
#include <optional>
#include <string>
#include <vector>

namespace cdna4::detail {

struct IntLimit {
  int lo = 0, hi = 0;
  std::vector<int> only;  // when not empty: exactly these values

  static IntLimit range(int lo, int hi) { return {lo, hi, {}}; }
  static IntLimit one_of(std::vector<int> values) { return {0, 0, std::move(values)}; }

  bool admits(long long value) const {
    if (only.empty()) return value >= lo && value <= hi;
    for (int v : only)
      if (v == value) return true;
    return false;
  }
  // "an integer in 1..4", or "32, 64 or 128".
  std::string expected() const {
    if (only.empty()) return "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    std::string list;
    for (size_t i = 0; i < only.size(); ++i)
      list += (i == 0 ? "" : i + 1 == only.size() ? " or " : ", ") + std::to_string(only[i]);
    return list;
  }
  std::string refusal(const std::string& got) const { return "expected " + expected() + ", got " + got; }
};

// A refused field: its JSON path (ops[3].kpack) and what was wrong.
struct FieldProblem {
  std::string path, message;
};
using MaybeProblem = std::optional<FieldProblem>;

// `value` at `path` outside `limit`, in the limit's words.
inline MaybeProblem outside(const IntLimit& limit, long long value, const std::string& path) {
  if (limit.admits(value)) return std::nullopt;
  return FieldProblem{path, limit.refusal(std::to_string(value))};
}

}  // namespace cdna4::detail
