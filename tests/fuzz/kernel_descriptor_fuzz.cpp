// libFuzzer target: the input is a 64-byte kernel descriptor, optionally
// followed by the descriptor's and .text's addresses (8 bytes each), in a
// well-formed code object whose metadata names it.
#include <cstring>

#include "fuzz_checks.hpp"
#include "mini_hsaco.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 64) return 0;
  static const std::vector<uint8_t> note = cdna4::fuzz::plain_note();
  cdna4::fuzz::MiniHsaco m;
  m.note = note;
  m.symbols = {"k.kd"};
  m.descriptor.assign(data, data + 64);
  if (size >= 80) {
    std::memcpy(&m.rodata_address, data + 64, 8);
    std::memcpy(&m.text_address, data + 72, 8);
  }
  cdna4::fuzz::load_and_lay_out(cdna4::fuzz::build(m));
  return 0;
}
