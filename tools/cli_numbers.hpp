#pragma once
// Strict command-line numbers: digits only (or 0x hex), no sign, no spaces, no
// trailing characters, no wrap-around; every message names the flag. Sizes take
// a K, M or G suffix (powers of 1024), checked for overflow.
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cdna4/error.hpp"

namespace cdna4::tools {

// Failure is the exception type thrown (a tool may have its own usage error).
template <typename Failure = Error>
uint64_t parse_unsigned(std::string_view text, std::string_view flag, uint64_t max = UINT64_MAX) {
  const bool hex = text.starts_with("0x") || text.starts_with("0X");
  const std::string_view digits = hex ? text.substr(2) : text;
  uint64_t value = 0;
  const char* end = digits.data() + digits.size();
  const bool all_digits = !digits.empty() && std::isxdigit(static_cast<unsigned char>(digits.front()));
  const auto [stop, ec] = std::from_chars(digits.data(), end, value, hex ? 16 : 10);
  if (all_digits && ec == std::errc::result_out_of_range)
    throw Failure(fmt::format("{}: '{}' is too large (at most {})", flag, text, max));
  if (!all_digits || ec != std::errc() || stop != end)
    throw Failure(fmt::format("{}: '{}' is not a non-negative integer", flag, text));
  if (value > max) throw Failure(fmt::format("{}: '{}' is too large (at most {})", flag, text, max));
  return value;
}

// "4096", "64K", "2M", "1G" (K/M/G in either case) -> bytes.
template <typename Failure = Error>
uint64_t parse_size(std::string_view text, std::string_view flag, uint64_t max = UINT64_MAX) {
  uint64_t scale = 1;
  std::string_view number = text;
  if (!number.empty()) {
    switch (std::toupper(static_cast<unsigned char>(number.back()))) {
      case 'K': scale = uint64_t(1) << 10; break;
      case 'M': scale = uint64_t(1) << 20; break;
      case 'G': scale = uint64_t(1) << 30; break;
    }
    if (scale != 1) number.remove_suffix(1);
  }
  const uint64_t count = parse_unsigned<Failure>(number, flag);
  if (count > max / scale) throw Failure(fmt::format("{}: '{}' is too large (at most {} bytes)", flag, text, max));
  return count * scale;
}

// "0.5", "30", "1e3" -> seconds, 0 to 1e9 (0 usually means "no limit").
template <typename Failure = Error>
double parse_seconds(std::string_view text, std::string_view flag) {
  double value = 0;
  const auto [stop, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || stop != text.data() + text.size() || !(value >= 0) || value > 1e9)
    throw Failure(fmt::format("{}: '{}' is not a number of seconds (0 to 1e9)", flag, text));
  return value;
}

// A finite fp32 value ("0.5", "-2", "1e-3", "3.4028234e38"): a kernel's alpha
// or beta. A number that rounds to infinity or, not being 0, to 0 in fp32 is
// refused rather than silently changed.
template <typename Failure = Error>
float parse_float(std::string_view text, std::string_view flag) {
  double value = 0;
  const auto [stop, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool whole = !text.empty() && stop == text.data() + text.size();
  if (!whole || (ec != std::errc() && ec != std::errc::result_out_of_range) || std::isnan(value) ||
      (ec == std::errc() && std::isinf(value)))
    throw Failure(fmt::format("{}: '{}' is not a finite fp32 number", flag, text));
  // Out of a double's range: the text's exponent says which end.
  const std::string lower(text);
  const size_t e = lower.find_first_of("eE");
  const bool tiny = ec == std::errc::result_out_of_range && e != std::string::npos && lower[e + 1] == '-';
  constexpr double kRoundsToInfinity = 0x1.ffffffp127;  // halfway from the largest finite fp32 to 2^128
  const bool huge = ec == std::errc() ? std::abs(value) >= kRoundsToInfinity : !tiny;
  const float rounded = huge || tiny ? 0.0f : float(value);
  if (huge)
    throw Failure(fmt::format("{}: '{}' rounds to infinity in fp32 (the largest finite fp32 is 3.4028235e38)", flag, text));
  if (rounded == 0.0f && (tiny || value != 0.0))
    throw Failure(fmt::format("{}: '{}' rounds to 0 in fp32 (the smallest nonzero fp32 is 1.4e-45)", flag, text));
  return rounded;
}

}  // namespace cdna4::tools
