#pragma once
// DPP and SDWA forms of VOP1 / VOP2 / VOPC instructions. The decoder turns
// one into the plain operation (its registry handler, canonical operands) plus
// a LaneModifier record; the instruction's handler prepares the modified
// operands in scratch registers and runs the operation on them, so the
// operations themselves and every unmodified instruction are untouched.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/emulator/program.hpp"

namespace cdna4::emu {

enum class LaneForm : uint8_t { None, Dpp, Sdwa };

// From the LLVM opcode name ("V_MOV_B32_dpp_vi", "V_CMP_EQ_U32_sdwa_gfx9").
LaneForm lane_form_of(std::string_view llvm_name);

// The modifier's control operands, taken off the end of the MCInst's controls.
struct LaneControls {
  uint32_t dpp_ctrl = 0, row_mask = 0xf, bank_mask = 0xf;
  bool bound_ctrl = false;
  uint8_t source_sel[2] = {gfx950::sdwa::kDword, gfx950::sdwa::kDword};
  uint8_t dst_sel = gfx950::sdwa::kDword, dst_unused = gfx950::sdwa::kPad;
};

// Removes the DPP controls (dpp_ctrl, row_mask, bank_mask, bound_ctrl) or the
// SDWA ones (dst_sel, dst_unused when the operation writes a VGPR, then one
// select per source) from `controls`, leaving clamp / omod for the operation.
std::string take_lane_controls(LaneForm form, size_t num_sources, std::vector<int64_t>& controls,
                               LaneControls& out);

// `in` holds the decoded operation; makes it the modified instruction (handler
// and record index) and appends its record to `program`.
std::string attach_lane_modifier(LaneForm form, const LaneControls& controls, Inst& in, Program& program);

}  // namespace cdna4::emu
