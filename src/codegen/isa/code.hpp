#pragma once
// An instruction builder that reads like assembly: one call per instruction.
//   code.s_mov_b32(s(14), imm(4096));
//   code.buffer_load_dwordx4_lds(v(3), s(12, 4), imm(0), 64);
//   code.v_mfma_f32_16x16x32_bf16(a(0, 4), v(8, 4), v(12, 4), a(0, 4));
#include <string>
#include <vector>

#include "codegen/isa/instruction.hpp"

namespace cdna4::codegen::isa {

struct Line {
  enum class Kind { instruction, label, comment } kind = Kind::instruction;
  Instruction inst;  // kind == instruction
  std::string text;  // label name or comment text
};

class Code {
 public:
  std::vector<Line> lines;

  void label(const std::string& name) { lines.push_back({Line::Kind::label, {}, name}); }
  void comment(const std::string& text) { lines.push_back({Line::Kind::comment, {}, text}); }
  void emit(Instruction inst) { lines.emplace_back(Line::Kind::instruction, std::move(inst)); }
  void append(const Code& other) { lines.insert(lines.end(), other.lines.begin(), other.lines.end()); }
  size_t instruction_count() const;
  std::string text() const;  // one instruction or label per line

  // ---- scalar ----
  void s_load_dwordx2(Reg d, Reg base, int offset) { mem("s_load_dwordx2", {d}, {base, hex(offset)}); }
  void s_load_dword(Reg d, Reg base, int offset) { mem("s_load_dword", {d}, {base, hex(offset)}); }
  void s_mov_b32(Arg d, Arg x) { op("s_mov_b32", d, {x}); }
  void s_add_u32(Arg d, Arg x, Arg y) { op("s_add_u32", d, {x, y}); }
  void s_addc_u32(Arg d, Arg x, Arg y) { op("s_addc_u32", d, {x, y}); }
  void s_sub_u32(Arg d, Arg x, Arg y) { op("s_sub_u32", d, {x, y}); }
  void s_add_i32(Arg d, Arg x, Arg y) { op("s_add_i32", d, {x, y}); }
  void s_sub_i32(Arg d, Arg x, Arg y) { op("s_sub_i32", d, {x, y}); }
  void s_mul_i32(Arg d, Arg x, Arg y) { op("s_mul_i32", d, {x, y}); }
  void s_mul_hi_u32(Arg d, Arg x, Arg y) { op("s_mul_hi_u32", d, {x, y}); }
  void s_lshl_b32(Arg d, Arg x, Arg y) { op("s_lshl_b32", d, {x, y}); }
  void s_lshr_b32(Arg d, Arg x, Arg y) { op("s_lshr_b32", d, {x, y}); }
  void s_and_b32(Arg d, Arg x, Arg y) { op("s_and_b32", d, {x, y}); }
  void s_cmp_ge_u32(Arg x, Arg y) { emit({"s_cmp_ge_u32", {}, {x, y}, "", ""}); }
  void s_cmp_lt_u32(Arg x, Arg y) { emit({"s_cmp_lt_u32", {}, {x, y}, "", ""}); }
  void s_cselect_b32(Arg d, Arg x, Arg y) { op("s_cselect_b32", d, {x, y}); }
  void s_branch(const std::string& target) { emit({"s_branch", {}, {Label{target}}, "", ""}); }
  void s_cmp_lg_u32(Arg x, Arg y) { emit({"s_cmp_lg_u32", {}, {x, y}, "", ""}); }
  void s_cbranch_scc1(const std::string& target) { emit({"s_cbranch_scc1", {}, {Label{target}}, "", ""}); }
  void s_cmp_eq_u32(Arg x, Arg y) { emit({"s_cmp_eq_u32", {}, {x, y}, "", ""}); }
  void s_cmp_lt_i32(Arg x, Arg y) { emit({"s_cmp_lt_i32", {}, {x, y}, "", ""}); }
  void s_cmp_le_i32(Arg x, Arg y) { emit({"s_cmp_le_i32", {}, {x, y}, "", ""}); }
  void s_cbranch_scc0(const std::string& target) { emit({"s_cbranch_scc0", {}, {Label{target}}, "", ""}); }
  void s_max_i32(Arg d, Arg x, Arg y) { op("s_max_i32", d, {x, y}); }
  void s_min_i32(Arg d, Arg x, Arg y) { op("s_min_i32", d, {x, y}); }
  void s_min_u32(Arg d, Arg x, Arg y) { op("s_min_u32", d, {x, y}); }
  void s_and_b64(Arg d, Arg x, Arg y) { op("s_and_b64", d, {x, y}); }
  void s_mov_b64(Arg d, Arg x) { op("s_mov_b64", d, {x}); }
  void s_and_saveexec_b64(Reg saved, Arg x) { op("s_and_saveexec_b64", saved, {x}); }  // also writes EXEC
  void s_waitcnt(int vmcnt, int lgkmcnt);  // -1: do not wait on that counter
  void s_barrier() { emit({"s_barrier", {}, {}, "", ""}); }
  void s_setprio(int prio) { emit({"s_setprio", {}, {imm(prio)}, "", ""}); }
  void s_nop(int n) { emit({"s_nop", {}, {imm(n)}, "", ""}); }
  void s_endpgm() { emit({"s_endpgm", {}, {}, "", ""}); }

