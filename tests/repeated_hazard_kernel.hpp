#pragma once
// A kernel body whose reports repeat: each wave writes M0 (its own 256 LDS
// bytes) right before an LDS-DMA load on each of `trips` loop trips (one
// hazard group at the load), then reads a transcendental result at once
// (a second group). Needs 256 LDS bytes per wave.
#include <fmt/format.h>

#include <string>

namespace cdna4::emutest {

inline std::string repeated_hazard_body(int trips) {
  return fmt::format(R"(
  s_mov_b64 s[4:5], 0
  s_mov_b64 s[6:7], 0
  v_mov_b32 v1, 0
  v_lshrrev_b32 v5, 6, v0
  v_lshlrev_b32 v5, 8, v5
  s_nop 0
  v_readfirstlane_b32 s9, v5
  s_mov_b32 s8, {}
trip:
  s_mov_b32 m0, s9
  buffer_load_dword v1, s[4:7], 0 offen lds
  s_waitcnt vmcnt(0)
  s_sub_u32 s8, s8, 1
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 trip
  v_mov_b32 v2, 1.0
  v_exp_f32 v3, v2
  v_add_f32 v4, 1.0, v3
  s_endpgm
)",
                     trips);
}

}  // namespace cdna4::emutest
