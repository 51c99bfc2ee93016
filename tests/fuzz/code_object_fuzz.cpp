// libFuzzer target: a whole file given to the code-object reader.
#include "fuzz_checks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cdna4::fuzz::load_and_lay_out(std::vector<uint8_t>(data, data + size));
  return 0;
}
