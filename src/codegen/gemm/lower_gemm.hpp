#pragma once
#include <string>

#include "cdna4/gemm.hpp"
#include "codegen/isa/code.hpp"
#include "codegen/kernel_descriptor.hpp"

namespace cdna4::codegen {

struct LoweredGemm {
  isa::Code code;   // with hazard nops
  KernelSpec spec;
  int loop_instructions = 0, loop_iterations = 0;
  std::string assembly() const;  // directives + code
};

// Lowers a planned, verified schedule for one shape. Throws cdna4::Error for a
// shape or schedule the code generator cannot lower.
LoweredGemm lower_gemm(const Schedule& planned, const GemmShape& shape, const std::string& kernel_name);

// Throws cdna4::Error naming what is wrong with the shape.
// `bits_a`, `bits_b`: element widths of A and B. K and the leading dimensions
// of A and B must be whole 16-byte pieces of each (each lane loads 16 bytes along K).
void validate_shape(const GemmShape& shape, Layout layout, int bits_a, int bits_b);

}  // namespace cdna4::codegen
