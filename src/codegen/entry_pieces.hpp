#pragma once
// Scalar pieces every kernel entry uses: a raw buffer descriptor over a pointer
// and a division by a constant.
#include <cstdint>

#include "codegen/isa/code.hpp"

namespace cdna4::codegen {

// A raw buffer resource over `bytes` bytes from the 64-bit pointer `ptr`
// (stride 0: lanes past `bytes` read 0 and store nothing).
void buffer_descriptor(isa::Code& c, isa::Reg desc, isa::Reg ptr, int64_t bytes);
// The same with num_records in an SGPR.
void buffer_descriptor(isa::Code& c, isa::Reg desc, isa::Reg ptr, isa::Reg bytes);

// q = x / d for 0 <= x < 2^31 and a constant d: the high half of x * m, m =
// ceil(2^(32 + l) / d) with l = floor(log2 d), shifted right by l. The product
// overestimates x / d by less than x (m d - 2^(32+l)) / (d 2^(32+l)) < 1 / d.
void s_divide(isa::Code& c, isa::Reg q, isa::Reg x, uint32_t d);

}  // namespace cdna4::codegen
