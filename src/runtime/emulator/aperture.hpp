#pragma once
// Flat address apertures as the Linux KFD programs them on gfx9 (SH_MEM_BASES):
// LDS at 1 << 48 and scratch at 2 << 48, each 4 GiB. src_shared_base /
// src_private_base read these 64-bit bases; emulated host addresses are below
// 2^47, so they never fall inside an aperture.
#include <cstdint>

namespace cdna4::emu::aperture {

constexpr uint64_t kSharedBase = 1ull << 48;
constexpr uint64_t kPrivateBase = 2ull << 48;
constexpr uint64_t kSize = 1ull << 32;

constexpr bool in_shared(uint64_t address) { return address - kSharedBase < kSize; }
constexpr bool in_private(uint64_t address) { return address - kPrivateBase < kSize; }

}  // namespace cdna4::emu::aperture
