#pragma once
// Read-modify-write arithmetic of the memory atomics (scalar, buffer, global,
// flat) and its application to host memory with real host atomics, since
// workgroups run concurrently on host threads.
#include <cstdint>
#include <string_view>

namespace cdna4::emu {

enum class AtomicOp : uint8_t {
  Swap, CmpSwap, Add, Sub, SMin, UMin, SMax, UMax, And, Or, Xor, Inc, Dec,
  AddF32, PkAddF16, PkAddBf16,
};

struct AtomicKind {
  AtomicOp op = AtomicOp::Add;
  bool wide = false;  // _X2: 64-bit operands
};

// "ADD", "CMPSWAP_X2", "PK_ADD_BF16", ... (the opcode name after "..._ATOMIC_").
// Returns false for names that are not a modelled atomic.
bool parse_atomic(std::string_view name, AtomicKind& kind);

// The new memory value for `old` (CMPSWAP: `data` is the value to store,
// `compare` the expected one). Narrow forms use the low 32 bits.
uint64_t atomic_combine(AtomicKind kind, uint64_t old, uint64_t data, uint64_t compare);

// Atomically applies the operation to the naturally aligned word at host
// address `address` and returns the value it held before.
uint64_t atomic_apply(AtomicKind kind, uint64_t address, uint64_t data, uint64_t compare);

// Round to nearest even of an fp32 value to bf16 / f16 bits (NaNs stay quiet NaNs).
uint16_t bf16_from_f32(float f);
uint16_t f16_from_f32(float f);
float f32_from_f16(uint16_t h);

}  // namespace cdna4::emu
