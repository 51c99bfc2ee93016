#pragma once
// Inst::aux of the flat and scratch families: [4:0] bytes per lane, [5] store,
// [6] sign-extend, [7] d16_hi (a store writes the high half, a load fills it),
// [8] d16 (a load fills the low half).
#include <cstdint>

#include "runtime/emulator/sub_dword.hpp"

namespace cdna4::emu::flat_aux {

constexpr uint32_t kStore = 1 << 5, kSigned = 1 << 6, kD16Hi = 1 << 7, kD16 = 1 << 8;

constexpr uint32_t bytes(uint32_t aux) { return aux & 0x1f; }
constexpr sub_dword::LoadForm load_form(uint32_t aux) {
  return {aux & 0x1f, (aux & kSigned) != 0, (aux & (kD16 | kD16Hi)) != 0, (aux & kD16Hi) != 0};
}

}  // namespace cdna4::emu::flat_aux
