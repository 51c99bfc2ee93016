// The hazard pass, rule by rule: each pair before (no nops) and after (the
// minimum nops, and not one more).
#include <catch2/catch.hpp>

#include "codegen/isa/hazards.hpp"

using namespace cdna4::codegen::isa;

namespace {

int nops_between(const Code& code) {
  int states = 0;
  for (const auto& l : code.lines)
    if (l.kind == Line::Kind::instruction && l.inst.mnemonic == "s_nop") states += wait_states(l.inst);
  return states;
}

// Emits producer, `filler` independent instructions, consumer; returns the wait states inserted.
template <class P, class C>
int inserted(P producer, C consumer, int filler = 0) {
  Code c;
  producer(c);
  for (int i = 0; i < filler; ++i) c.s_mov_b32(s(90), imm(i));
  consumer(c);
  return nops_between(insert_hazard_nops(c));
}

auto mfma16 = [](Code& c) { c.v_mfma("v_mfma_f32_16x16x32_bf16", a(0, 4), v(8, 4), v(12, 4), a(0, 4)); };
auto mfma32 = [](Code& c) { c.v_mfma("v_mfma_f32_32x32x16_bf16", a(0, 16), v(8, 4), v(12, 4), a(0, 16)); };

}  // namespace

TEST_CASE("XDL result read by a VALU needs passes + 4 wait states", "[hazards]") {
  auto read_acc = [](Code& c) { c.v_accvgpr_read_b32(v(40), a(2)); };
  CHECK(inserted(mfma16, read_acc) == 8);
  CHECK(inserted(mfma32, read_acc) == 12);
  CHECK(inserted(mfma16, read_acc, 5) == 3);    // independent instructions count
  CHECK(inserted(mfma16, read_acc, 8) == 0);
  CHECK(inserted(mfma16, [](Code& c) { c.v_accvgpr_read_b32(v(40), a(4)); }) == 0);  // no overlap
}

TEST_CASE("XDL result as another MFMA's A/B source", "[hazards]") {
  Code c;
  c.v_mfma("v_mfma_f32_16x16x32_bf16", v(20, 4), v(8, 4), v(12, 4), v(20, 4));
  c.v_mfma("v_mfma_f32_16x16x32_bf16", a(0, 4), v(20, 4), v(12, 4), a(0, 4));
  CHECK(nops_between(insert_hazard_nops(c)) == 8);
}

TEST_CASE("back-to-back accumulation into the same registers needs nothing", "[hazards]") {
  CHECK(inserted(mfma16, mfma16) == 0);
  // SrcC overlapping but not identical: passes + 2.
  CHECK(inserted(mfma16, [](Code& c) { c.v_mfma("v_mfma_f32_16x16x32_bf16", a(2, 4), v(8, 4), v(12, 4), a(2, 4)); }) == 6);
}

TEST_CASE("VALU write then MFMA read of the same VGPR needs 2", "[hazards]") {
  auto write = [](Code& c) { c.v_mov_b32(v(9), imm(1)); };
  CHECK(inserted(write, mfma16) == 2);
  CHECK(inserted(write, mfma16, 2) == 0);
  CHECK(inserted([](Code& c) { c.v_mov_b32(v(50), imm(1)); }, mfma16) == 0);
}

TEST_CASE("MFMA SrcC read then VALU overwrite (WAR) waits passes", "[hazards]") {
  CHECK(inserted(mfma16, [](Code& c) { c.v_accvgpr_write_b32(a(1), imm(0)); }) == 8);  // also a WAW on the result
  Code c;
  c.v_mfma("v_mfma_f32_16x16x32_bf16", v(20, 4), v(8, 4), v(12, 4), v(30, 4));
  c.v_mov_b32(v(31), imm(0));
  CHECK(nops_between(insert_hazard_nops(c)) == 4);
}

TEST_CASE("VALU write of an SGPR then VMEM read of it needs 5", "[hazards]") {
  auto write = [](Code& c) { c.v_readfirstlane_b32(s(4), v(1)); };
  auto load = [](Code& c) { c.buffer_load_dwordx4_lds(v(2), s(4, 4), imm(0), 0); };
  CHECK(inserted(write, load) == 5);
  CHECK(inserted(write, load, 3) == 2);
  CHECK(inserted([](Code& c) { c.s_mov_b32(s(4), imm(0)); }, load) == 0);  // SALU writes are interlocked
}

TEST_CASE("v_readfirstlane SGPR then VALU read needs 2", "[hazards]") {
  CHECK(inserted([](Code& c) { c.v_readfirstlane_b32(s(4), v(1)); },
                 [](Code& c) { c.v_add_u32(v(2), s(4), v(3)); }) == 2);
}

TEST_CASE("SALU write of M0 then LDS-DMA needs 1", "[hazards]") {
  auto m0_write = [](Code& c) { c.s_add_u32(m0, s(17), imm(1024)); };
  auto load = [](Code& c) { c.buffer_load_dwordx4_lds(v(2), s(4, 4), imm(0), 0); };
  CHECK(inserted(m0_write, load) == 1);
  CHECK(inserted(m0_write, load, 1) == 0);
  CHECK(inserted(m0_write, [](Code& c) { c.ds_read_b128(v(8, 4), v(2), 0); }) == 0);
}

TEST_CASE("a loop head sees the loop tail", "[hazards]") {
  Code c;
  c.label("loop");
  c.v_accvgpr_read_b32(v(40), a(0));
  for (int i = 0; i < 3; ++i) c.s_mov_b32(s(90), imm(i));
  mfma16(c);
  c.s_cbranch_scc1("loop");
  // Around the back edge: mfma, branch, then the read at the head: 8 - 1 (branch) = 7.
  CHECK(nops_between(insert_hazard_nops(c)) == 7);
}

TEST_CASE("VALU write then v_permlane*_swap of either of its registers needs 2", "[hazards]") {
  auto swap32 = [](Code& c) { c.v_permlane_swap(32, v(10), v(11)); };
  auto swap16 = [](Code& c) { c.v_permlane_swap(16, v(10), v(11)); };
  // The swap reads both registers it writes: a fresh value in either waits.
  CHECK(inserted([](Code& c) { c.v_mov_b32(v(10), imm(1)); }, swap32) == 2);
  CHECK(inserted([](Code& c) { c.v_mov_b32(v(11), imm(1)); }, swap16) == 2);
  CHECK(inserted([](Code& c) { c.v_mov_b32(v(11), imm(1)); }, swap32, 2) == 0);
  CHECK(inserted([](Code& c) { c.v_mov_b32(v(12), imm(1)); }, swap32) == 0);
}
