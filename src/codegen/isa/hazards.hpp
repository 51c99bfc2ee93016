#pragma once
// Inserts the s_nop wait states gfx950 requires between dependent instructions
// that the hardware does not interlock (the assembler inserts none).
#include <cstdint>
#include <vector>

#include "codegen/isa/code.hpp"

namespace cdna4::codegen::isa {

// What the rules need to know of an instruction, worked out once per instruction.
struct HazardFacts {
  enum Class : uint8_t { other, mfma, valu, salu, vmem, ds };
  Class cls = other;
  bool lds_dma = false, readlane = false, writes_m0 = false;
  bool trans = false;  // transcendental VALU (v_exp_f32, v_rcp_f32, ...)
  int passes = 0;  // MFMA passes
  std::vector<Reg> defs, uses;                // registers only
  std::vector<Special> special_defs, special_uses;
  Reg src_c{RegFile::v, 0, 0};                // MFMA only
  Reg src_a{RegFile::v, 0, 0}, src_b{RegFile::v, 0, 0};

  static HazardFacts of(const Instruction& i);
};

struct HazardRule {
  const char* name;
  HazardFacts::Class producer;  // the rule applies only after instructions of this class
  // Wait states needed between `producer` and `consumer`; 0 when the rule does not apply.
  int (*required)(const HazardFacts& producer, const HazardFacts& consumer);
};

const std::vector<HazardRule>& gfx950_hazard_rules();

// Wait states the pair needs (max over the rules) and the rule's name.
struct HazardNeed {
  int wait_states = 0;
  const char* rule = nullptr;
};
HazardNeed hazard_between(const Instruction& producer, const Instruction& consumer);

// Returns `code` with the minimum s_nops inserted. Backward branches (a label
// targeted by a later s_cbranch) are followed: the loop head sees the loop tail.
Code insert_hazard_nops(Code code);

}  // namespace cdna4::codegen::isa
