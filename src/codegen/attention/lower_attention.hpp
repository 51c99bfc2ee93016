#pragma once
#include <string>

#include "cdna4/attention.hpp"
#include "codegen/isa/code.hpp"
#include "codegen/kernel_descriptor.hpp"

namespace cdna4::codegen {

struct LoweredAttention {
  isa::Code code;  // with hazard nops
  KernelSpec spec;
  int loop_instructions = 0;
  std::string assembly() const;  // directives + code
};

// Throws cdna4::Error naming what the kernel cannot take of the shape.
void check_attention_shape(const AttentionSchedule& schedule, const AttentionShape& shape);

// Lowers a planned attention schedule for one shape (compiled in: Nq, Nk, H,
// Hkv, D, causal, scale, out, lse); tensor addresses and strides are arguments.
LoweredAttention lower_attention(const AttentionSchedule& planned, const AttentionShape& shape,
                                 const std::string& kernel_name);

}  // namespace cdna4::codegen
