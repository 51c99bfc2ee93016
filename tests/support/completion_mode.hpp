#pragma once
// The emulator's two completion modes as launch options (a fixed seed for the
// timed mode's order), for tests that run a kernel in both.
#include "cdna4/runtime.hpp"

namespace cdna4::test {

inline LaunchOptions completion_mode(bool instant, uint64_t seed = 7) {
  LaunchOptions o;
  o.instant_completion = instant;
  o.seed = seed;
  return o;
}

}  // namespace cdna4::test
