#pragma once
// Per-lane private (scratch) memory: each lane of each wave owns
// `private_lane_bytes` bytes at private addresses [0, private_lane_bytes).
// gfx950 has architected flat scratch: the hardware interleaves the lanes'
// dwords in one per-wave backing buffer, which no instruction can observe
// except through its address, so each lane's segment is kept separately here.
#include <cstdint>

#include "runtime/emulator/wave.hpp"

namespace cdna4::emu {

// The lane's bytes [address, address + bytes); fails the run when they are not
// all inside the lane's private segment.
uint8_t* private_bytes(Wave& w, const Inst& in, int lane, int64_t address, uint32_t bytes);

}  // namespace cdna4::emu
