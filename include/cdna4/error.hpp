#pragma once
#include <stdexcept>
#include <string>

namespace cdna4 {

// Every failure the library reports to its user: bad input, a rejected schedule,
// an assembler or linker diagnostic, an unsupported instruction in the emulator.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A launch stopped by its instruction budget, its time limit or a cancel request.
class LimitError : public Error {
 public:
  using Error::Error;
};

}  // namespace cdna4
