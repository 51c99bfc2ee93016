// The wait-state table (common/wait_state_rules.hpp) read by both of its users:
// for every rule, a producer/consumer pair gets from the code generator's hazard
// pass exactly the row's wait states, runs clean on the emulator with them, and
// with one wait state fewer is reported by the emulator under that rule.
#include <catch2/catch.hpp>

#include <functional>
#include <map>

#include "codegen/isa/hazards.hpp"
#include "common/limits.hpp"
#include "common/wait_state_rules.hpp"
#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::codegen::isa;

namespace {

struct Pair {
  int passes = 0;  // of the producer MFMA (0: not an MFMA)
  std::function<void(Code&)> setup, producer, consumer;
};

void zero_descriptor(Code& c) {  // an all-zero V#: every lane out of range, loads return 0
  c.v_mov_b32(v(1), imm(0));  // first: the SALU writes after it are the wait state a v_readfirstlane of v1 needs
  c.s_mov_b32(s(4), imm(0));
  c.s_mov_b32(s(5), imm(0));
  c.s_mov_b32(s(6), imm(0));
  c.s_mov_b32(s(7), imm(0));
}

const char* k16 = "v_mfma_f32_16x16x32_bf16";

// Forms the code generator has no builder for, written as it would write them.
void dpp_mov(Code& c, Reg d, Reg x) { c.emit({"v_mov_b32_dpp", {d}, {x}, "quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", ""}); }
void permlane_swap(Code& c) { c.emit({"v_permlane32_swap_b32", {v(2)}, {v(3)}, "", ""}); }  // reads and writes both
void cmpx_all_lanes(Code& c) { c.emit({"v_cmpx_eq_u32", {vcc}, {v(1), v(1)}, "", ""}); }  // EXEC keeps every lane

// One pair per rule; the pairs touch the registers of that rule only.
std::map<HazardRule, Pair> pairs() {
  std::map<HazardRule, Pair> p;
  auto mfma_acc = [](Code& c) { c.v_mfma(k16, a(0, 4), v(8, 4), v(12, 4), a(0, 4)); };
  auto mfma_to_v20 = [](Code& c) { c.v_mfma(k16, v(20, 4), v(8, 4), v(12, 4), v(24, 4)); };
  p[HazardRule::MfmaResultReadByValuOrMemory] = {4, {}, mfma_acc, [](Code& c) { c.v_accvgpr_read_b32(v(2), a(2)); }};
  p[HazardRule::MfmaResultOverwrittenByValu] = {4, {}, mfma_acc, [](Code& c) { c.v_accvgpr_write_b32(a(2), imm(0)); }};
  p[HazardRule::MfmaResultReadAsSrcAB] = {4, {}, mfma_to_v20,
                                          [](Code& c) { c.v_mfma(k16, a(0, 4), v(20, 4), v(12, 4), a(0, 4)); }};
  p[HazardRule::MfmaResultReadAsOtherSrcC] = {4, {}, mfma_acc,
                                              [](Code& c) { c.v_mfma(k16, a(4, 4), v(16, 4), v(12, 4), a(2, 4)); }};
  p[HazardRule::MfmaSrcCOverwritten] = {4, {}, mfma_to_v20, [](Code& c) { c.v_mov_b32(v(25), imm(0)); }};
  p[HazardRule::ValuResultReadByMfma] = {0, {}, [](Code& c) { c.v_mov_b32(v(9), imm(0)); }, mfma_acc};
  p[HazardRule::ValuSgprReadByVmem] = {0, zero_descriptor, [](Code& c) { c.v_readfirstlane_b32(s(4), v(1)); },
                                       [](Code& c) {
                                         c.buffer_load_dword(v(2), v(1), s(4, 4), imm(0), 0);
                                         c.s_waitcnt(0, 0);
                                       }};
  p[HazardRule::ReadlaneSgprReadByValu] = {0, {}, [](Code& c) { c.v_readfirstlane_b32(s(8), v(1)); },
                                           [](Code& c) { c.v_add_u32(v(2), s(8), v(1)); }};
  p[HazardRule::M0WrittenBeforeLdsDma] = {0, zero_descriptor, [](Code& c) { c.s_mov_b32(m0, imm(0)); },
                                          [](Code& c) {
                                            c.buffer_load_dwordx4_lds(v(1), s(4, 4), imm(0), 0);
                                            c.s_waitcnt(0, 0);
                                          }};
  p[HazardRule::TransResultReadByValu] = {0, {}, [](Code& c) { c.v_exp_f32(v(2), v(3)); },
                                          [](Code& c) { c.v_add_f32(v(4), v(2), v(3)); }};
  p[HazardRule::ValuResultReadByDpp] = {0, {}, [](Code& c) { c.v_mov_b32(v(3), imm(1)); },
                                        [](Code& c) { dpp_mov(c, v(2), v(3)); }};
  p[HazardRule::ValuExecWriteBeforeDpp] = {0, {}, cmpx_all_lanes, [](Code& c) { dpp_mov(c, v(2), v(3)); }};
  p[HazardRule::ValuExecWriteBeforeLaneAccess] = {0, {}, cmpx_all_lanes,
                                                  [](Code& c) { c.v_readfirstlane_b32(s(8), v(3)); }};
  p[HazardRule::ValuExecWriteBeforeMfma] = {0, {}, cmpx_all_lanes, mfma_acc};
  p[HazardRule::ValuResultReadByPermlaneSwap] = {0, {}, [](Code& c) { c.v_mov_b32(v(3), imm(1)); }, permlane_swap};
  p[HazardRule::CmpxBeforePermlaneSwap] = {0, {}, cmpx_all_lanes, permlane_swap};
  p[HazardRule::ValuSgprReadAsLaneSelect] = {
      0, {}, [](Code& c) { c.emit({"v_add_co_u32", {v(2), s(8, 2)}, {v(1), v(1)}, "", ""}); },
      [](Code& c) { c.emit({"v_readlane_b32", {s(10)}, {v(3), s(8)}, "", ""}); }};
  p[HazardRule::ValuSgprReadByValu] = {0, {}, [](Code& c) { c.v_cmp_gt_i32(v(1), v(3)); },
                                       [](Code& c) { c.v_cndmask_b32(v(2), v(1), v(3)); }};  // reads VCC
  p[HazardRule::ValuResultReadByReadlane] = {0, {}, [](Code& c) { c.v_mov_b32(v(3), imm(1)); },
                                             [](Code& c) { c.v_readfirstlane_b32(s(8), v(3)); }};
  return p;
}

Code assemble_pair(const Pair& pair, int nop_states) {
  Code c;
  if (pair.setup) pair.setup(c);
  pair.producer(c);
  for (int left = nop_states; left > 0; left -= gfx950::kMaxNopStates)
    c.s_nop(std::min(left, gfx950::kMaxNopStates) - 1);
  pair.consumer(c);
  c.s_endpgm();
  return c;
}

std::vector<RaceReport> hazards_on_emulator(const Code& code) {
  emutest::KernelShape shape;
  shape.vgprs = 64;
  shape.accum_offset = 32;
  shape.lds = 1024;
  const auto k = emutest::TestKernel::build(code.text(), shape);
  return emutest::run(k, emutest::Args().dispatch(), emutest::instant()).races;
}

int states_inserted(const Code& code) {
  int states = 0;
  for (const auto& l : code.lines)
    if (l.kind == Line::Kind::instruction && l.inst.mnemonic == "s_nop") states += wait_states(l.inst);
  return states;
}

}  // namespace

