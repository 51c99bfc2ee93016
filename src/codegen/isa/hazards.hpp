#pragma once
// Inserts the s_nop wait states gfx950 requires between dependent instructions
// that the hardware does not interlock (the assembler inserts none).
#include <string>
#include <vector>

#include "codegen/isa/code.hpp"

namespace cdna4::codegen::isa {

struct HazardRule {
  const char* name;
  // Wait states needed between `producer` and `consumer`, or 0 when the rule does
  // not apply to the pair.
  int (*required)(const Instruction& producer, const Instruction& consumer);
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
Code insert_hazard_nops(const Code& code);

}  // namespace cdna4::codegen::isa
