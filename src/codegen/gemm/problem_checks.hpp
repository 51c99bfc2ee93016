#pragma once
// A GemmProblem's buffers against its shape and schedule, with errors that name
// the buffer, what it holds and what the shape needs.
#include "cdna4/gemm.hpp"

namespace cdna4::detail {

// Dimensions, and every buffer against what the problem describes: a packed
// operand (no leading dimension, no batch stride), the scales, a packed C input
// and the bias exactly; an operand or C input with a leading dimension or batch
// stride at least up to its last element. Scales only with a scaled schedule,
// C and bias data only with a fused epilogue.
void check_problem(const Schedule& schedule, const GemmProblem& problem);
// `op`'s buffer holds what the kernel reads of it (a K-major operand's rows in
// whole 16-byte units), the batch included; `problem` as staged (output type resolved).
void check_kernel_reads(const Schedule& schedule, const GemmProblem& problem, Operand op);

}  // namespace cdna4::detail
