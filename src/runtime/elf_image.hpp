#pragma once
// A bounds-checked view of a little-endian ELF64 file: the header, the section
// table, symbols and notes. Every offset and size read from the file is checked
// against the file before it is used; anything malformed throws cdna4::Error.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cdna4::elf {

// True when [offset, offset + size) lies inside [0, limit). The one way this
// reader does range arithmetic: it never computes an end that could wrap.
inline bool within(uint64_t offset, uint64_t size, uint64_t limit) {
  uint64_t end = 0;
  return !__builtin_add_overflow(offset, size, &end) && end <= limit;
}

constexpr uint32_t kProgbits = 1, kSymtab = 2, kStrtab = 3, kNote = 7, kNobits = 8, kDynsym = 11;

struct Section {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0, address = 0, offset = 0, size = 0, align = 0, entry_size = 0;
  uint32_t link = 0;
};

struct Symbol {
  std::string name;
  uint64_t value = 0, size = 0;
  uint16_t section = 0;  // index into sections(); 0 when undefined
};

struct Note {
  std::string name;
  uint32_t type = 0;
  std::span<const uint8_t> desc;
};

class Image {
 public:
  // Checks the identification, the header and the section table (offsets,
  // sizes, entry size, section names). The bytes must outlive the image.
  explicit Image(std::span<const uint8_t> bytes);

  uint16_t type() const { return type_; }
  uint16_t machine() const { return machine_; }
  uint32_t flags() const { return flags_; }
  uint8_t os_abi() const { return os_abi_; }
  uint8_t abi_version() const { return abi_version_; }
  const std::vector<Section>& sections() const { return sections_; }

  // The section's bytes (empty for SHT_NOBITS).
  std::span<const uint8_t> contents(const Section& section) const;
  // The defined symbols of .symtab, or of .dynsym when there is no .symtab.
  std::vector<Symbol> symbols() const;
  // The entries of a SHT_NOTE section.
  std::vector<Note> notes(const Section& section) const;

 private:
  std::span<const uint8_t> bytes_;
  uint16_t type_ = 0, machine_ = 0;
  uint32_t flags_ = 0;
  uint8_t os_abi_ = 0, abi_version_ = 0;
  std::vector<Section> sections_;
};

}  // namespace cdna4::elf