TEST_CASE("wait-state rules: the hazard pass and the emulator read the same rows", "[hazards][emulator]") {
  const auto all = pairs();
  for (const gfx950::WaitStateRule& rule : gfx950::kWaitStateRules) {
    INFO(rule.name);
    const auto it = all.find(rule.id);
    if (it == all.end()) {
      // LLVM's rule for 2-pass XDL ops (4x4 MFMAs): no MFMA kind in common/mfma_table.hpp has 2 passes.
      CHECK(rule.id == HazardRule::TwoPassMfmaResultReadAsSrcC);
      continue;
    }
    const Pair& pair = it->second;
    const int needed = gfx950::wait_states(rule, pair.passes);
    REQUIRE(needed >= 1);
    CHECK(states_inserted(insert_hazard_nops(assemble_pair(pair, 0))) == needed);
    CHECK(hazards_on_emulator(assemble_pair(pair, needed)).empty());
    const auto reports = hazards_on_emulator(assemble_pair(pair, needed - 1));
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].kind == RaceKind::Hazard);
    CHECK(reports[0].rule == rule.id);
    CHECK(reports[0].wait_states_needed == uint32_t(needed));
    CHECK(reports[0].wait_states_passed == uint32_t(needed - 1));
    CHECK(std::string(to_string(reports[0].rule)) == rule.name);
  }
}

TEST_CASE("wait-state rules: a producer is remembered exactly as long as a rule can ask", "[hazards]") {
  gfx950::HazardProfile mfma{gfx950::HazardClass::mfma, 8};
  CHECK(gfx950::longest_wait_after(mfma) == 8 + 3 + gfx950::kGfx950XdlExtra);
  mfma.passes = 0;  // an MFMA whose passes are unknown starts no rule
  CHECK(gfx950::longest_wait_after(mfma) == 0);
  CHECK(gfx950::longest_wait_after({gfx950::HazardClass::valu}) == 5);
  gfx950::HazardProfile salu{gfx950::HazardClass::salu};
  CHECK(gfx950::longest_wait_after(salu) == 0);
  salu.writes_m0 = true;
  CHECK(gfx950::longest_wait_after(salu) == 1);
  CHECK(gfx950::longest_wait_after({gfx950::HazardClass::ds}) == 0);
}

