#pragma once
// Race and hazard reports grouped by (kind, rule, pc): the first occurrence is
// kept with its facts, repeats only raise its count, so one instruction racing
// in every wave and every loop trip fills one entry and a different finding is
// never crowded out. At most `limit` groups are kept; occurrences of groups
// beyond it are counted, not stored.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "cdna4/race_report.hpp"

namespace cdna4::emu {

class RaceGroups {
 public:
  explicit RaceGroups(size_t limit = 16) : limit_(limit) {}

  // Counts one more occurrence when (kind, rule, pc) is kept already and
  // returns null; otherwise a slot for the new group's first report (count 1),
  // or null when `limit` groups are kept (the occurrence is counted as dropped).
  RaceReport* occurrence(RaceKind kind, HazardRule rule, uint64_t pc) {
    auto [it, inserted] = index_.try_emplace(key(kind, rule, pc), reports_.size());
    if (!inserted) {
      if (it->second == kDropped) ++dropped_;
      else ++reports_[it->second].count;
      return nullptr;
    }
    if (reports_.size() >= limit_) {
      it->second = kDropped;
      ++dropped_;
      return nullptr;
    }
    RaceReport& r = reports_.emplace_back();
    r.kind = kind;
    r.rule = rule;
    r.pc = pc;
    return &r;
  }

  // Adds another set's groups (in its order) to this one's.
  void merge(const RaceGroups& other) {
    dropped_ += other.dropped_;
    for (const RaceReport& r : other.reports_) {
      if (RaceReport* slot = occurrence(r.kind, r.rule, r.pc)) *slot = r;
      else if (RaceReport* kept = find(r)) kept->count += r.count - 1;
      else dropped_ += r.count - 1;
    }
  }

  void reset(size_t limit) {
    limit_ = limit;
    reports_.clear();
    index_.clear();
    dropped_ = 0;
  }
  bool empty() const { return reports_.empty() && dropped_ == 0; }
  const std::vector<RaceReport>& reports() const { return reports_; }
  std::vector<RaceReport> take() { return std::move(reports_); }
  uint64_t dropped() const { return dropped_; }

 private:
  static constexpr size_t kDropped = SIZE_MAX;
  static uint64_t key(RaceKind kind, HazardRule rule, uint64_t pc) {
    return pc << 16 | uint64_t(kind) << 8 | uint64_t(rule);
  }
  RaceReport* find(const RaceReport& r) {
    auto it = index_.find(key(r.kind, r.rule, r.pc));
    return it == index_.end() || it->second == kDropped ? nullptr : &reports_[it->second];
  }

  size_t limit_;
  std::vector<RaceReport> reports_;
  std::unordered_map<uint64_t, size_t> index_;  // group -> index into reports_, or kDropped
  uint64_t dropped_ = 0;
};

}  // namespace cdna4::emu
