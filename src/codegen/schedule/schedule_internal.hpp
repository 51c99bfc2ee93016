#pragma once
// Pieces shared by the verifier and the planner; not part of the public API.
#include <cdna4/schedule.hpp>

#include "codegen/schedule/geometry.hpp"

#include "vocabulary/rows.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cdna4::detail {

// An MFMA kind's and an operand type's gfx950 table rows (src/vocabulary/rows.hpp).
using vocabulary::mfma_element;
using vocabulary::mfma_info;

// Op indices in emission order (ascending `order`; ties keep array order).
std::vector<int> emission_order(const Schedule& s);

// Static rules (seed 004 dependencies, coverage, resources, wait ranges).
void check_static_rules(const Schedule& s, std::vector<Finding>& findings);

// Symbolic simulation of every wave over prologue, steady state and epilogue for
// one tile count; appends hazards (RAW/WAR races, unwaited MFMA operands).
void simulate_hazards(const Schedule& s, int k_tiles, std::vector<Finding>& findings,
                      size_t max_findings);

}  // namespace cdna4::detail
