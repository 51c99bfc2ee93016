#include "codegen/kernel_descriptor.hpp"

#include <fmt/format.h>

#include "cdna4/error.hpp"
#include "common/limits.hpp"

namespace cdna4::codegen {

namespace {
constexpr uint32_t kMaxUnifiedRegisters = gfx950::kRegistersPerLane;  // VGPR + AGPR per lane
constexpr uint32_t kMaxVgprs = gfx950::kMaxVgprs;
constexpr uint32_t kMaxSgprs = gfx950::kAddressableSgprs;
constexpr uint32_t kMaxLdsBytes = gfx950::kLdsBytesPerCu;
constexpr uint32_t kVccSgprs = 2;

uint32_t round_up(uint32_t v, uint32_t m) { return (v + m - 1) / m * m; }
}  // namespace

uint32_t KernelSpec::accum_offset() const {
  return std::max<uint32_t>(gfx950::kAccumOffsetGranule, round_up(vgprs, gfx950::kAccumOffsetGranule));
}

uint32_t KernelSpec::next_free_vgpr() const { return agprs ? accum_offset() + agprs : vgprs; }

uint32_t KernelSpec::kernarg_size() const {
  uint32_t size = 0;
  for (const auto& a : args) size = round_up(size, std::min(a.size, 8u)) + a.size;
  return size;
}

uint32_t KernelSpec::metadata_sgpr_count() const { return sgprs + kVccSgprs; }

void validate(const KernelSpec& spec) {
  if (spec.name.empty()) throw Error("kernel: empty name");
  if (spec.vgprs == 0 || spec.vgprs > kMaxVgprs)
    throw Error(fmt::format("kernel {}: {} VGPRs, gfx950 allows 1..{}", spec.name, spec.vgprs, kMaxVgprs));
  if (spec.next_free_vgpr() > kMaxUnifiedRegisters)
    throw Error(fmt::format("kernel {}: {} VGPRs (accum_offset {}) + {} AGPRs exceed the {} registers per lane",
                            spec.name, spec.vgprs, spec.accum_offset(), spec.agprs, kMaxUnifiedRegisters));
  if (spec.agprs > kMaxVgprs)
    throw Error(fmt::format("kernel {}: {} AGPRs, gfx950 allows at most {}", spec.name, spec.agprs, kMaxVgprs));
  if (spec.sgprs > kMaxSgprs)
    throw Error(fmt::format("kernel {}: {} SGPRs, gfx950 allows at most {}", spec.name, spec.sgprs, kMaxSgprs));
  if (spec.lds_bytes > kMaxLdsBytes)
    throw Error(fmt::format("kernel {}: {} bytes of LDS, gfx950 has {}", spec.name, spec.lds_bytes, kMaxLdsBytes));
  if (spec.workgroup_size == 0 || spec.workgroup_size > uint32_t(gfx950::kMaxWorkgroupSize))
    throw Error(fmt::format("kernel {}: workgroup size {} outside 1..{}", spec.name, spec.workgroup_size,
                            gfx950::kMaxWorkgroupSize));
}

std::string kernel_prologue_directives(const KernelSpec& spec) {
  return fmt::format(
      "\t.amdhsa_code_object_version 5\n"
      "\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx950\"\n"
      "\t.text\n"
      "\t.globl {0}\n"
      "\t.p2align 8\n"
      "\t.type {0},@function\n"
      "{0}:\n",
      spec.name);
}

static std::string metadata_args(const KernelSpec& spec) {
  std::string out;
  uint32_t offset = 0;
  for (const auto& a : spec.args) {
    offset = round_up(offset, std::min(a.size, 8u));
    if (a.kind == KernelArgSpec::Kind::global_buffer)
      out += fmt::format("      - {{ .name: {}, .offset: {}, .size: 8, .value_kind: global_buffer, "
                         ".address_space: global, .actual_access: read_write }}\n",
                         a.name, offset);
    else
      out += fmt::format("      - {{ .name: {}, .offset: {}, .size: {}, .value_kind: by_value }}\n", a.name,
                         offset, a.size);
    offset += a.size;
  }
  return out.empty() ? "" : "    .args:\n" + out;
}

std::string kernel_epilogue_directives(const KernelSpec& spec) {
  validate(spec);
  const uint32_t user_sgprs = spec.args.empty() ? 0 : 2;
  return fmt::format(
      "\t.size {0}, .-{0}\n"
      "\t.rodata\n"
      "\t.p2align 6\n"
      "\t.amdhsa_kernel {0}\n"
      "\t\t.amdhsa_group_segment_fixed_size {1}\n"
      "\t\t.amdhsa_private_segment_fixed_size 0\n"
      "\t\t.amdhsa_kernarg_size {2}\n"
      "\t\t.amdhsa_user_sgpr_count {3}\n"
      "\t\t.amdhsa_user_sgpr_kernarg_segment_ptr {4}\n"
      "\t\t.amdhsa_system_sgpr_workgroup_id_x 1\n"
      "\t\t.amdhsa_system_sgpr_workgroup_id_y {5}\n"
      "\t\t.amdhsa_system_sgpr_workgroup_id_z {6}\n"
      "\t\t.amdhsa_system_vgpr_workitem_id 0\n"
      "\t\t.amdhsa_next_free_vgpr {7}\n"
      "\t\t.amdhsa_next_free_sgpr {8}\n"
      "\t\t.amdhsa_accum_offset {9}\n"
      "\t\t.amdhsa_reserve_vcc 1\n"
      "\t.end_amdhsa_kernel\n"
      "\t.amdgpu_metadata\n"
      "---\n"
      "amdhsa.version: [ 1, 2 ]\n"
      "amdhsa.target: amdgcn-amd-amdhsa--gfx950\n"
      "amdhsa.kernels:\n"
      "  - .name: {0}\n"
      "    .symbol: {0}.kd\n"
      "    .kernarg_segment_size: {2}\n"
      "    .kernarg_segment_align: 8\n"
      "    .group_segment_fixed_size: {1}\n"
      "    .private_segment_fixed_size: 0\n"
      "    .wavefront_size: 64\n"
      "    .sgpr_count: {10}\n"
      "    .vgpr_count: {7}\n"
      "    .agpr_count: {11}\n"
      "    .max_flat_workgroup_size: {12}\n"
      "{13}"
      "...\n"
      "\t.end_amdgpu_metadata\n",
      spec.name, spec.lds_bytes, spec.kernarg_size(), user_sgprs, user_sgprs ? 1 : 0, int(spec.workgroup_id_y),
      int(spec.workgroup_id_z), spec.next_free_vgpr(), spec.sgprs, spec.accum_offset(), spec.metadata_sgpr_count(),
      spec.agprs, spec.workgroup_size, metadata_args(spec));
}

}  // namespace cdna4::codegen
