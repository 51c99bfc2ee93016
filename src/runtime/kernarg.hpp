#pragma once
// Dispatch geometry and kernarg layout, shared by the HSA and emulator backends.
#include <cstdint>
#include <span>
#include <vector>

#include "cdna4/code_object.hpp"
#include "cdna4/runtime.hpp"

namespace cdna4::rt {

struct DispatchGeometry {
  uint32_t workgroups[3] = {1, 1, 1};  // including a trailing partial workgroup
  uint32_t block[3] = {1, 1, 1};       // work-items per (full) workgroup
  uint32_t grid_size[3] = {1, 1, 1};   // work-items: the AQL packet's grid size
  uint32_t full_workgroups[3] = {1, 1, 1};  // hidden_block_count_*
  uint32_t remainder[3] = {0, 0, 0};   // work-items of the partial workgroup, 0 if none
  uint32_t dims = 1;                   // 1..3: last dimension with more than one work-item

  uint64_t total_workgroups() const {
    return uint64_t(workgroups[0]) * workgroups[1] * workgroups[2];
  }
  bool has_partial_workgroups() const { return remainder[0] || remainder[1] || remainder[2]; }
};

// Validates and converts a launch's grid and block for `kernel`: block sizes
// within the kernel's max flat workgroup size, AQL grid sizes within 32 bits.
DispatchGeometry dispatch_geometry(const KernelInfo& kernel, Dim3 grid, Dim3 block, GridUnit unit);

// Throws cdna4::Error naming the kernel and the field unless the descriptor's
// and the metadata's kernarg sizes are at most kMaxKernargSegmentBytes and every
// metadata argument lies inside the segment without overlapping another.
void check_kernarg_layout(const KernelInfo& kernel);

// Values of hidden arguments that depend on the backend.
struct HiddenValues {
  uint32_t dynamic_lds = 0;
  uint64_t queue_ptr = 0;  // HSA queue address; 0 on the emulator
};

// Lays out the kernarg segment: explicit args (matched in order against the
// metadata args that are not hidden), then the hidden args of code object v5.
// Throws cdna4::Error naming the argument for a count, kind or size mismatch.
std::vector<uint8_t> build_kernarg(const KernelInfo& kernel, const std::vector<Arg>& args,
                                   const DispatchGeometry& geometry, const HiddenValues& hidden);

// Lays out a raw block of explicit bytes followed by the hidden args of the
// metadata. Throws cdna4::Error when a hidden arg would overlap the block.
std::vector<uint8_t> build_kernarg_block(const KernelInfo& kernel, const KernargBlock& block,
                                         const DispatchGeometry& geometry, const HiddenValues& hidden);

// A launch's explicit arguments in either form; the backend builds the segment
// with its own hidden values.
class ExplicitArgs {
 public:
  ExplicitArgs(const std::vector<Arg>& args) : args_(&args) {}
  ExplicitArgs(const KernargBlock& block) : block_(&block) {}
  std::vector<uint8_t> kernarg(const KernelInfo& kernel, const DispatchGeometry& geometry,
                               const HiddenValues& hidden) const {
    return args_ ? build_kernarg(kernel, *args_, geometry, hidden)
                 : build_kernarg_block(kernel, *block_, geometry, hidden);
  }

 private:
  const std::vector<Arg>* args_ = nullptr;
  const KernargBlock* block_ = nullptr;
};


}  // namespace cdna4::rt
