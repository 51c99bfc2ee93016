#pragma once
// llvm-mca-22 on a kernel's steady-state loop body: the single-wave baseline
// bench_model prints beside the timing model (docs/model.md "llvm-mca column").
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace bench {

// LLVM's GCN scheduling models count in units of one wave64 issue (SISchedule.td:
// "latency values are 1 / (operations / cycle) / 4"); an N-pass MFMA holds HWXDL
// for N of them, where the hardware takes 4 N clocks.
inline constexpr double kClocksPerMcaCycle = 4;

struct LoopBody {
  std::string label;
  std::string text;  // the label, then every instruction up to and including the back branch
  int mfma = 0;
  double flops = 0;  // of one wave per trip
};

inline std::string strip_comment_and_blanks(const std::string& line) {
  std::string s = line.substr(0, std::min(line.find("//"), line.find(';')));
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Flops of one wave's MFMA: 2 M N K per block ("v_mfma_f32_4x4x4_16b_f16": 16 blocks); 0 otherwise.
inline double mfma_flops(const std::string& instruction) {
  static const std::regex shape(R"(^v_mfma\w*?_(\d+)x(\d+)x(\d+)(?:_(\d+)b)?)");
  std::smatch m;
  if (!std::regex_search(instruction, m, shape)) return 0;
  const double blocks = m[4].matched ? std::stod(m[4]) : 1;
  return 2 * std::stod(m[1]) * std::stod(m[2]) * std::stod(m[3]) * blocks;
}

// The loop closed by a backward conditional branch ("LABEL:" ... "s_cbranch_* LABEL")
// holding the most MFMAs, the first of equals; nullopt when the kernel has none.
inline std::optional<LoopBody> steady_loop_body(const std::string& assembly) {
  static const std::regex label_line(R"(^([A-Za-z_.$][\w.$]*):$)");
  static const std::regex back_branch(R"(^s_cbranch_\w+\s+([A-Za-z_.$][\w.$]*)$)");
  std::vector<std::string> lines;  // instructions and labels; directives left out
  std::istringstream in(assembly);
  for (std::string raw; std::getline(in, raw);) {
    std::string line = strip_comment_and_blanks(raw);
    const bool directive = !line.empty() && line[0] == '.' && line.back() != ':';
    if (!line.empty() && !directive) lines.push_back(std::move(line));
  }

  std::optional<LoopBody> best;
  std::vector<std::pair<std::string, size_t>> labels;
  std::smatch m;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (std::regex_match(lines[i], m, label_line)) labels.emplace_back(m[1], i);
    if (!std::regex_match(lines[i], m, back_branch)) continue;
    for (const auto& [label, at] : labels) {
      if (label != m[1].str()) continue;
      LoopBody loop{label, "", 0, 0};
      for (size_t j = at; j <= i; ++j) {
        loop.text += lines[j] + "\n";
        const double flops = mfma_flops(lines[j]);
        loop.mfma += flops > 0;
        loop.flops += flops;
      }
      if (loop.mfma > 0 && (!best || loop.mfma > best->mfma)) best = std::move(loop);
    }
  }
  return best;
}

// llvm-mca-22 on PATH, else LLVM 22's own bin directory; nullopt when neither exists.
inline std::optional<std::string> find_llvm_mca() {
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty() && access((dir + "/llvm-mca-22").c_str(), X_OK) == 0) return dir + "/llvm-mca-22";
  }
  if (access("/usr/lib/llvm-22/bin/llvm-mca", X_OK) == 0) return "/usr/lib/llvm-22/bin/llvm-mca";
  return std::nullopt;
}

struct McaResult {
  double cycles_per_iteration = 0;  // llvm-mca cycles (kClocksPerMcaCycle clocks each)
  std::string error;                // non-empty when llvm-mca failed or printed no summary
};

inline std::optional<double> summary_number(const std::string& output, const char* key) {
  const size_t at = output.find(key);
  if (at == std::string::npos) return std::nullopt;
  return std::strtod(output.c_str() + at + std::string(key).size(), nullptr);
}

inline McaResult run_llvm_mca(const std::string& mca, const std::string& body, int iterations) {
  const std::filesystem::path input =
      std::filesystem::temp_directory_path() / fmt::format("cdna4-bench-mca-{}.s", getpid());
  std::ofstream(input) << body;
  const std::string command =
      fmt::format("'{}' -mtriple=amdgcn -mcpu=gfx950 -iterations={} -all-views=false -summary-view '{}' 2>&1", mca,
                  iterations, input.string());
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {0, "cannot start llvm-mca"};
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  const int status = pclose(pipe);
  std::filesystem::remove(input);

  const auto total = summary_number(output, "Total Cycles:");
  const auto done = summary_number(output, "Iterations:");
  if (status != 0 || !total || !done || *done <= 0)
    return {0, fmt::format("llvm-mca failed: {}", output.substr(0, output.find('\n')))};
  return {*total / *done, ""};
}

}  // namespace bench
