#pragma once
// Builds a small, well-formed HSA code object around a fuzzed part (a metadata
// note payload or a kernel descriptor), so a fuzz target spends its inputs on
// that part instead of on ELF structures that are refused early.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace cdna4::fuzz {

struct MiniHsaco {
  std::vector<uint8_t> note;              // NT_AMDGPU_METADATA payload (MessagePack)
  std::vector<std::string> symbols;       // one descriptor each, in .rodata
  std::vector<uint8_t> descriptor;        // 64 bytes; empty: a plain one pointing at .text
  uint64_t text_address = 0x1000;
  uint64_t rodata_address = 0x800;
};

namespace detail {
inline void put(std::vector<uint8_t>& out, size_t at, const void* p, size_t n) {
  if (out.size() < at + n) out.resize(at + n);
  if (n) std::memcpy(out.data() + at, p, n);
}
template <class T>
void put(std::vector<uint8_t>& out, size_t at, T v) {
  put(out, at, &v, sizeof v);
}
inline size_t align(size_t v, size_t a) { return (v + a - 1) / a * a; }
}  // namespace detail

inline std::vector<uint8_t> build(const MiniHsaco& m) {
  using detail::put;
  std::vector<uint8_t> out(64, 0);
  struct Sec {
    uint32_t name, type;
    uint64_t flags, addr, offset, size;
    uint32_t link;
    uint64_t align, entsize;
  };
  const std::string shstr(".text\0.rodata\0.note\0.symtab\0.strtab\0.shstrtab\0", 46);
  auto name = [&](const char* n) { return uint32_t(shstr.find(n)) + 1; };  // after the leading NUL
  std::vector<Sec> secs(7, Sec{});

  const size_t text_off = 0x100, text_size = 0x1000;
  for (size_t i = 0; i < text_size; i += 4) put<uint32_t>(out, text_off + i, 0xbf810000u);  // s_endpgm
  secs[1] = {name(".text"), 1, 6, m.text_address, text_off, text_size, 0, 256, 0};

  const size_t ro_off = detail::align(out.size(), 64);
  for (size_t k = 0; k < m.symbols.size(); ++k) {
    std::vector<uint8_t> d(64, 0);
    if (m.descriptor.size() == 64) {
      d = m.descriptor;
    } else {
      const int64_t entry = int64_t(m.text_address) - int64_t(m.rodata_address + 64 * k);
      std::memcpy(d.data() + 16, &entry, 8);
      const uint32_t rsrc2 = 1u << 7, properties = 0x8;  // workgroup id x; kernarg pointer
      std::memcpy(d.data() + 52, &rsrc2, 4);
      std::memcpy(d.data() + 56, &properties, 2);
    }
    put(out, ro_off + 64 * k, d.data(), 64);
  }
  secs[2] = {name(".rodata"), 1, 2, m.rodata_address, ro_off, 64 * m.symbols.size(), 0, 64, 0};

  const size_t note_off = detail::align(out.size(), 4);
  put<uint32_t>(out, note_off, 7);
  put<uint32_t>(out, note_off + 4, uint32_t(m.note.size()));
  put<uint32_t>(out, note_off + 8, 32);
  put(out, note_off + 12, "AMDGPU\0", 8);
  put(out, note_off + 20, m.note.data(), m.note.size());
  out.resize(detail::align(out.size(), 4));
  secs[3] = {name(".note"), 7, 2, 0, note_off, out.size() - note_off, 0, 4, 0};

  std::string strtab(1, '\0');
  const size_t sym_off = detail::align(out.size(), 8);
  out.resize(sym_off + 24, 0);
  for (size_t k = 0; k < m.symbols.size(); ++k) {
    const size_t at = sym_off + 24 * (k + 1);
    put<uint32_t>(out, at, uint32_t(strtab.size()));
    put<uint8_t>(out, at + 4, 0x11);  // global object
    put<uint8_t>(out, at + 5, 0);
    put<uint16_t>(out, at + 6, 2);
    put<uint64_t>(out, at + 8, m.rodata_address + 64 * k);
    put<uint64_t>(out, at + 16, 64);
    strtab += m.symbols[k];
    strtab += '\0';
  }
  secs[4] = {name(".symtab"), 2, 0, 0, sym_off, 24 * (m.symbols.size() + 1), 5, 8, 24};
  const size_t str_off = out.size();
  put(out, str_off, strtab.data(), strtab.size());
  secs[5] = {name(".strtab"), 3, 0, 0, str_off, strtab.size(), 0, 1, 0};
  const size_t shstr_off = out.size();
  put<uint8_t>(out, shstr_off, 0);
  put(out, shstr_off + 1, shstr.data(), shstr.size());
  secs[6] = {name(".shstrtab"), 3, 0, 0, shstr_off, shstr.size() + 1, 0, 1, 0};

  const size_t sh_off = detail::align(out.size(), 8);
  for (size_t i = 0; i < secs.size(); ++i) {
    const size_t at = sh_off + 64 * i;
    const Sec& s = secs[i];
    put(out, at, s.name), put(out, at + 4, s.type), put(out, at + 8, s.flags), put(out, at + 16, s.addr);
    put(out, at + 24, s.offset), put(out, at + 32, s.size), put(out, at + 40, s.link);
    put<uint32_t>(out, at + 44, 0), put(out, at + 48, s.align), put(out, at + 56, s.entsize);
  }
  const uint8_t ident[16] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 64, 3};
  put(out, 0, ident, 16);
  put<uint16_t>(out, 16, 3), put<uint16_t>(out, 18, 224), put<uint32_t>(out, 20, 1);
  put<uint64_t>(out, 40, sh_off), put<uint32_t>(out, 48, 0x04f);
  put<uint16_t>(out, 52, 64), put<uint16_t>(out, 58, 64), put<uint16_t>(out, 60, 7), put<uint16_t>(out, 62, 6);
  return out;
}

