#pragma once
// Where a race happened, in the terms of the report: LDS bytes, or v/a/s
// registers (the unified file's AGPR half named as aN).
#include <cstdint>

#include "cdna4/race_report.hpp"
#include "runtime/emulator/program.hpp"

namespace cdna4::emu {

inline RaceLocation lds_location(uint32_t byte_address, uint32_t bytes) {
  return {RaceLocation::Space::Lds, byte_address, bytes};
}

// `first` is a unified vector register (AGPRs from accum_offset on) or a scalar one.
inline RaceLocation register_location(const Program& program, bool vector, uint32_t first, uint32_t count) {
  if (!vector) return {RaceLocation::Space::Sgpr, first, count};
  if (program.accum_offset > 0 && first >= program.accum_offset)
    return {RaceLocation::Space::Agpr, first - program.accum_offset, count};
  return {RaceLocation::Space::Vgpr, first, count};
}

}  // namespace cdna4::emu
