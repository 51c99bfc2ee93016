#pragma once
// Output files of the tools: none may name another output or an input (the
// same file by device and inode when it exists, else by canonical path), and
// each is written whole or not at all: into a temporary beside it, renamed into
// place only after every output of the run has been written. A device or pipe,
// and /dev/stdout, /dev/stderr or /dev/fd/N (even when the shell redirected it to
// a file), is written directly; a failed write is an error.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cdna4/error.hpp"

namespace cdna4::tools {

// A file named on the command line and what it is ("--trace", "the schedule").
struct NamedFile {
  std::string path, what;
};

namespace detail {

// The descriptor a name for one of the process's open files stands for, or -1:
// opening the name again would start at offset 0 (over what the stream holds),
// and renaming over what it resolves to would cut the stream off.
inline int stream_descriptor(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"})
    if (path.starts_with(prefix) && path.size() > std::strlen(prefix) &&
        path.find_first_not_of("0123456789", std::strlen(prefix)) == std::string::npos && path.size() < 20)
      return std::stoi(path.substr(std::strlen(prefix)));
  return -1;
}

inline bool names_a_stream(const std::string& path) { return stream_descriptor(path) >= 0; }

// An ostream writing straight into a descriptor the process holds.
class DescriptorBuffer : public std::streambuf {
 public:
  explicit DescriptorBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  ~DescriptorBuffer() override { sync(); }
  int error() const { return error_; }

 protected:
  int overflow(int c) override {
    if (sync() != 0) return traits_type::eof();
    if (c != traits_type::eof()) sputc(char(c));
    return traits_type::not_eof(c);
  }
  int sync() override {
    for (const char* p = pbase(); p < pptr();) {
      const ssize_t n = ::write(fd_, p, size_t(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        setp(buffer_, buffer_ + sizeof buffer_);
        return -1;
      }
      p += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return 0;
  }

 private:
  int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

struct FileIdentity {
  std::optional<std::pair<dev_t, ino_t>> inode;  // when it exists
  bool special = false;                          // exists and is not a regular file
  std::string canonical;
};

inline FileIdentity identify(const std::string& path) {
  FileIdentity id;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    id.inode = std::pair{st.st_dev, st.st_ino};
    id.special = !S_ISREG(st.st_mode);
  }
  id.special = id.special || names_a_stream(path);
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  id.canonical = ec ? path : canonical.string();
  return id;
}

inline bool same_file(const FileIdentity& a, const FileIdentity& b) {
  if (a.inode && b.inode) return *a.inode == *b.inode;
  return a.canonical == b.canonical;
}

}  // namespace detail

// An output flag's value: a file name, never empty.
template <typename Failure>
std::string output_path(std::string path, std::string_view flag) {
  if (path.empty()) throw Failure(fmt::format("{} needs a file name, not an empty one", flag));
  return path;
}

// Refuses (as `Failure`) an output naming an input or another output. Devices,
// pipes and the standard streams are exempt: writing to one clobbers no file.
template <typename Failure>
void check_outputs(const std::vector<NamedFile>& inputs, const std::vector<NamedFile>& outputs) {
  std::vector<std::pair<const NamedFile*, detail::FileIdentity>> seen;
  for (const NamedFile& in : inputs)
    if (!in.path.empty()) seen.push_back({&in, detail::identify(in.path)});
  const size_t input_count = seen.size();
  for (const NamedFile& out : outputs) {
    if (out.path.empty()) continue;
    detail::FileIdentity id = detail::identify(out.path);
    if (id.special) continue;
    for (size_t i = 0; i < seen.size(); ++i)
      if (detail::same_file(id, seen[i].second))
        throw Failure(fmt::format("{} {} names the same file as {} {}{}", out.what, out.path, seen[i].first->what,
                                  seen[i].first->path, i < input_count ? ", an input: it would be overwritten" : ""));
    seen.push_back({&out, std::move(id)});
  }
}

// The outputs of one run. stage() writes each (a regular file into a temporary
// in its directory); commit() renames them all into place. Temporaries not
// committed are removed when the set ends, so a failure leaves no output behind.
class OutputFiles {
 public:
  OutputFiles() = default;
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  ~OutputFiles() {
    for (const Staged& s : staged_) std::remove(s.temporary.c_str());
  }

