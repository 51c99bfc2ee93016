#pragma once
// What every cdna4 tool shares: exit codes, usage errors, --version.
#include <cstdio>
#include <exception>
#include <string>

#include "cdna4/error.hpp"
#include "cdna4/runtime.hpp"

namespace cdna4::tools {

// 0 ok, 1 error, 2 usage, 3 a check failed or races were reported.
constexpr int kExitOk = 0, kExitError = 1, kExitUsage = 2, kExitCheckFailed = 3;

inline const char* kExitCodesHelp =
    "Exit status: 0 success, 1 error, 2 bad usage, 3 a check failed or races were reported.\n";

// A command line the tool cannot take (exit 2).
struct UsageError : Error {
  using Error::Error;
};

// main's body under the exit codes: a UsageError prints "tool: message (see
// --help)" and exits 2, any other error "tool: message" and exits 1.
template <class Body>
int guarded_main(const char* tool, Body body) {
  try {
    return body();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s (see --help)\n", tool, e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", tool, e.what());
    return kExitError;
  }
}

inline void print_version(const char* tool) { std::printf("%s %s (cdna4 JIT, gfx950)\n", tool, cdna4::version()); }

}  // namespace cdna4::tools
