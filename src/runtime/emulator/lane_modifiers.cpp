// DPP and SDWA: decoding into a LaneModifier record and the two handlers that
// prepare the modified operands before running the operation.
#include "runtime/emulator/lane_modifiers.hpp"

#include <algorithm>

#include "common/lane_modifiers.hpp"
#include "runtime/emulator/ops_common.hpp"

namespace cdna4::emu {
namespace {

namespace sdwa = gfx950::sdwa;

const LaneModifier& record_of(const Wave& w, const Inst& in) { return w.wg->program->lane_modifiers[in.aux]; }

// src0 lane l is the permuted lane's value, or 0 where that lane is outside the
// row / wave or inactive. A lane outside row_mask x bank_mask, or with such an
// invalid source and no bound_ctrl, does not execute: its VGPR destination
// keeps its value (and a carry-out bit is 0, as for an inactive lane).
void dpp(Wave& w, const Inst& in) {
  const LaneModifier& m = record_of(w, in);
  const uint64_t exec = w.exec();
  uint64_t invalid = 0;
  for (int l = 0; l < kLanes; ++l) {
    const int s = m.source_lane[l];
    if (s < 0 || !((exec >> s) & 1)) invalid |= 1ull << l;
  }
  for (uint32_t d = 0; d < m.source[0].dwords; ++d) {
    const uint32_t* src = w.v(m.source[0].index + d);
    uint32_t* out = w.v(scratch::kFirst + d);
    for (int l = 0; l < kLanes; ++l) out[l] = (invalid >> l) & 1 ? 0u : src[m.source_lane[l]];
  }
  const uint64_t runs = exec & m.write_lanes & (m.bound_ctrl ? ~0ull : ~invalid);
  w.set_s64(sreg::kExecLo, runs);
  m.op.exec(w, m.op);
  w.set_s64(sreg::kExecLo, exec);
}

// Selected sources are extracted (zero- or sign-extended) into scratch
// registers; a sub-dword result is written into its dst_sel field.
void sdwa_op(Wave& w, const Inst& in) {
  const LaneModifier& m = record_of(w, in);
  for (int s = 0; s < 2; ++s) {
    if (m.source_sel[s] == sdwa::kDword) continue;
    LaneValues v;
    fetch(w, m.source[s], v);
    uint32_t* out = w.v(scratch::kFirst + s);
    for (int l = 0; l < kLanes; ++l) out[l] = sdwa::select(v[l], m.source_sel[s], m.sign_extend[s]);
  }
  m.op.exec(w, m.op);
  if (m.dst.kind != OperandKind::Vgpr) return;
  const uint32_t* result = w.v(scratch::kFirst + 2);
  uint32_t* dst = w.v(m.dst.index);
  const uint64_t exec = w.exec();
  for (int l = 0; l < kLanes; ++l)
    if ((exec >> l) & 1) dst[l] = sdwa::place(result[l], dst[l], m.dst_sel, m.dst_unused);
}

Operand scratch_operand(const Operand& real, uint16_t index) {
  Operand op = real;
  op.kind = OperandKind::Vgpr;
  op.index = index;
  op.is_agpr = false;
  op.imm = 0;
  op.packed &= ~packed_sel::kSignExtend;
  return op;
}

std::string attach_dpp(const LaneControls& c, Inst& in, LaneModifier& m) {
  if (in.num_src == 0 || in.src[0].kind != OperandKind::Vgpr) return "DPP source 0 must be a VGPR";
  for (int l = 0; l < kLanes; ++l) {
    const int s = gfx950::dpp::source_lane(c.dpp_ctrl, l);
    if (s == -2) return "reserved DPP control";
    m.source_lane[l] = int8_t(s);
  }
  m.write_lanes = gfx950::dpp::write_lanes(c.row_mask, c.bank_mask);
  m.bound_ctrl = c.bound_ctrl;
  m.source[0] = in.src[0];
  m.op.src[0] = scratch_operand(in.src[0], scratch::kFirst);
  return {};
}

std::string attach_sdwa(const LaneControls& c, Inst& in, LaneModifier& m) {
  for (int s = 0; s < std::min<int>(in.num_src, 2); ++s) {
    const bool sext = in.src[s].packed & packed_sel::kSignExtend;
    m.op.src[s].packed &= ~packed_sel::kSignExtend;
    if (c.source_sel[s] == sdwa::kDword) continue;
    if (in.src[s].dwords != 1) return "SDWA on a 64-bit source";
    m.source[s] = in.src[s];
    m.source_sel[s] = c.source_sel[s];
    m.sign_extend[s] = sext;
    m.op.src[s] = scratch_operand(in.src[s], uint16_t(scratch::kFirst + s));
  }
  if (c.dst_sel != sdwa::kDword && in.dst[0].kind == OperandKind::Vgpr) {
    if (in.dst[0].dwords != 1) return "SDWA on a 64-bit destination";
    m.dst = in.dst[0];
    m.dst_sel = c.dst_sel;
    m.dst_unused = c.dst_unused;
    m.op.dst[0] = scratch_operand(in.dst[0], uint16_t(scratch::kFirst + 2));
  }
  return {};
}

}  // namespace

LaneForm lane_form_of(std::string_view name) {
  if (name.find("_dpp") != std::string_view::npos) return LaneForm::Dpp;
  if (name.find("_sdwa") != std::string_view::npos) return LaneForm::Sdwa;
  return LaneForm::None;
}

std::string take_lane_controls(LaneForm form, size_t num_sources, std::vector<int64_t>& controls, LaneControls& out) {
  auto& c = controls;
  if (form == LaneForm::Dpp) {
    if (c.size() < 4) return "missing DPP controls";
    const size_t at = c.size() - 4;
    out.dpp_ctrl = uint32_t(c[at]);
    out.row_mask = uint32_t(c[at + 1]);
    out.bank_mask = uint32_t(c[at + 2]);
    out.bound_ctrl = c[at + 3] != 0;
    c.resize(at);
    return {};
  }
  const size_t selects = std::min<size_t>(num_sources, 2);
  if (c.size() < selects + 1) return "missing SDWA controls";
  for (size_t s = 0; s < selects; ++s) out.source_sel[s] = uint8_t(c[c.size() - selects + s]);
  c.resize(c.size() - selects);
  if (c.size() >= 3) {  // clamp, [omod,] dst_sel, dst_unused
    out.dst_sel = uint8_t(c[c.size() - 2]);
    out.dst_unused = uint8_t(c[c.size() - 1]);
    c.resize(c.size() - 2);
  }
  for (uint8_t sel : {out.source_sel[0], out.source_sel[1], out.dst_sel})
    if (sel > sdwa::kDword) return "unknown SDWA select";
  if (out.dst_unused > sdwa::kPreserve) return "unknown SDWA dst_unused";
  return {};
}

std::string attach_lane_modifier(LaneForm form, const LaneControls& controls, Inst& in, Program& program) {
  for (const Operand& d : in.dst)
    if (d.kind == OperandKind::Sgpr && d.index == sreg::kExecLo && form == LaneForm::Dpp)
      return "DPP on an instruction writing EXEC is not modelled";
  LaneModifier m;
  m.op = in;
  std::string error = form == LaneForm::Dpp ? attach_dpp(controls, in, m) : attach_sdwa(controls, in, m);
  if (!error.empty()) return error;
  in.exec = form == LaneForm::Dpp ? dpp : sdwa_op;
  in.aux = uint32_t(program.lane_modifiers.size());
  program.lane_modifiers.push_back(m);
  return {};
}

}  // namespace cdna4::emu