  // ---- vector ALU ----
  void v_mov_b32(Reg d, Arg x) { op("v_mov_b32", d, {x}); }
  void v_add_u32(Reg d, Arg x, Arg y) { op("v_add_u32", d, {x, y}); }
  void v_sub_u32(Reg d, Arg x, Arg y) { op("v_sub_u32", d, {x, y}); }
  void v_and_b32(Reg d, Arg x, Arg y) { op("v_and_b32", d, {x, y}); }
  void v_xor_b32(Reg d, Arg x, Arg y) { op("v_xor_b32", d, {x, y}); }
  void v_or_b32(Reg d, Arg x, Arg y) { op("v_or_b32", d, {x, y}); }
  void v_lshlrev_b32(Reg d, Arg shift, Arg x) { op("v_lshlrev_b32", d, {shift, x}); }
  void v_lshrrev_b32(Reg d, Arg shift, Arg x) { op("v_lshrrev_b32", d, {shift, x}); }
  void v_mul_lo_u32(Reg d, Arg x, Arg y) { op("v_mul_lo_u32", d, {x, y}); }
  void v_mul_hi_u32(Reg d, Arg x, Arg y) { op("v_mul_hi_u32", d, {x, y}); }
  void v_bfe_u32(Reg d, Arg x, Arg offset, Arg width) { op("v_bfe_u32", d, {x, offset, width}); }
  void v_add3_u32(Reg d, Arg x, Arg y, Arg z) { op("v_add3_u32", d, {x, y, z}); }
  void v_cmp_gt_i32(Arg x, Arg y) { op("v_cmp_gt_i32", vcc, {x, y}); }
  void v_cmp_u_f32(Arg x, Arg y) { op("v_cmp_u_f32", vcc, {x, y}); }
  void v_cndmask_b32(Reg d, Arg if_false, Arg if_true) { op("v_cndmask_b32", d, {if_false, if_true, vcc}); }
  void v_max_i32(Reg d, Arg x, Arg y) { op("v_max_i32", d, {x, y}); }
  void v_min_i32(Reg d, Arg x, Arg y) { op("v_min_i32", d, {x, y}); }
  void v_cmp_lt_i32(Arg x, Arg y) { op("v_cmp_lt_i32", vcc, {x, y}); }
  void v_cmp_gt_u32(Arg x, Arg y) { op("v_cmp_gt_u32", vcc, {x, y}); }
  void v_cmp_neq_f32(Arg x, Arg y) { op("v_cmp_neq_f32", vcc, {x, y}); }
  void v_readfirstlane_b32(Reg d, Reg x) { op("v_readfirstlane_b32", d, {x}); }
  void v_cvt_f16_f32(Reg d, Arg x) { op("v_cvt_f16_f32", d, {x}); }
  void v_accvgpr_write_b32(Reg d, Arg x) { op("v_accvgpr_write_b32", d, {x}); }
  void v_accvgpr_read_b32(Reg d, Reg x) { op("v_accvgpr_read_b32", d, {x}); }
  void v_mul_f32(Reg d, Arg x, Arg y) { op("v_mul_f32", d, {x, y}); }
  void v_add_f32(Reg d, Arg x, Arg y) { op("v_add_f32", d, {x, y}); }
  void v_max_f32(Reg d, Arg x, Arg y) { op("v_max_f32", d, {x, y}); }
  void v_fma_f32(Reg d, Arg x, Arg y, Arg z) { op("v_fma_f32", d, {x, y, z}); }
  void v_exp_f32(Reg d, Arg x) { op("v_exp_f32", d, {x}); }
  void v_rcp_f32(Reg d, Arg x) { op("v_rcp_f32", d, {x}); }
  void v_sub_f32(Reg d, Arg x, Arg y) { op("v_sub_f32", d, {x, y}); }
  void v_log_f32(Reg d, Arg x) { op("v_log_f32", d, {x}); }
  void v_cvt_pk_bf16_f32(Reg d, Arg x, Arg y) { op("v_cvt_pk_bf16_f32", d, {x, y}); }
  // v_permlane16_swap_b32 / v_permlane32_swap_b32 x, y: both registers are read and written
  // (the hazard pass counts the defs as reads too).
  void v_permlane_swap(int stride, Reg x, Reg y) {
    emit({stride == 16 ? "v_permlane16_swap_b32" : "v_permlane32_swap_b32", {x, y}, {}, "", ""});
  }
  void v_cvt_f32_f16(Reg d, Arg x) { op("v_cvt_f32_f16", d, {x}); }
  void v_mfma(std::string_view mnemonic, Reg d, Reg x, Reg y, Reg c, MfmaModifiers m = {}) {
    emit({mnemonic, {d}, {x, y, c}, modifier_text(m, false), "", m});
  }
  // v_mfma_scale_*: the scale bytes `scale_x` and `scale_y` (op_sel / op_sel_hi choose the byte; 0 is byte 0).
  void v_mfma_scale(std::string_view mnemonic, Reg d, Reg x, Reg y, Reg c, Reg scale_x, Reg scale_y,
                    MfmaModifiers m = {}) {
    emit({mnemonic, {d}, {x, y, c, scale_x, scale_y}, modifier_text(m, true), "", m});
  }

