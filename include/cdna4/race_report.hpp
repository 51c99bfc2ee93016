#pragma once
// What the emulator reports when a program is only right by luck: a race (an
// access not ordered by s_waitcnt / s_barrier against an earlier one) or a
// wait-state hazard (too few wait states after an instruction).
#include <cstdint>
#include <string>

namespace cdna4 {

enum class RaceKind : uint8_t {
  RegisterRead,        // reads a register that a load not yet waited for writes
  RegisterOverwrite,   // overwrites such a register (the load may land afterwards)
  LdsReadAfterWrite,   // reads LDS that another wave wrote, not made visible to this wave
  LdsWriteAfterRead,   // writes LDS that another wave may still be reading
  LdsWriteAfterWrite,  // writes LDS that another wave also writes, unordered
  LdsDsAndDma,         // one wave: DS and LDS-DMA on the same LDS, the other queue not waited for
  Hazard,              // too few wait states after the other instruction (see `rule`)
};

// What should have separated the two instructions.
enum class MissingWait : uint8_t {
  Vmcnt,              // s_waitcnt vmcnt
  Lgkmcnt,            // s_waitcnt lgkmcnt
  Barrier,            // s_barrier after the other wave's s_waitcnt
  VmcntAndBarrier,    // the other wave's s_waitcnt vmcnt, then s_barrier
  LgkmcntAndBarrier,  // the other wave's s_waitcnt lgkmcnt, then s_barrier
  WaitStates,         // s_nop / independent instructions (hazards)
};

// The gfx950 wait-state rules (docs/emulator.md); `other` produces, this instruction consumes.
enum class HazardRule : uint8_t {
  None,                          // not a hazard
  MfmaResultReadByValuOrMemory,  // MFMA result -> VALU / VMEM / DS read
  MfmaResultOverwrittenByValu,   // MFMA result -> VALU write
  MfmaResultReadAsSrcAB,         // MFMA result -> MFMA SrcA/B
  MfmaResultReadAsOtherSrcC,     // MFMA result -> MFMA SrcC, overlapping but not the same
  TwoPassMfmaResultReadAsSrcC,   // 2-pass MFMA result -> MFMA SrcC
  MfmaSrcCOverwritten,           // MFMA SrcC -> VALU / MFMA write
  ValuResultReadByMfma,          // VALU VGPR write -> MFMA read
  ValuSgprReadByVmem,            // VALU SGPR write -> VMEM read
  ReadlaneSgprReadByValu,        // v_readlane / v_readfirstlane SGPR -> VALU read
  M0WrittenBeforeLdsDma,         // SALU M0 write -> LDS-DMA load
  TransResultReadByValu,         // v_exp / v_rcp / ... result -> non-transcendental VALU read
  ValuResultReadByDpp,           // VALU VGPR write -> DPP read
  ValuExecWriteBeforeDpp,        // VALU EXEC write (v_cmpx, ...) -> any DPP
  ValuExecWriteBeforeLaneAccess, // VALU EXEC write -> v_readlane / v_readfirstlane / v_writelane
  ValuSgprReadAsLaneSelect,      // VALU SGPR write -> v_readlane / v_writelane lane select
  ValuExecWriteBeforeMfma,       // VALU EXEC write -> MFMA
  ValuResultReadByPermlaneSwap,  // VALU VGPR write -> v_permlane16/32_swap read
  CmpxBeforePermlaneSwap,        // v_cmpx (EXEC write) -> v_permlane16/32_swap
  ValuSgprReadByValu,            // VALU SGPR / VCC write -> VALU read
  ValuResultReadByReadlane,      // VALU VGPR write -> v_readlane / v_readfirstlane source
};

// The registers or LDS bytes the two instructions share.
struct RaceLocation {
  enum class Space : uint8_t { None, Lds, Vgpr, Agpr, Sgpr };
  Space space = Space::None;
  uint32_t first = 0;  // LDS byte address, or first register number (aN for AGPRs, s106 = VCC)
  uint32_t count = 0;  // LDS bytes, or registers
};

struct RaceReport {
  RaceKind kind = RaceKind::RegisterRead;
  uint64_t pc = 0;  // byte offset into .text of the instruction that raced
  std::string instruction;
  uint32_t workgroup[3] = {0, 0, 0};
  uint32_t wave = 0;
  // The earlier access it races with (a load, another wave's access, the hazard's producer).
  uint64_t other_pc = 0;
  std::string other_instruction;
  uint32_t other_wave = 0;  // == wave except for the LDS kinds between waves
  RaceLocation location;
  MissingWait missing = MissingWait::Vmcnt;
  HazardRule rule = HazardRule::None;  // hazards only, like the two counts
  uint32_t wait_states_needed = 0;
  uint32_t wait_states_passed = 0;
  std::string what;  // the report for humans: describe() of the fields above
  // Occurrences of this (kind, rule, pc) in the launch; the fields above are
  // the first one's (lowest workgroup, then first in time).
  uint64_t count = 1;
};

// Stable lower-case names for scripts: "register-read", "vmcnt+barrier", "m0-written-before-lds-dma", ...
const char* to_string(RaceKind kind);
const char* to_string(MissingWait missing);
const char* to_string(HazardRule rule);
// "v10", "a[0:3]", "s[4:5]", "lds:0x40+16", "-" for none.
std::string to_string(const RaceLocation& location);

// One line for humans, built from the fields.
std::string describe(const RaceReport& race);

}  // namespace cdna4
