#pragma once
// Reading a schedule document (GEMM or attention): the size limit, the JSON
// limits, the kind, and a Reader whose every error names the file and the JSON
// path of the offending field. Both schedule parsers read through it.
#include <cdna4/schedule.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "int_limit.hpp"
#include "json_limits.hpp"
#include "op_list.hpp"
#include "vocabulary/rows.hpp"

namespace cdna4::detail {

using json = nlohmann::json;

// 4096 ops of about 100 bytes each fit many times over.
constexpr uintmax_t kMaxScheduleBytes = uintmax_t(16) << 20;

template <typename T>
using Choices = std::vector<std::pair<std::string, T>>;

// The names of E's rows that `keep` accepts, as the choices of a field.
template <typename E, typename Keep = decltype(vocabulary::every_row)>
Choices<E> choices_of(Keep keep = vocabulary::every_row) {
  Choices<E> out;
  for (const auto& row : vocabulary::Vocabulary<E>::rows)
    if (keep(row)) out.emplace_back(row.name, row.value);
  return out;
}

// The names of some values of E, in the given order.
template <typename E>
Choices<E> choices_of(std::initializer_list<E> values) {
  Choices<E> out;
  for (E value : values) out.emplace_back(to_string(value), value);
  return out;
}

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw ScheduleError(file_, path, message);
  }

  static std::string got(const json& v) { return json_excerpt(v); }

  void only_fields(const json& obj, const std::string& path, std::initializer_list<const char*> allowed) const {
    only_fields(obj, path, std::vector<const char*>(allowed));
  }
  void only_fields(const json& obj, const std::string& path, const std::vector<const char*>& allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (std::find_if(allowed.begin(), allowed.end(), [&](const char* a) { return it.key() == a; }) != allowed.end())
        continue;
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(join(path, it.key()), fmt::format("unknown field (allowed here: {})", list));
    }
  }

  const json& object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected a JSON object, got " + got(v));
    return v;
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  const json* find(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  const json& need(const json& obj, const std::string& path, const char* key, const char* what) const {
    const json* v = find(obj, key);
    if (!v) fail(join(path, key), fmt::format("missing; expected {}", what));
    return *v;
  }

  // An integer `limit` admits; every refusal in the limit's words.
  int integer(const json& v, const std::string& path, const IntLimit& limit) const {
    // shown as written: 2^63 read as a long long is negative
    if (!v.is_number_integer() || !limit.admits(v.get<long long>())) fail(path, limit.refusal(got(v)));
    return static_cast<int>(v.get<long long>());
  }
  int integer(const json& v, const std::string& path, int lo, int hi) const {
    return integer(v, path, IntLimit::range(lo, hi));
  }

  std::optional<int> optional_integer(const json& obj, const std::string& path, const char* key,
                                      const IntLimit& limit) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    return integer(*v, join(path, key), limit);
  }
  std::optional<int> optional_integer(const json& obj, const std::string& path, const char* key, int lo,
                                      int hi) const {
    return optional_integer(obj, path, key, IntLimit::range(lo, hi));
  }

  // An integer that must be one of `allowed` (e.g. waves: 4 or 8).
  int one_of(const json& v, const std::string& path, std::initializer_list<int> allowed) const {
    return integer(v, path, IntLimit::one_of(allowed));
  }

  template <typename T>
  T choice(const json& v, const std::string& path, Choices<T> choices) const {
    std::string list;
    for (const auto& [name, value] : choices) list += (list.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    if (v.is_string())
      for (const auto& [name, value] : choices)
        if (v.get<std::string>() == name) return value;
    fail(path, fmt::format("expected one of {}, got {}", list, got(v)));
  }

  // The fields every op has: stage, order, phase and the waits before it (kOpTiming).
  template <typename Op>
  void op_timing(const json& v, const std::string& path, Op& op) const {
    const OpTimingLimits& l = kOpTiming;
    op.stage = integer(need(v, path, "stage", l.stage.expected().c_str()), path + ".stage", l.stage);
    const std::string unique_order = fmt::format("a unique integer in {}..{}", l.order.lo, l.order.hi);
    op.order = integer(need(v, path, "order", unique_order.c_str()), path + ".order", l.order);
    op.phase = optional_integer(v, path, "phase", l.phase).value_or(0);
    op.vmcnt = optional_integer(v, path, "vmcnt", l.wait);
    op.lgkmcnt = optional_integer(v, path, "lgkmcnt", l.wait);
  }

  // The fields of two op kinds both schedule kinds have: a setprio op's prio,
  // and a wait op's counts (a bare wait needs at least one).
  int prio(const json& v, const std::string& path) const {
    return integer(need(v, path, "prio", kOpTiming.prio.expected().c_str()), path + ".prio", kOpTiming.prio);
  }
  template <typename Op>
  void need_wait_counts(const std::string& path, const Op& op) const {
    if (const MaybeProblem p = wait_counts_problem(op, path)) fail(p->path, p->message);
  }

  // "ops": a non-empty array of at most 4096 ops, each read by `read_op(v, path)`.
  template <typename Op, typename ReadOp>
  std::vector<Op> ops(const json& v, ReadOp&& read_op) const {
    if (!v.is_array() || v.empty()) fail("ops", "expected a non-empty array of ops, got " + got(v));
    if (v.size() > 4096) fail("ops", fmt::format("expected at most 4096 ops, got {}", v.size()));
    std::vector<Op> out;
    for (size_t i = 0; i < v.size(); ++i) out.push_back(read_op(v[i], fmt::format("ops[{}]", i)));
    return out;
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// The kernel name rule: letters, digits and '_', not starting with a digit, at most 128.
bool valid_name(const std::string& name);
std::string read_name(const Reader& r, const json& root);

// The document's top-level value after the size and structure limits.
json parse_document(std::string_view text, const std::string& file);
// A schedule file's text (a regular file of at most kMaxScheduleBytes).
std::string read_schedule_text(const std::string& path);

// The top-level "kind": "gemm" (also when absent) or "attention".
std::string kind_of(const Reader& r, const json& root);

// lds_buffers when a schedule does not give it: num_stages, else the stage span
// from the first G2S to the last S2R.
template <typename Op, typename Kind>
int default_lds_buffers(std::optional<int> num_stages, const std::vector<Op>& ops, Kind g2s, Kind s2r) {
  if (num_stages) return *num_stages;
  int first_g2s = 1 << 20, last_s2r = -1;
  for (const Op& op : ops) {
    if (op.kind == g2s) first_g2s = std::min(first_g2s, op.stage);
    if (op.kind == s2r) last_s2r = std::max(last_s2r, op.stage);
  }
  return std::max(1, last_s2r - first_g2s + 1);
}

// "num_stages" (the planner writes the ops) or "ops", exactly one; then
// "lds_buffers", given or default_lds_buffers. `read_op(v, path)` reads one op.
template <typename Schedule, typename Kind, typename ReadOp>
void read_pipeline(const Reader& r, const json& root, Schedule& s, const IntLimit& num_stages,
                   const IntLimit& lds_buffers, Kind g2s, Kind s2r, ReadOp&& read_op) {
  using Op = typename decltype(s.ops)::value_type;
  const json* stages = r.find(root, "num_stages");
  const json* ops = r.find(root, "ops");
  if (stages && ops) r.fail("num_stages", "give either num_stages (the planner writes the ops) or ops, not both");
  if (!stages && !ops) r.fail("ops", "missing; expected an ops array or num_stages");
  if (stages) s.num_stages = r.integer(*stages, "num_stages", num_stages);
  if (ops) s.ops = r.ops<Op>(*ops, read_op);
  if (const json* v = r.find(root, "lds_buffers"))
    s.lds_buffers = r.integer(*v, "lds_buffers", lds_buffers);
  else
    s.lds_buffers = default_lds_buffers(s.num_stages, s.ops, g2s, s2r);
}

}  // namespace cdna4::detail