TEST_CASE("instruction classes: assembly mnemonics and LLVM opcode names agree", "[hazards]") {
  using gfx950::InstClass;
  const std::pair<const char*, const char*> same[] = {
      {"v_mfma_f32_16x16x32_bf16", "V_MFMA_F32_16X16X32_BF16_vgprcd_e64"},
      {"v_add_f32", "V_ADD_F32_e32"},
      {"s_load_dwordx2", "S_LOAD_DWORDX2_IMM"},
      {"s_nop", "S_NOP"},
      {"s_cbranch_scc1", "S_CBRANCH_SCC1"},
      {"buffer_load_dwordx4", "BUFFER_LOAD_DWORDX4_LDS_OFFEN"},
      {"ds_read_b128", "DS_READ_B128_gfx9"},
      {"global_load_dword", "GLOBAL_LOAD_DWORD_SADDR"},
      {"flat_load_dword", "FLAT_LOAD_DWORD"},
  };
  for (auto [mnemonic, opcode] : same) {
    INFO(mnemonic << " / " << opcode);
    CHECK(gfx950::classify(mnemonic) == gfx950::classify(opcode));
  }
  CHECK(gfx950::classify("s_waitcnt") == InstClass::waitcnt);
  CHECK(gfx950::classify("S_SCHED_BARRIER") == InstClass::pseudo);
  CHECK(gfx950::classify("s_buffer_load_dword") == InstClass::smem);
  CHECK(gfx950::hazard_class(gfx950::classify("s_barrier")) == gfx950::HazardClass::salu);
  CHECK(gfx950::hazard_class(gfx950::classify("s_load_dword")) == gfx950::HazardClass::other);
  CHECK(gfx950::is_transcendental("V_RCP_F32_e32"));
  CHECK(gfx950::is_transcendental("v_exp_f32"));
  CHECK(!gfx950::is_transcendental("v_add_f32"));
  CHECK(gfx950::is_lds_dma_opcode("BUFFER_LOAD_DWORD_LDS_OFFEN"));
  CHECK(!gfx950::is_lds_dma_opcode("BUFFER_LOAD_DWORD_OFFEN"));
  CHECK(!gfx950::is_lds_dma_opcode("DS_READ_B32"));
}

TEST_CASE("wait-state rules: a DPP instruction waits for its sources, not for the destination it keeps",
          "[hazards][emulator][dpp]") {
  const auto pair = [](Reg written) {
    Code c;
    c.v_mov_b32(written, imm(1));
    c.emit({"v_add_f32_dpp", {v(4)}, {v(3), v(5)}, "row_shl:1 row_mask:0xf bank_mask:0xf", ""});
    c.s_endpgm();
    return c;
  };
  // src1 is read in the lane itself, yet checkDPPHazards counts every VGPR source.
  const Code src1 = pair(v(5));
  CHECK(states_inserted(insert_hazard_nops(src1)) == 2);
  const auto reports = hazards_on_emulator(src1);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].rule == HazardRule::ValuResultReadByDpp);
  CHECK(reports[0].location.first == 5);
  // The destination's old value, kept where row_shl has no source lane, is not read: those lanes do
  // not write (LLVM models it as the tied "old" use and would count it).
  const Code kept = pair(v(4));
  CHECK(states_inserted(insert_hazard_nops(kept)) == 0);
  CHECK(hazards_on_emulator(kept).empty());
}

TEST_CASE("wait-state rules: a VALU-written SGPR waits for VALU readers only, and only for the SGPRs they name",
          "[hazards][emulator]") {
  const auto after_compare = [](const std::function<void(Code&)>& reader) {
    Code c;
    c.v_cmp_gt_i32(v(1), v(3));  // writes VCC
    reader(c);
    c.s_endpgm();
    return c;
  };
  // A SALU reader is interlocked (LLVM's checkVALUHazards asks nothing of it).
  const Code salu = after_compare([](Code& c) { c.emit({"s_and_b64", {s(8, 2)}, {vcc, imm(1)}, "", ""}); });
  CHECK(states_inserted(insert_hazard_nops(salu)) == 0);
  CHECK(hazards_on_emulator(salu).empty());
  // A VALU that reads neither VCC nor an SGPR: only its implicit EXEC, which the rule does not count.
  const Code valu = after_compare([](Code& c) { c.v_add_u32(v(2), v(1), v(3)); });
  CHECK(states_inserted(insert_hazard_nops(valu)) == 0);
  CHECK(hazards_on_emulator(valu).empty());
  // An explicit SGPR source of a VALU counts like VCC.
  Code sgpr;
  sgpr.emit({"v_add_co_u32", {v(2), s(8, 2)}, {v(1), v(1)}, "", ""});
  sgpr.v_add_u32(v(4), s(9), v(1));
  sgpr.s_endpgm();
  CHECK(states_inserted(insert_hazard_nops(sgpr)) == 2);
  const auto reports = hazards_on_emulator(sgpr);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].rule == HazardRule::ValuSgprReadByValu);
  CHECK(reports[0].location.first == 9);
}