  // ---- memory ----
  // LDS-DMA: each lane writes 16 bytes at M0 + 16 * lane.
  void buffer_load_dwordx4_lds(Reg vaddr, Reg rsrc, Arg soffset, int offset) {
    mem("buffer_load_dwordx4", {}, {vaddr, rsrc, soffset}, modifiers(offset) + " lds");
  }
  void buffer_load_ubyte(Reg d, Reg vaddr, Reg rsrc, Arg soffset, int offset) {
    mem("buffer_load_ubyte", {d}, {vaddr, rsrc, soffset}, modifiers(offset));
  }
  void buffer_load_dword(Reg d, Reg vaddr, Reg rsrc, Arg soffset, int offset) {
    mem("buffer_load_dword", {d}, {vaddr, rsrc, soffset}, modifiers(offset));
  }
  void buffer_load_ushort(Reg d, Reg vaddr, Reg rsrc, Arg soffset, int offset) {
    mem("buffer_load_ushort", {d}, {vaddr, rsrc, soffset}, modifiers(offset));
  }
  void buffer_store_dword(Reg data, Reg vaddr, Reg rsrc, Arg soffset, int offset) {
    mem("buffer_store_dword", {}, {data, vaddr, rsrc, soffset}, modifiers(offset));
  }
  void buffer_store_dwordx4(Reg data, Reg vaddr, Reg rsrc, Arg soffset, int offset) {
    mem("buffer_store_dwordx4", {}, {data, vaddr, rsrc, soffset}, modifiers(offset));
  }
  void ds_write_b32(Reg addr, Reg data, int offset) {
    mem("ds_write_b32", {}, {addr, data}, offset ? "offset:" + std::to_string(offset) : "");
  }
  void v_perm_b32(Reg d, Arg x, Arg y, Arg selector) { op("v_perm_b32", d, {x, y, selector}); }
  void buffer_load_dwordx4(Reg d, Reg vaddr, Reg rsrc, Arg soffset, int offset) {
    mem("buffer_load_dwordx4", {d}, {vaddr, rsrc, soffset}, modifiers(offset));
  }
  void buffer_store_short(Reg data, Reg vaddr, Reg rsrc, Arg soffset, int offset) {
    mem("buffer_store_short", {}, {data, vaddr, rsrc, soffset}, modifiers(offset));
  }
  void buffer_store_short_d16_hi(Reg data, Reg vaddr, Reg rsrc, Arg soffset, int offset) {
    mem("buffer_store_short_d16_hi", {}, {data, vaddr, rsrc, soffset}, modifiers(offset));
  }
  void ds_read_b64(Reg d, Reg addr, int offset) {
    mem("ds_read_b64", {d}, {addr}, offset ? "offset:" + std::to_string(offset) : "");
  }
  // gfx950 transposing reads, `bits` 16 or 8 (ds_read_b64_tr_b16 / _b8).
  void ds_read_b64_tr(int bits, Reg d, Reg addr, int offset) {
    mem(bits == 16 ? "ds_read_b64_tr_b16" : "ds_read_b64_tr_b8", {d}, {addr},
        offset ? "offset:" + std::to_string(offset) : "");
  }
  void ds_read_b128(Reg d, Reg addr, int offset) {
    mem("ds_read_b128", {d}, {addr}, offset ? "offset:" + std::to_string(offset) : "");
  }

 private:
  void op(std::string_view mnemonic, Arg d, std::initializer_list<Arg> uses) {
    Instruction i{mnemonic, {d}, uses, "", ""};
    emit(std::move(i));
  }
  void mem(std::string_view mnemonic, std::initializer_list<Arg> defs, std::initializer_list<Arg> uses,
           std::string mods = "") {
    emit({mnemonic, defs, uses, std::move(mods), ""});
  }
  static std::string modifiers(int offset) {
    return offset ? "offen offset:" + std::to_string(offset) : "offen";
  }
};

}  // namespace cdna4::codegen::isa
