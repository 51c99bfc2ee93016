#pragma once
// Inserts the s_nop wait states gfx950 requires between dependent instructions
// that the hardware does not interlock (the assembler inserts none).
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "codegen/isa/code.hpp"
#include "common/wait_state_rules.hpp"

namespace cdna4::codegen::isa {

// A few operands in place (an instruction names at most a handful): the facts
// of a whole kernel are built without a heap allocation each.
template <class T, int N>
struct OperandList {
  T items[N];
  int n = 0;
  void push_back(const T& x) {
    if (n == N) throw std::length_error("hazard facts: more operands than an instruction has");
    items[n++] = x;
  }
  const T* begin() const { return items; }
  const T* end() const { return items + n; }
  bool empty() const { return n == 0; }
  const T& front() const { return items[0]; }
};

// What the rules need to know of an instruction, worked out once per instruction.
struct HazardFacts {
  gfx950::HazardProfile profile;  // class, MFMA passes, readlane / transcendental / M0 write / LDS-DMA
  OperandList<Reg, 8> defs, uses;             // registers only
  OperandList<Special, 4> special_defs, special_uses;
  Reg src_c{RegFile::v, 0, 0};                // MFMA only
  Reg src_a{RegFile::v, 0, 0}, src_b{RegFile::v, 0, 0};
  Reg lane_select{RegFile::v, 0, 0};          // v_readlane / v_writelane: src1 when an SGPR (else count 0)
  // Registers hashed to 64 bits (file, index mod 64): what a producer writes
  // (and an MFMA's src C, which a later write must wait for) and what a consumer
  // touches. Every rule but those on special registers (m0, vcc, ...) needs the
  // two to overlap, so disjoint masks rule a pair out at once.
  uint64_t produced_mask = 0, touched_mask = 0;

  static HazardFacts of(const Instruction& i);
};

// Wait states a pair needs (max over the rules of common/wait_state_rules.hpp) and the rule.
struct HazardNeed {
  int wait_states = 0;
  const gfx950::WaitStateRule* rule = nullptr;
};

// Returns `code` with the minimum s_nops inserted. Backward branches (a label
// targeted by a later s_cbranch) are followed: the loop head sees the loop tail.
Code insert_hazard_nops(Code code);

}  // namespace cdna4::codegen::isa
