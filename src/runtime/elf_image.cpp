#include "runtime/elf_image.hpp"

#include <fmt/format.h>

#include <cstring>

#include "cdna4/error.hpp"

namespace cdna4::elf {
namespace {

constexpr size_t kHeaderBytes = 64, kSectionHeaderBytes = 64, kSymbolBytes = 24;
constexpr uint16_t kFirstReservedIndex = 0xff00;  // SHN_LORESERVE: ABS, COMMON, XINDEX, ...

template <typename T>
T load(std::span<const uint8_t> bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

// The NUL-terminated string at `offset` of a string table section.
std::string string_at(std::span<const uint8_t> table, uint64_t offset, const std::string& what) {
  if (offset >= table.size())
    throw Error(fmt::format("ELF: {}: name offset {} lies outside its {}-byte string table", what, offset,
                            table.size()));
  const auto* begin = reinterpret_cast<const char*>(table.data() + offset);
  const void* nul = std::memchr(begin, 0, table.size() - offset);
  if (!nul) throw Error(fmt::format("ELF: {}: name at offset {} is not NUL-terminated", what, offset));
  return std::string(begin, static_cast<const char*>(nul));
}

uint64_t align_up(uint64_t value, uint64_t align) { return (value + align - 1) / align * align; }

}  // namespace

Image::Image(std::span<const uint8_t> bytes) : bytes_(bytes) {
  if (bytes.size() < kHeaderBytes)
    throw Error(fmt::format("ELF: {} bytes are too few for an ELF header", bytes.size()));
  if (std::memcmp(bytes.data(), "\x7f" "ELF", 4) != 0) throw Error("ELF: no ELF magic number");
  if (bytes[4] != 2) throw Error("ELF: not a 64-bit ELF file (EI_CLASS is not ELFCLASS64)");
  if (bytes[5] != 1) throw Error("ELF: not a little-endian ELF file (EI_DATA is not ELFDATA2LSB)");
  if (bytes[6] != 1) throw Error(fmt::format("ELF: unknown ELF version {}", bytes[6]));
  os_abi_ = bytes[7];
  abi_version_ = bytes[8];
  type_ = load<uint16_t>(bytes, 16);
  machine_ = load<uint16_t>(bytes, 18);
  flags_ = load<uint32_t>(bytes, 48);
  const auto table_offset = load<uint64_t>(bytes, 40);
  const auto entry_size = load<uint16_t>(bytes, 58);
  const auto count = load<uint16_t>(bytes, 60);
  const auto names_index = load<uint16_t>(bytes, 62);
  if (count == 0) throw Error("ELF: no section header table");
  if (entry_size != kSectionHeaderBytes)
    throw Error(fmt::format("ELF: section header entries of {} bytes, expected {}", entry_size,
                            kSectionHeaderBytes));
  if (table_offset % 8 != 0)
    throw Error(fmt::format("ELF: section header table at offset {:#x} is not 8-byte aligned", table_offset));
  if (!within(table_offset, uint64_t(count) * kSectionHeaderBytes, bytes.size()))
    throw Error(fmt::format("ELF: section header table ({} entries at offset {:#x}) lies outside the {}-byte file",
                            count, table_offset, bytes.size()));
  if (count >= kFirstReservedIndex) throw Error(fmt::format("ELF: {} sections are too many", count));
  if (names_index >= count)
    throw Error(fmt::format("ELF: section name table index {} is not a section (there are {})", names_index,
                            count));

  for (uint16_t i = 0; i < count; ++i) {
    const auto header = bytes.subspan(table_offset + uint64_t(i) * kSectionHeaderBytes, kSectionHeaderBytes);
    Section s;
    s.type = load<uint32_t>(header, 4);
    s.flags = load<uint64_t>(header, 8);
    s.address = load<uint64_t>(header, 16);
    s.offset = load<uint64_t>(header, 24);
    s.size = load<uint64_t>(header, 32);
    s.link = load<uint32_t>(header, 40);
    s.align = load<uint64_t>(header, 48);
    s.entry_size = load<uint64_t>(header, 56);
    if (s.type != kNobits && !within(s.offset, s.size, bytes.size()))
      throw Error(fmt::format("ELF: section #{} ({} bytes at offset {:#x}) lies outside the {}-byte file", i,
                              s.size, s.offset, bytes.size()));
    if (s.align > 1 && (s.align & (s.align - 1)) != 0)
      throw Error(fmt::format("ELF: section #{} has alignment {}, not a power of two", i, s.align));
    sections_.push_back(s);
  }
  const Section& names = sections_[names_index];
  if (names.type != kStrtab)
    throw Error(fmt::format("ELF: section name table #{} is not a string table", names_index));
  for (uint16_t i = 0; i < count; ++i) {
    const uint32_t name = load<uint32_t>(bytes, table_offset + uint64_t(i) * kSectionHeaderBytes);
    sections_[i].name = string_at(contents(names), name, fmt::format("section #{}", i));
  }
}

std::span<const uint8_t> Image::contents(const Section& section) const {
  if (section.type == kNobits) return {};
  return bytes_.subspan(section.offset, section.size);  // checked in the constructor
}

std::vector<Symbol> Image::symbols() const {
  const Section* table = nullptr;
  for (const Section& s : sections_)
    if (s.type == kSymtab || (s.type == kDynsym && !table)) table = &s;
  if (!table) return {};
  if (table->entry_size != kSymbolBytes || table->size % kSymbolBytes != 0)
    throw Error(fmt::format("ELF: symbol table {} has {}-byte entries and {} bytes; expected a multiple of {}",
                            table->name, table->entry_size, table->size, kSymbolBytes));
  if (table->link >= sections_.size() || sections_[table->link].type != kStrtab)
    throw Error(fmt::format("ELF: symbol table {} links to section #{}, which is not a string table",
                            table->name, table->link));
  const auto strings = contents(sections_[table->link]);
  const auto entries = contents(*table);
  std::vector<Symbol> out;
  for (uint64_t offset = 0; offset < entries.size(); offset += kSymbolBytes) {
    const uint16_t index = load<uint16_t>(entries, offset + 6);
    if (index == 0 || index >= kFirstReservedIndex) continue;  // undefined, absolute, common
    Symbol sym;
    sym.name = string_at(strings, load<uint32_t>(entries, offset),
                         fmt::format("symbol #{}", offset / kSymbolBytes));
    if (index >= sections_.size())
      throw Error(fmt::format("ELF: symbol {} is in section #{}, which does not exist", sym.name, index));
    sym.section = index;
    sym.value = load<uint64_t>(entries, offset + 8);
    sym.size = load<uint64_t>(entries, offset + 16);
    out.push_back(std::move(sym));
  }
  return out;
}

std::vector<Note> Image::notes(const Section& section) const {
  // Entries are 4-byte aligned, or 8-byte aligned in a section aligned to 8.
  const uint64_t align = section.align == 8 ? 8 : 4;
  if (section.align > 8)
    throw Error(fmt::format("ELF: note section {} has alignment {}; notes are aligned to 4 or 8", section.name,
                            section.align));
  if (section.offset % align != 0)
    throw Error(fmt::format("ELF: note section {} at offset {:#x} is not {}-byte aligned", section.name,
                            section.offset, align));
  const auto bytes = contents(section);
  std::vector<Note> out;
  uint64_t at = 0;
  while (at < bytes.size()) {
    if (!within(at, 12, bytes.size()))
      throw Error(fmt::format("ELF: note section {}: a note header at byte {} is cut off", section.name, at));
    const uint32_t name_size = load<uint32_t>(bytes, at);
    const uint32_t desc_size = load<uint32_t>(bytes, at + 4);
    Note note;
    note.type = load<uint32_t>(bytes, at + 8);
    const uint64_t name_at = at + 12;
    const uint64_t desc_at = align_up(name_at + name_size, align);  // both below 2^33: no wrap
    if (!within(name_at, name_size, bytes.size()) || !within(desc_at, desc_size, bytes.size()))
      throw Error(fmt::format("ELF: note section {}: the note at byte {} (name {} bytes, desc {} bytes) "
                              "runs past the section's {} bytes",
                              section.name, at, name_size, desc_size, bytes.size()));
    const auto* name = reinterpret_cast<const char*>(bytes.data() + name_at);
    note.name.assign(name, name_size && name[name_size - 1] == 0 ? name_size - 1 : name_size);
    note.desc = bytes.subspan(desc_at, desc_size);
    out.push_back(std::move(note));
    at = align_up(desc_at + desc_size, align);
  }
  return out;
}

}  // namespace cdna4::elf
