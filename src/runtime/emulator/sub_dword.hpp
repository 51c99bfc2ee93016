#pragma once
// Byte and short loads as the register sees them: zero- or sign-extended to 32
// bits, or (d16 forms) extended to 16 bits and written into one half of the
// destination while the other half keeps its value.
#include <cstdint>

namespace cdna4::emu::sub_dword {

struct LoadForm {
  uint32_t bytes = 4;     // 1 or 2 (4: a whole dword, unchanged)
  bool sign = false;      // sbyte / sshort / i8 / i16
  bool d16 = false;       // result goes into one 16-bit half
  bool high = false;      // d16_hi: the high half, else the low half
};

constexpr uint32_t extend(uint32_t raw, uint32_t bytes, bool sign) {
  if (bytes == 1) return sign ? uint32_t(int32_t(int8_t(raw & 0xff))) : raw & 0xff;
  if (bytes == 2) return sign ? uint32_t(int32_t(int16_t(raw & 0xffff))) : raw & 0xffff;
  return raw;
}

// The dword a lane's destination register holds after the load; `old` is its value before.
constexpr uint32_t loaded(const LoadForm& f, uint32_t raw, uint32_t old) {
  uint32_t value = extend(raw, f.bytes, f.sign);
  if (!f.d16) return value;
  return f.high ? (old & 0xffffu) | (value << 16) : (old & 0xffff0000u) | (value & 0xffffu);
}

// The bytes a sub-dword store writes: the low bytes of the data, or of its high half (d16_hi).
constexpr uint32_t stored(uint32_t data, bool high) { return high ? data >> 16 : data; }

}  // namespace cdna4::emu::sub_dword
