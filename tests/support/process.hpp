#pragma once
// Test support: run an external tool, read and write files, make temp dirs.
#include <cstdint>
#include <string>
#include <vector>

namespace cdna4::test {

struct CommandResult {
  int status = -1;     // exit code, or -1 when it did not exit normally
  std::string output;  // stdout and stderr together
};

// Runs argv[0] (searched in PATH) with the arguments; never through a shell.
CommandResult run_command(const std::vector<std::string>& argv);
// The same, sending SIGINT `seconds` after the process has installed its SIGINT
// handler (a fixed delay from the start would race the loading of a large
// program on a busy machine, which the default disposition would end silently).
CommandResult run_command_interrupted(const std::vector<std::string>& argv, double seconds);

std::vector<uint8_t> read_binary(const std::string& path);
std::string read_text_file(const std::string& path);
void write_binary(const std::string& path, const std::vector<uint8_t>& bytes);

// A fresh directory under the system temp dir, removed with its contents.
struct TempDir {
  std::string path;
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path + "/" + name; }
  size_t entry_count() const;
};

std::string source_path(const std::string& relative);  // path inside the checkout

}  // namespace cdna4::test
