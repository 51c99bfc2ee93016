#pragma once
// The steps every compile entry (GEMM, attention) shares after lowering:
// assemble and link a lowered kernel, time the stages, and fill its stats.
#include <chrono>
#include <string>

#include "cdna4/gemm.hpp"
#include "codegen/assembler.hpp"
#include "codegen/isa/code.hpp"
#include "codegen/kernel_descriptor.hpp"

namespace cdna4::codegen {

using BuildClock = std::chrono::steady_clock;
double ms_since(BuildClock::time_point t);

// `prefix` + the schedule name with every character outside [A-Za-z0-9_] as
// '_', unless the options name the kernel.
std::string kernel_symbol(const std::string& prefix, const std::string& schedule_name, const CompileOptions& options);

// The code object: `code` streamed to LLVM MC, or with options.text_assembly
// `assembly` parsed as text; then linked. Sets stats.assemble_ms and link_ms.
Bytes assemble_and_link(const isa::Code& code, const KernelSpec& spec, const std::string& assembly,
                        const CompileOptions& options, CompileStats& stats);

// Instructions, MFMAs, registers, LDS and modeled occupancy of a lowered kernel.
void fill_code_stats(const isa::Code& code, const KernelSpec& spec, int waves_per_workgroup, CompileStats& stats);

}  // namespace cdna4::codegen
