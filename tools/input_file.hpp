#pragma once
// Input files are checked before they are read: a regular file (not a device or
// a pipe that never ends) whose size is what the caller expects or below a cap.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "cdna4/error.hpp"

namespace cdna4::tools {

// The size of the regular file at `path`; `what` names it in messages.
inline uint64_t regular_file_size(const std::string& path, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw Error(fmt::format("cannot open {} ({})", path, what));
  if (!std::filesystem::is_regular_file(status))
    throw Error(fmt::format("{} ({}) is not a regular file", path, what));
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(fmt::format("cannot read the size of {} ({})", path, what));
  return size;
}

inline std::vector<char> read_whole_file(const std::string& path, uint64_t size, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes(size);
  if (!in || !in.read(bytes.data(), std::streamsize(size)) || in.peek() != std::ifstream::traits_type::eof())
    throw Error(fmt::format("cannot read {} ({}), or it changed size while being read", path, what));
  return bytes;
}

// Refuses the file before reading unless it has exactly `expected_bytes`.
inline std::vector<char> read_file_of_size(const std::string& path, uint64_t expected_bytes, const std::string& what,
                                           const std::string& why) {
  const uint64_t size = regular_file_size(path, what);
  if (size != expected_bytes)
    throw Error(fmt::format("{} ({}) has {} bytes; {}", path, what, size, why));
  return read_whole_file(path, size, what);
}

// Refuses the file before reading when it is larger than `max_bytes`.
inline std::string read_text_at_most(const std::string& path, uint64_t max_bytes, const std::string& what) {
  const uint64_t size = regular_file_size(path, what);
  if (size > max_bytes)
    throw Error(fmt::format("{} ({}) has {} bytes, more than the {} this tool reads", path, what, size, max_bytes));
  const std::vector<char> bytes = read_whole_file(path, size, what);
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace cdna4::tools