  void stage(const std::string& path, const std::function<void(std::ostream&)>& write) {
    const std::string target = resolved(path);
    struct stat st;
    const bool exists = ::stat(target.c_str(), &st) == 0;
    if ((exists && !S_ISREG(st.st_mode)) || detail::names_a_stream(path)) return write_through(path, write);
    const size_t slash = target.rfind('/');
    const size_t name = slash == std::string::npos ? 0 : slash + 1;
    std::string temporary = target.substr(0, name) + "." + target.substr(name) + ".XXXXXX";
    const int fd = ::mkstemp(temporary.data());
    if (fd < 0) throw failure(path);
    staged_.push_back({temporary, target});
    const mode_t mode = exists ? st.st_mode & 07777 : 0666 & ~current_umask();
    const bool moded = ::fchmod(fd, mode) == 0;
    ::close(fd);
    if (!moded) throw failure(path);
    write_stream(path, temporary, write);
  }
  void stage(const std::string& path, std::string_view bytes) {
    stage(path, [bytes](std::ostream& out) { out.write(bytes.data(), std::streamsize(bytes.size())); });
  }

  void commit() {
    for (size_t i = 0; i < staged_.size(); ++i)
      if (std::rename(staged_[i].temporary.c_str(), staged_[i].target.c_str()) != 0) {
        const int error = errno;
        staged_.erase(staged_.begin(), staged_.begin() + std::ptrdiff_t(i));
        throw failure(staged_.front().target, error);
      }
    staged_.clear();
  }

 private:
  struct Staged {
    std::string temporary, target;
  };
  std::vector<Staged> staged_;

  static Error failure(const std::string& path, int error = errno) {
    return Error(fmt::format("cannot write {} ({})", path, std::strerror(error)));
  }
  static mode_t current_umask() {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return mask;
  }
  // A symbolic link is written through: the file it names (the end of its
  // chain, existing or not) is replaced, the link kept.
  static std::string resolved(const std::string& path) {
    namespace fs = std::filesystem;
    fs::path at = path;
    std::error_code ec;
    for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(at, ec)); ++hops) {
      const fs::path next = fs::read_symlink(at, ec);
      if (ec) break;
      at = next.is_absolute() ? next : at.parent_path() / next;
    }
    return at.string();
  }
  static void write_through(const std::string& path, const std::function<void(std::ostream&)>& write) {
    const int fd = detail::stream_descriptor(path);
    if (fd < 0) return write_stream(path, path, write);
    std::fflush(nullptr);  // what the tool printed there so far comes first
    if (::fcntl(fd, F_GETFD) < 0) throw failure(path);
    detail::DescriptorBuffer buffer(fd);
    std::ostream out(&buffer);
    write(out);
    out.flush();
    if (!out || buffer.error()) throw failure(path, buffer.error() ? buffer.error() : EIO);
  }
  // Writes `file` (named `path` in messages); the first failing call's errno says why.
  static void write_stream(const std::string& path, const std::string& file,
                           const std::function<void(std::ostream&)>& write) {
    errno = 0;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    int error = errno;
    if (out) {
      write(out);
      out.flush();
      error = errno;
    }
    out.close();
    if (!error) error = errno;
    if (!out) throw failure(path, error ? error : EIO);
  }
};

// One output written whole or not at all.
inline void write_file_whole(const std::string& path, std::string_view bytes) {
  OutputFiles files;
  files.stage(path, bytes);
  files.commit();
}

}  // namespace cdna4::tools
