#pragma once
// Real code objects and deterministic mutants of them, for the tests that feed
// the code-object reader damaged input.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/elf_image.hpp"

namespace cdna4::test {

struct ByteRange {
  size_t begin = 0, end = 0;
};

// Where the AMDGPU metadata note's payload lies in `hsaco`.
inline ByteRange metadata_note_range(const std::vector<uint8_t>& hsaco) {
  elf::Image image(hsaco);
  for (const auto& s : image.sections()) {
    if (s.type != elf::kNote) continue;
    for (const auto& note : image.notes(s))
      if (note.name == "AMDGPU" && note.type == 32) {
        size_t begin = size_t(note.desc.data() - hsaco.data());
        return {begin, begin + note.desc.size()};
      }
  }
  return {};
}

// Where the 64-byte descriptor `symbol` lies in `hsaco`.
inline ByteRange descriptor_range(const std::vector<uint8_t>& hsaco, const std::string& symbol) {
  elf::Image image(hsaco);
  for (const auto& sym : image.symbols()) {
    if (sym.name != symbol) continue;
    const auto& s = image.sections()[sym.section];
    size_t begin = size_t(s.offset + (sym.value - s.address));
    return {begin, begin + 64};
  }
  return {};
}

// The ELF structures: header, section header table, and each section's bytes.
inline std::vector<ByteRange> elf_ranges(const std::vector<uint8_t>& hsaco) {
  elf::Image image(hsaco);
  uint64_t table = 0;
  std::memcpy(&table, hsaco.data() + 40, 8);
  std::vector<ByteRange> out = {{0, 64}, {size_t(table), size_t(table + 64 * image.sections().size())}};
  for (const auto& s : image.sections())
    if (s.type != elf::kNobits && s.size) out.push_back({size_t(s.offset), size_t(s.offset + s.size)});
  return out;
}

// One to three random edits inside `range`: a random byte, a byte that means
// something to MessagePack or ELF, a flipped bit, four 0xff bytes, or a cut.
inline std::vector<uint8_t> mutate(std::vector<uint8_t> bytes, ByteRange range, std::mt19937_64& rng) {
  static const uint8_t kInteresting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0xc0, 0xc2, 0xc3, 0xc1,
                                         0xd4, 0xdc, 0xdd, 0xde, 0xdf, 0xdb, 0xcf, 0x9f, 0x8f};
  const int edits = 1 + int(rng() % 3);
  for (int e = 0; e < edits && range.end > range.begin && range.end <= bytes.size(); ++e) {
    const size_t at = range.begin + rng() % (range.end - range.begin);
    switch (rng() % 6) {
      case 0: bytes[at] = uint8_t(rng()); break;
      case 1: case 2: bytes[at] = kInteresting[rng() % sizeof kInteresting]; break;
      case 3: bytes[at] ^= uint8_t(1u << (rng() % 8)); break;
      case 4:
        for (size_t i = at; i < std::min(at + 4, bytes.size()); ++i) bytes[i] = 0xff;
        break;
      case 5: bytes.resize(at); return bytes;
    }
  }
  return bytes;
}

}  // namespace cdna4::test
