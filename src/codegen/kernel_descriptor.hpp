#pragma once
// What a kernel needs besides its instructions: the .amdhsa_kernel descriptor
// and the code object v5 metadata note, both written as assembler directives.
#include <cstdint>
#include <string>
#include <vector>

namespace cdna4::codegen {

struct KernelArgSpec {
  std::string name;
  enum class Kind { global_buffer, by_value } kind = Kind::global_buffer;
  uint32_t size = 8;  // bytes; pointers are 8
};

struct KernelSpec {
  std::string name;
  uint32_t vgprs = 1;        // architectural VGPRs used (v0 .. v[vgprs-1])
  uint32_t agprs = 0;        // AGPRs used (a0 .. a[agprs-1])
  uint32_t sgprs = 1;        // SGPRs used, without VCC
  uint32_t lds_bytes = 0;
  uint32_t workgroup_size = 256;
  bool workgroup_id_y = false;
  bool workgroup_id_z = false;
  std::vector<KernelArgSpec> args;

  uint32_t accum_offset() const;    // first AGPR in the unified file, multiple of 4
  uint32_t next_free_vgpr() const;  // accum_offset + AGPRs (or VGPRs when no AGPRs)
  uint32_t kernarg_size() const;
  uint32_t metadata_sgpr_count() const;  // SGPRs + VCC
};

// ".amdhsa_code_object_version 5", target, and the kernel's text-section preamble.
std::string kernel_prologue_directives(const KernelSpec& spec);
// ".size", the .amdhsa_kernel block and the .amdgpu_metadata note.
std::string kernel_epilogue_directives(const KernelSpec& spec);

// Throws cdna4::Error when the spec cannot be a gfx950 kernel (register budget,
// LDS size, workgroup size).
void validate(const KernelSpec& spec);

}  // namespace cdna4::codegen
