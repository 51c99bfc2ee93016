#pragma once
// The cycle model of one gfx950 CU running the traced workgroups that are
// resident on it at once (docs/model.md "The CU model").
#include <array>
#include <cstdint>
#include <vector>

#include "cdna4/model_report.hpp"
#include "runtime/emulator/program.hpp"
#include "runtime/emulator/trace.hpp"
#include "runtime/model/instruction_class.hpp"

namespace cdna4::model {

// What a wave did at one of its SIMD's issue slots.
enum class Slot : uint8_t { issued, vmcnt, lgkmcnt, barrier, mfma_dependency, mfma_busy, issue, other };
constexpr size_t kSlotKinds = 8;

struct CuResult {
  uint64_t cycles = 0;            // until the last wave ends
  std::vector<uint64_t> wave_end;  // per wave, workgroup by workgroup: s_endpgm issued and its MFMAs done
  uint64_t mfma_busy_cycles = 0;  // summed over the SIMDs
  std::array<uint64_t, kMacClasses> macs{};  // MFMA multiply-adds, by operand width
  uint64_t instructions = 0;
  uint64_t stored_bytes = 0;                       // lines vector stores touch x line size, all workgroups
  std::array<uint64_t, kSlotKinds> wave_cycles{};  // summed over waves, by Slot
  std::vector<ModelSlice> timeline;                // when asked for
};

// Workgroups start together; their waves go to SIMDs round-robin in order.
// `global_latency`: clocks from a vector memory access leaving the CU to its data.
// A timeline of more than `max_timeline_slices` slices throws LimitError.
CuResult simulate_cu(const emu::Program& program, const std::vector<InstTiming>& timing,
                     const std::vector<emu::WorkgroupTrace>& workgroups, uint32_t global_latency,
                     bool timeline = false, uint64_t max_timeline_slices = UINT64_MAX);

}  // namespace cdna4::model
