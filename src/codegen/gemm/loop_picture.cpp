#include "codegen/gemm/loop_picture.hpp"

#include "cdna4/gemm.hpp"

#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace cdna4::codegen {

namespace {

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// The picture's name for an instruction, or "" for one it leaves out.
std::string kind_of(const std::string& line) {
  const std::string mnemonic = line.substr(0, line.find(' '));
  if (starts_with(mnemonic, "v_mfma")) return mnemonic;
  if (starts_with(mnemonic, "buffer_load"))  // LDS-DMA G2S, or an MX scale into a register
    return line.find(" lds") != std::string::npos ? mnemonic + " lds" : mnemonic;
  if (starts_with(mnemonic, "ds_")) return mnemonic;
  if (mnemonic == "s_waitcnt" || mnemonic == "s_setprio") return line;
  if (mnemonic == "s_barrier") return mnemonic;
  return "";
}

using Runs = std::vector<std::pair<std::string, int>>;

std::string draw(const Runs& runs) {
  std::string out;
  for (const auto& [kind, n] : runs) out += n > 1 ? fmt::format("  {} x{}\n", kind, n) : fmt::format("  {}\n", kind);
  return out;
}

// The loop's iterations differ only in LDS slots and register versions, which the
// picture does not show: identical iterations are drawn once.
std::string draw_loop(const std::string& label, const std::vector<Runs>& iterations) {
  bool same = true;
  for (const auto& it : iterations) same = same && it == iterations.front();
  if (same) return fmt::format("{} ({} iteration{} per trip, each:)\n{}", label, iterations.size(),
                               iterations.size() == 1 ? "" : "s", draw(iterations.front()));
  std::string out = label + "\n";
  for (size_t i = 0; i < iterations.size(); ++i) out += fmt::format(" iteration {}:\n{}", i + 1, draw(iterations[i]));
  return out;
}

}  // namespace

std::string steady_loop_picture(const std::string& assembly) {
  std::istringstream in(assembly);
  std::string out, label, raw;
  std::vector<Runs> iterations;
  bool inside = false;
  while (std::getline(in, raw)) {
    const std::string text = trim(raw);
    if (inside && starts_with(text, "// iteration")) {
      iterations.emplace_back();
      continue;
    }
    const std::string line = trim(text.substr(0, text.find("//")));
    if (line.empty()) continue;
    if (!inside) {
      if (line.back() == ':' && line.find("steady_loop") != std::string::npos) {
        inside = true;
        label = line;
        iterations.clear();
      }
      continue;
    }
    if (starts_with(line, "s_cbranch")) {
      out += draw_loop(label, iterations);
      inside = false;
      continue;
    }
    const std::string kind = kind_of(line);
    if (kind.empty() || iterations.empty()) continue;
    Runs& runs = iterations.back();
    if (!runs.empty() && runs.back().first == kind) ++runs.back().second;
    else runs.emplace_back(kind, 1);
  }
  return out;
}

}  // namespace cdna4::codegen

std::string cdna4::steady_loop_picture(const std::string& assembly) { return codegen::steady_loop_picture(assembly); }
