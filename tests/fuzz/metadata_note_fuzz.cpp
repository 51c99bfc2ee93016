// libFuzzer target: the input is the metadata note's payload, wrapped in a
// well-formed code object with a descriptor for every "*.kd" string it spells.
#include "fuzz_checks.hpp"
#include "mini_hsaco.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cdna4::fuzz::MiniHsaco m;
  m.note.assign(data, data + size);
  m.symbols = cdna4::fuzz::descriptor_names(data, size);
  if (m.symbols.empty()) m.symbols.push_back("k.kd");
  cdna4::fuzz::load_and_lay_out(cdna4::fuzz::build(m));
  return 0;
}
