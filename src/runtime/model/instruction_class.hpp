#pragma once
// What the timing model needs to know of each instruction of a program: its
// issue category, its pipe, and the operands that create dependencies.
#include <cstdint>
#include <vector>

#include "runtime/emulator/program.hpp"
#include "common/limits.hpp"

namespace cdna4::model {

// Issue categories: at one issue slot a SIMD issues at most one instruction of
// each category, from different waves. Internal ones take no category.
enum class Category : uint8_t { valu, salu, vmem, lds, branch, internal };

enum class Kind : uint8_t {
  valu, mfma, salu, smem, vmem_load, vmem_store, lds, branch, waitcnt, barrier, nop, setprio, endpgm, other_internal
};

// Operand width of an MFMA, for its energy per MAC (docs/model.md "Power"):
// 16-bit (bf16, f16), 8-bit (fp8, bf8, i8; an f8f6f4 MFMA with an 8-bit
// operand) and narrower (f8f6f4 with fp6 / bf6 / fp4 operands only).
enum class MacClass : uint8_t { bits16, bits8, narrow };
constexpr size_t kMacClasses = 3;

struct InstTiming {
  Kind kind = Kind::valu;
  Category category = Category::valu;
  uint8_t mfma_passes = 0;
  MacClass mac_class = MacClass::bits16;
  uint32_t macs = 0;  // MFMA: multiply-adds of one lane-group instruction (m x n x k)
  uint8_t valu_clocks = 0;  // VALU: clocks it holds its SIMD's vector ALU (a transcendental: quarter rate)
  uint8_t valu_hold_slots = 0, packed_hold_slots = 0;  // MFMA: slots its SIMD's VALU / packed-fp32 VALU wait (common/mfma_coexec.hpp)
  bool packed_f32 = false;                             // VALU: a packed-fp32 or dot instruction
  uint32_t vmcnt = gfx950::kMaxVmcnt, lgkmcnt = gfx950::kMaxLgkmcnt;  // s_waitcnt
  uint32_t nop_slots = 0;              // s_nop N: N + 1
  uint32_t priority = 0;               // s_setprio
  uint16_t dst_first = 0, dst_count = 0;  // MFMA result registers (unified file)
  uint16_t acc_first = 0, acc_count = 0;  // MFMA srcC
  uint16_t lds_dma_bytes = 0;             // LDS-DMA load: bytes it writes into LDS (64 lanes)
  bool wave_private = false;              // scratch_*: the wave's own spill / stack data
};

std::vector<InstTiming> classify(const emu::Program& program);

}  // namespace cdna4::model