// The strings ending in ".kd" that a MessagePack payload spells out as
// fixstr/str8 values: the descriptor symbols its kernels name.
inline std::vector<std::string> descriptor_names(const uint8_t* data, size_t size) {
  std::vector<std::string> out;
  for (size_t i = 0; i < size && out.size() < 16; ++i) {
    size_t len = 0, at = 0;
    if ((data[i] & 0xe0) == 0xa0) len = data[i] & 0x1f, at = i + 1;
    else if (data[i] == 0xd9 && i + 1 < size) len = data[i + 1], at = i + 2;
    else continue;
    if (len < 3 || at + len > size) continue;
    std::string s(reinterpret_cast<const char*>(data + at), len);
    if (s.compare(len - 3, 3, ".kd") == 0) out.push_back(s);
  }
  return out;
}

}  // namespace cdna4::fuzz

namespace cdna4::fuzz {

// A plain metadata note: kernel "k" (symbol "k.kd") taking a buffer, a u32 and
// one hidden argument in a 24-byte segment.
inline std::vector<uint8_t> plain_note() {
  std::vector<uint8_t> out;
  auto str = [&](const std::string& s) {
    out.push_back(uint8_t(0xa0 | s.size()));  // every string here is shorter than 32
    out.insert(out.end(), s.begin(), s.end());
  };
  auto num = [&](uint32_t v) {
    if (v < 128) return out.push_back(uint8_t(v));
    out.insert(out.end(), {0xcd, uint8_t(v >> 8), uint8_t(v)});
  };
  auto arg = [&](uint32_t offset, uint32_t size, const std::string& kind) {
    out.push_back(0x83);
    str(".offset"), num(offset), str(".size"), num(size), str(".value_kind"), str(kind);
  };
  out.push_back(0x83);
  str("amdhsa.kernels");
  out.push_back(0x91);
  out.push_back(0x8b);
  str(".name"), str("k"), str(".symbol"), str("k.kd");
  str(".kernarg_segment_size"), num(24), str(".kernarg_segment_align"), num(8);
  str(".group_segment_fixed_size"), num(0), str(".private_segment_fixed_size"), num(0);
  str(".wavefront_size"), num(64), str(".sgpr_count"), num(16), str(".vgpr_count"), num(8);
  str(".max_flat_workgroup_size"), num(256);
  str(".args");
  out.push_back(0x93);
  arg(0, 8, "global_buffer"), arg(8, 4, "by_value"), arg(16, 4, "hidden_block_count_x");
  str("amdhsa.target"), str("amdgcn-amd-amdhsa--gfx950");
  str("amdhsa.version");
  out.insert(out.end(), {0x92, 1, 2});
  return out;
}

}  // namespace cdna4::fuzz
