#pragma once
#include <cdna4/schedule.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace schedule_test {

inline std::string schedules_dir() { return std::string(CDNA4_SOURCE_DIR) + "/schedules/"; }

// Every schedule shipped in schedules/ (file names, sorted).
inline const std::vector<std::string>& shipped_files() {
  static const std::vector<std::string> files = [] {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(schedules_dir()))
      if (e.path().extension() == ".json" && e.path().filename() != "schedule.schema.json")
        out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }();
  return files;
}

inline const std::vector<std::string>& fixture_files() {
  static const std::vector<std::string> files = {
      "fixtures/seed001_interleave4_buggy.json", "fixtures/seed001_interleave4_one_slot.json",
      "fixtures/seed000_prefetch2_kpack_phases.json"};
  return files;
}

inline cdna4::Schedule load(const std::string& relative) { return cdna4::load_schedule(schedules_dir() + relative); }
inline cdna4::Schedule planned(const std::string& relative) { return cdna4::plan(load(relative)); }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first finding of `rule`, or "" (so a failing CHECK shows every finding).
inline std::string finding(const cdna4::VerifyReport& report, const std::string& rule) {
  for (const auto& f : report.findings)
    if (f.rule == rule) return f.message;
  return "";
}

inline int op_index(const cdna4::Schedule& s, int order) {
  for (size_t i = 0; i < s.ops.size(); ++i)
    if (s.ops[i].order == order) return static_cast<int>(i);
  return -1;
}

}  // namespace schedule_test
