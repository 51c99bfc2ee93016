#pragma once
// Test support: the message of the cdna4::Error (or LimitError) a call throws.
#include <functional>
#include <string>

#include "cdna4/error.hpp"

namespace cdna4::test {

// The message of the exception of type E that `f` throws, or `none`.
template <class E>
std::string message_of(const std::function<void()>& f, const char* none) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return none;
}

// The message of the cdna4::Error `f` throws, or "no error".
inline std::string error_of(const std::function<void()>& f) { return message_of<Error>(f, "no error"); }

// The message of the cdna4::LimitError `f` throws, or "no LimitError".
inline std::string limit_error_of(const std::function<void()>& f) { return message_of<LimitError>(f, "no LimitError"); }

}  // namespace cdna4::test
