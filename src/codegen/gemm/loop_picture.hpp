#pragma once
// A text picture of a kernel's steady-state loop body: the memory operations,
// MFMAs, waits, barriers and priorities in order, runs of one kind collapsed
// ("ds_read_b128 x8"), address arithmetic left out.
#include <string>

namespace cdna4::codegen {

// One block per steady-state loop in the assembly ("g0_steady_loop:" ... the
// branch back), each headed by its label; empty when the kernel has no loop.
std::string steady_loop_picture(const std::string& assembly);

}  // namespace cdna4::codegen
