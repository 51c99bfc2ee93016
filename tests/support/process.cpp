#include "support/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

extern char** environ;

namespace cdna4::test {

namespace {

// Whether the process catches SIGINT (/proc/PID/status, SigCgt: a hex mask, bit signal - 1).
bool catches_sigint(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (SIGINT - 1)) & 1;
  return false;
}

CommandResult run(const std::vector<std::string>& argv, double interrupt_after) {
  TempDir dir;
  const std::string log = dir.file("output");
  std::vector<char*> args;
  std::vector<std::string> copy = argv;
  for (auto& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  CommandResult r;
  if (rc != 0) {
    r.output = std::string("cannot start ") + argv[0] + ": " + std::strerror(rc);
    return r;
  }
  int status = 0;
  if (interrupt_after >= 0) {
    // Up to two minutes for the handler, polled every 10 ms; a process that exits first is reaped below.
    for (int i = 0; i < 12000 && !catches_sigint(pid) && waitpid(pid, &status, WNOHANG) == 0; ++i) usleep(10000);
    usleep(useconds_t(interrupt_after * 1e6));
    kill(pid, SIGINT);
  }
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.output = read_text_file(log);
  return r;
}

}  // namespace

CommandResult run_command(const std::vector<std::string>& argv) { return run(argv, -1); }

CommandResult run_command_interrupted(const std::vector<std::string>& argv, double seconds) {
  return run(argv, seconds);
}

std::vector<uint8_t> read_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string read_text_file(const std::string& path) {
  auto bytes = read_binary(path);
  return std::string(bytes.begin(), bytes.end());
}

void write_binary(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "cdna4-test-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

size_t TempDir::entry_count() const {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path)) ++n;
  return n;
}

std::string source_path(const std::string& relative) { return std::string(CDNA4_SOURCE_DIR) + "/" + relative; }

}  // namespace cdna4::test
