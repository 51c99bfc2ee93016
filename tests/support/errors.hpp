#pragma once
// Test support: the message of the cdna4::Error a call throws.
#include <functional>
#include <string>

#include "cdna4/error.hpp"

namespace cdna4::test {

// The message of the cdna4::Error `f` throws, or "no error".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace cdna4::test
