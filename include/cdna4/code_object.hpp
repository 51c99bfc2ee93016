#pragma once
// A parsed AMDGPU HSA code object (hsaco): what the runtime and the emulator need
// to launch a kernel, for our own code objects and for foreign ones alike.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cdna4 {

// Largest kernarg segment a kernel may declare (descriptor or metadata) or a
// launch may pass: 4 KiB, the kernel-argument limit of HIP and classic CUDA,
// many times what real kernels use (a HIP kernel's hidden arguments end near
// byte 256; the largest foreign GEMMs we run take a few hundred bytes).
inline constexpr uint32_t kMaxKernargSegmentBytes = 4096;

struct KernelArg {
  std::string name;        // may be empty in foreign code objects
  std::string value_kind;  // "global_buffer", "by_value", "hidden_block_count_x", ...
  std::string address_space;  // "global", ... or empty
  uint32_t offset = 0;
  uint32_t size = 0;
  std::string type_name;  // the source type ("int", "float") when the metadata has .type_name
};

struct KernelInfo {
  std::string name;            // symbol name (without ".kd")
  int64_t descriptor_offset = 0;  // address of "name.kd" minus the .text address
  uint64_t entry_offset = 0;     // entry point as an offset into text()
  // From the 64-byte kernel descriptor.
  uint32_t group_segment_fixed_size = 0;    // static LDS bytes
  uint32_t private_segment_fixed_size = 0;
  uint32_t kernarg_size = 0;                // descriptor's value (may be 0 in foreign objects)
  uint32_t compute_pgm_rsrc1 = 0, compute_pgm_rsrc2 = 0, compute_pgm_rsrc3 = 0;
  uint16_t kernel_code_properties = 0;
  uint32_t accum_offset = 0;     // first AGPR index in the unified file (gfx90a+)
  uint32_t vgpr_granule_count = 0;   // from rsrc1 (encoded)
  uint32_t sgpr_granule_count = 0;
  // From the metadata note (amdhsa.kernels[]).
  uint32_t md_kernarg_size = 0;
  uint32_t md_kernarg_align = 0;
  uint32_t md_group_segment_fixed_size = 0;
  uint32_t md_private_segment_fixed_size = 0;
  uint32_t sgpr_count = 0;
  uint32_t vgpr_count = 0;   // VGPR + AGPR
  uint32_t agpr_count = 0;
  uint32_t wavefront_size = 64;
  uint32_t max_flat_workgroup_size = 0;
  std::vector<KernelArg> args;

  // Kernarg bytes to allocate: the larger of descriptor and metadata sizes.
  uint32_t kernarg_bytes() const { return kernarg_size > md_kernarg_size ? kernarg_size : md_kernarg_size; }
  // Entry ABI bits decoded from the descriptor.
  bool user_sgpr_kernarg_ptr() const { return kernel_code_properties & 0x8; }
  bool ieee_mode() const { return (compute_pgm_rsrc1 >> 23) & 1; }      // MODE.IEEE at wave start
  bool fp16_overflow() const { return (compute_pgm_rsrc1 >> 26) & 1; }  // MODE.FP16_OVFL: saturating conversions
  uint32_t user_sgpr_count() const { return (compute_pgm_rsrc2 >> 1) & 0x1f; }
  bool workgroup_id_x() const { return (compute_pgm_rsrc2 >> 7) & 1; }
  bool workgroup_id_y() const { return (compute_pgm_rsrc2 >> 8) & 1; }
  bool workgroup_id_z() const { return (compute_pgm_rsrc2 >> 9) & 1; }
  uint32_t workitem_id_dims() const { return (compute_pgm_rsrc2 >> 11) & 3; }  // 0: X, 1: XY, 2: XYZ
};

class CodeObject {
 public:
  // Parses an hsaco (ELF64 AMDGPU shared object). The input is untrusted: the
  // ELF structure, the metadata note and every field used from it are checked
  // (docs/runtime.md, "Code object validation"). Throws cdna4::Error with a
  // message naming what is wrong for anything that is not a usable code object.
  static CodeObject read(std::span<const uint8_t> bytes);

  const std::string& target() const { return target_; }  // e.g. "amdgcn-amd-amdhsa--gfx950"
  const std::string& processor() const { return processor_; }  // from the ELF flags, e.g. "gfx950"
  const std::vector<uint8_t>& text() const { return text_; }  // .text section bytes
  uint64_t text_address() const { return text_address_; }
  const std::vector<KernelInfo>& kernels() const { return kernels_; }
  const KernelInfo& kernel(const std::string& name) const;  // throws if absent
  uint32_t code_object_version() const { return code_object_version_; }
  const std::string& metadata_yaml() const { return metadata_yaml_; }  // for display

 private:
  std::string target_;
  std::string processor_;
  std::vector<uint8_t> text_;
  uint64_t text_address_ = 0;
  std::vector<KernelInfo> kernels_;
  uint32_t code_object_version_ = 0;
  std::string metadata_yaml_;
};

// The metadata args a launch supplies, in order (those whose kind is not hidden_*).
std::vector<const KernelArg*> explicit_args(const KernelInfo& kernel);
// "#2 (n, by_value, 4 bytes at offset 8)", for messages.
std::string describe_arg(const KernelArg& arg, size_t position);

}  // namespace cdna4
