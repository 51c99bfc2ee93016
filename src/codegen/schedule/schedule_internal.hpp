#pragma once
// Pieces shared by the verifier and the planner; not part of the public API.
#include <cdna4/schedule.hpp>

#include "codegen/schedule/geometry.hpp"

#include "common/mfma_table.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cdna4::detail {

// The MFMA kinds a schedule may name (their facts: common/mfma_table.hpp).
const std::vector<std::pair<std::string, MfmaKind>>& mfma_kinds();
const gfx950::MfmaInfo& mfma_info(MfmaKind kind);
// The types an MFMA operand may have (by their schedule names), and their table rows.
std::vector<std::pair<std::string, DataType>> operand_types();
std::optional<gfx950::Element> mfma_element(DataType type);

// Op indices in emission order (ascending `order`; ties keep array order).
std::vector<int> emission_order(const Schedule& s);

// Static rules (seed 004 dependencies, coverage, resources, wait ranges).
void check_static_rules(const Schedule& s, std::vector<Finding>& findings);

// Symbolic simulation of every wave over prologue, steady state and epilogue for
// one tile count; appends hazards (RAW/WAR races, unwaited MFMA operands).
void simulate_hazards(const Schedule& s, int k_tiles, std::vector<Finding>& findings,
                      size_t max_findings);

}  // namespace cdna4::detail
