#pragma once
// Bounds what assembly text may expand to before LLVM MC expands it: repetition
// (.rept/.rep/.irp/.irpc) and reserved bytes (.fill/.space/.skip/.zero), so a
// runaway count is an error instead of a hang or an out-of-memory abort.
#include <string_view>

#include "codegen/assembler.hpp"

namespace cdna4::codegen {

// Parses `text` once with every repeated body taken once, adding up what the
// full expansion would be. Throws cdna4::Error "<name>:line:col: error: ..."
// naming the directive that goes past options' limits.
void check_expansion(std::string_view text, std::string_view source_name, const TextAssemblyOptions& options);

}  // namespace cdna4::codegen
