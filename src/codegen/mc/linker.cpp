// Relocatable object -> HSA code object, with lld's ELF driver in process.
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>

#include <fmt/format.h>
#include <lld/Common/Driver.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/raw_ostream.h>

#include "cdna4/error.hpp"
#include "codegen/assembler.hpp"

LLD_HAS_DRIVER(elf)

extern char** environ;

namespace cdna4::codegen {

namespace {

#ifndef CDNA4_LD_LLD_PATH
#define CDNA4_LD_LLD_PATH "ld.lld-22"
#endif

std::mutex link_mutex;  // lld's driver state is process-global
std::atomic<bool> lld_exhausted{false};
std::atomic<bool> force_executable{false};

// A file descriptor closed on every path.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  ~Fd() { if (fd >= 0) ::close(fd); }
};

// $TMPDIR, else memory-backed /dev/shm (lld writes its output through a file),
// else /tmp.
std::string temp_dir() {
  if (const char* dir = std::getenv("TMPDIR"); dir && *dir) return dir;
  if (::access("/dev/shm", W_OK) == 0) return "/dev/shm";
  return "/tmp";
}

// A temporary output path removed on every path.
struct TempPath {
  std::string path;
  TempPath() {
    const std::string dir = temp_dir();
    std::string tmpl = dir + "/cdna4-link-XXXXXX";
    int fd = ::mkstemp(tmpl.data());
    if (fd < 0) throw Error(fmt::format("linker: cannot create a temporary file in {}: {}", dir, std::strerror(errno)));
    ::close(fd);
    path = tmpl;
  }
  TempPath(const TempPath&) = delete;
  ~TempPath() { std::error_code ec; std::filesystem::remove(path, ec); }
};

Bytes read_file(const std::string& path) {
  Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (in.fd < 0 || ::fstat(in.fd, &st) != 0) throw Error("linker: cannot read its output " + path);
  Bytes out(size_t(st.st_size));
  for (size_t done = 0; done < out.size();) {
    const ssize_t n = ::read(in.fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(fmt::format("linker: cannot read its output {}: {}", path, std::strerror(errno)));
    done += size_t(n);
  }
  return out;
}

// lld writes an output that is not a regular file from memory, in one write:
// into a pipe that holds all of it there is no temporary file, rename or
// read-back. Larger outputs (far beyond a kernel's) go through a file.
class OutputPipe {
 public:
  explicit OutputPipe(size_t object_bytes) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return;
    read_.fd = fds[0];
    write_.fd = fds[1];
    int capacity = ::fcntl(write_.fd, F_SETPIPE_SZ, 1 << 20);
    if (capacity < 0) capacity = ::fcntl(write_.fd, F_GETPIPE_SZ);
    // The code object is the object plus a few KiB of dynamic sections.
    usable_ = capacity > 0 && object_bytes + (64 << 10) <= size_t(capacity) / 2;
  }
  bool usable() const { return usable_; }
  std::string path() const { return fmt::format("/proc/{}/fd/{}", ::getpid(), write_.fd); }
  Bytes drain() {
    Bytes out;
    uint8_t chunk[16384];
    while (true) {
      const ssize_t n = ::read(read_.fd, chunk, sizeof chunk);
      if (n > 0) out.insert(out.end(), chunk, chunk + n);
      else if (n < 0 && errno == EINTR) continue;
      else break;  // empty (EAGAIN): lld's write finished before it returned
    }
    if (out.empty()) throw Error("linker: lld wrote no output");
    return out;
  }

 private:
  Fd read_{-1}, write_{-1};
  bool usable_ = false;
};

std::vector<std::string> link_args(const std::string& input, const std::string& output) {
  std::vector<std::string> args{"ld.lld"};
  for (const auto& f : link_flags()) args.push_back(f);
  args.insert(args.end(), {"-o", output, input});
  return args;
}

// Returns lld's diagnostics; empty string on success.
std::string link_in_process(const std::string& input, const std::string& output, bool& can_run_again) {
  static const bool crash_recovery = [] { llvm::CrashRecoveryContext::Enable(); return true; }();
  (void)crash_recovery;
  std::vector<std::string> args = link_args(input, output);
  args.push_back("--threads=1");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::string out_text, err_text;
  llvm::raw_string_ostream out(out_text), err(err_text);
  lld::Result r = lld::lldMain(argv, out, err, {{lld::Gnu, &lld::elf::link}});
  can_run_again = r.canRunAgain;
  if (r.retCode == 0) return {};
  return err_text.empty() ? fmt::format("ld.lld exited with {}", r.retCode) : err_text;
}

std::string link_with_executable(const std::string& input, const std::string& output) {
  std::vector<std::string> args = link_args(input, output);
  args[0] = CDNA4_LD_LLD_PATH;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  TempPath log;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, log.path.c_str(), O_WRONLY | O_TRUNC, 0600);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return fmt::format("cannot start {}: {}", argv[0], std::strerror(rc));
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  Bytes diag = read_file(log.path);
  return diag.empty() ? fmt::format("{} failed (status {})", argv[0], status) : std::string(diag.begin(), diag.end());
}

}  // namespace

const std::vector<std::string>& link_flags() {
  static const std::vector<std::string> flags{"-shared", "--no-undefined"};
  return flags;
}

bool linker_uses_fallback() { return lld_exhausted.load() || force_executable.load(); }

void force_executable_linker(bool on) { force_executable = on; }

Bytes link_hsaco(std::span<const uint8_t> object) {
  if (object.empty()) throw Error("linker: empty object");
  // The object goes to lld through an anonymous memory file; lld reads paths.
  Fd input(::memfd_create("cdna4-object", MFD_CLOEXEC));
  if (input.fd < 0) throw Error(fmt::format("linker: memfd_create failed: {}", std::strerror(errno)));
  for (size_t done = 0; done < object.size();) {
    ssize_t n = ::write(input.fd, object.data() + done, object.size() - done);
    if (n <= 0) throw Error(fmt::format("linker: cannot write the object: {}", std::strerror(errno)));
    done += size_t(n);
  }
  // By pid, not "self": the ld.lld-22 fallback reads it from a child process.
  const std::string input_path = fmt::format("/proc/{}/fd/{}", ::getpid(), input.fd);
  std::string diagnostics;
  auto fail_if = [&] {
    if (diagnostics.empty()) return;
    while (!diagnostics.empty() && diagnostics.back() == '\n') diagnostics.pop_back();
    throw Error("linker: " + diagnostics);
  };
  if (!lld_exhausted && !force_executable.load()) {
    bool can_run_again = true;
    {
      std::lock_guard<std::mutex> lock(link_mutex);
      OutputPipe pipe(object.size());
      std::optional<TempPath> file;
      if (!pipe.usable()) file.emplace();
      diagnostics = link_in_process(input_path, file ? file->path : pipe.path(), can_run_again);
      if (can_run_again) {
        fail_if();
        return file ? read_file(file->path) : pipe.drain();
      }
    }
    // lld's state may be corrupt: this and every later link use the executable.
    lld_exhausted = true;
  }
  TempPath output;
  diagnostics = link_with_executable(input_path, output.path);
  fail_if();
  return read_file(output.path);
}

}  // namespace cdna4::codegen

std::vector<uint8_t> cdna4::assemble_text(std::string_view text, std::string_view source_name,
                                          const TextAssemblyOptions& options) {
  return codegen::assemble(text, source_name, options);
}

std::vector<uint8_t> cdna4::link_code_object(std::span<const uint8_t> object) { return codegen::link_hsaco(object); }
