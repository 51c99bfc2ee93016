#pragma once
// Builds hand-written gfx950 kernels in process and runs them on the emulator.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cdna4/code_object.hpp"
#include "codegen/assembler.hpp"
#include "runtime/emulator/emulator.hpp"

namespace cdna4::emutest {

struct KernelShape {
  int vgprs = 64;          // next_free_vgpr (VGPRs + AGPRs)
  int accum_offset = 64;   // first AGPR in the unified file
  int sgprs = 48;
  uint32_t lds = 0;
  uint32_t kernarg_size = 64;
  bool workgroup_id_y = false;
  bool workgroup_id_z = false;
  int workitem_id_dims = 0;  // 0: X, 1: XY, 2: XYZ
  int max_workgroup_size = 1024;
  std::string descriptor;  // extra kernel descriptor directives, e.g. "  .amdhsa_ieee_mode 0\n"
  uint32_t private_bytes = 0;          // private segment per work-item (enables the private segment)
  bool private_segment_size_sgpr = false;  // user SGPR after the kernarg pointer: s2 (workgroup ids move up)
  std::string args;  // metadata ".args:" entries, e.g. "      - { .name: out, .offset: 0, ... }\n"
};

// Wraps `body` into a kernel "k": s[0:1] kernarg pointer, s2 (and s3, s4)
// workgroup ids, v0 work-item ids.
inline std::string kernel_source(const std::string& body, const KernelShape& s = {}) {
  return fmt::format(R"(.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
.amdhsa_code_object_version 5
.text
.globl k
.p2align 8
.type k,@function
k:
{}
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_private_segment_size {}
  .amdhsa_enable_private_segment {}
  .amdhsa_private_segment_fixed_size {}
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_system_sgpr_workgroup_id_y {}
  .amdhsa_system_sgpr_workgroup_id_z {}
  .amdhsa_system_vgpr_workitem_id {}
  .amdhsa_next_free_vgpr {}
  .amdhsa_next_free_sgpr {}
  .amdhsa_accum_offset {}
  .amdhsa_group_segment_fixed_size {}
  .amdhsa_kernarg_size {}
{}.end_amdhsa_kernel
.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: {}
    .kernarg_segment_align: 8
    .group_segment_fixed_size: {}
    .private_segment_fixed_size: {}
    .wavefront_size: 64
    .sgpr_count: {}
    .vgpr_count: {}
    .agpr_count: {}
    .max_flat_workgroup_size: {}
{}...
.end_amdgpu_metadata
)",
                     body, int(s.private_segment_size_sgpr), int(s.private_bytes > 0), s.private_bytes,
                     int(s.workgroup_id_y), int(s.workgroup_id_z), s.workitem_id_dims, s.vgprs, s.sgprs,
                     s.accum_offset, s.lds, s.kernarg_size, s.descriptor, s.kernarg_size, s.lds, s.private_bytes,
                     s.sgprs, s.vgprs,
                     s.vgprs - s.accum_offset, s.max_workgroup_size,
                     s.args.empty() ? "" : "    .args:\n" + s.args);
}

// Assembly snippets for hand-written kernels.
// v[d:d+1] = s[b:b+1] + v[o] (a 64-bit global address per lane).
inline std::string lane_address(int d, int b, int o) {
  return fmt::format("  v_mov_b32 v{1}, s{3}\n  v_add_co_u32 v{0}, vcc, s{2}, v{4}\n  s_nop 1\n  v_addc_co_u32 v{1}, vcc, 0, v{1}, vcc\n",
                     d, d + 1, b, b + 1, o);
}
// s[d:d+3] = a buffer resource over `records` bytes (stride 0) or records of `stride` bytes at s[b:b+1].
inline std::string buffer_resource(int d, int b, uint32_t records, uint32_t stride = 0) {
  return fmt::format("  s_mov_b32 s{0}, s{4}\n  s_and_b32 s{1}, s{5}, 0xffff\n  s_or_b32 s{1}, s{1}, 0x{6:x}\n"
                     "  s_mov_b32 s{2}, 0x{7:x}\n  s_mov_b32 s{3}, 0\n",
                     d, d + 1, d + 2, d + 3, b, b + 1, stride << 16, records);
}
// Stores v[v] of every lane at s[b:b+1] + v[a], then moves s[b:b+1] on by 256 bytes
// (one dword per lane of a wave: the next result's slot).
inline std::string store_and_advance(int v, int a, int b) {
  return fmt::format("  global_store_dword v{0}, v{1}, s[{2}:{3}]\n  s_add_u32 s{2}, s{2}, 0x100\n  s_addc_u32 s{3}, s{3}, 0\n",
                     a, v, b, b + 1);
}

struct TestKernel {
  std::vector<uint8_t> hsaco;
  CodeObject code;
  KernelInfo info;

  static TestKernel build(const std::string& body, const KernelShape& shape = {}) {
    auto hsaco = codegen::build_hsaco(kernel_source(body, shape), "emulator_test.s");
    auto code = CodeObject::read(hsaco);
    KernelInfo info = code.kernel("k");
    return TestKernel{std::move(hsaco), std::move(code), std::move(info)};
  }
};

// `count` independent 16x16x32 bf16 MFMAs on one accumulator, then s_endpgm:
// a kernel the model times without memory (kernel "k", 128 VGPRs).
inline std::vector<uint8_t> mfma_only_hsaco(int count = 4) {
  KernelShape shape;
  shape.vgprs = 128;
  std::string body;
  for (int i = 0; i < count; ++i) body += "  v_mfma_f32_16x16x32_bf16 a[0:3], v[0:3], v[4:7], a[0:3]\n";
  body += "  s_endpgm\n";
  return codegen::build_hsaco(kernel_source(body, shape), "k.s");
}

// A kernel that never ends: s_branch to itself (kernel "k").
inline std::vector<uint8_t> endless_hsaco() {
  return codegen::build_hsaco(kernel_source("  s_nop 0\nloop:\n  s_branch loop\n"), "k.s");
}

// Host buffers whose addresses go into the kernarg segment in order.
class Args {
 public:
  template <class T> T* add(std::vector<T>& buffer) {
    pointers_.push_back(reinterpret_cast<uint64_t>(buffer.data()));
    regions_.push_back({reinterpret_cast<uint64_t>(buffer.data()), buffer.size() * sizeof(T)});
    return buffer.data();
  }
  void add_u32(uint32_t v) { scalars_.push_back(v); }

  emu::Dispatch dispatch(uint32_t grid_x = 1, uint32_t block_x = 64) const {
    emu::Dispatch d;
    d.grid[0] = grid_x;
    d.block[0] = block_x;
    d.kernarg.resize(8 * pointers_.size() + 4 * scalars_.size());
    if (!pointers_.empty()) std::memcpy(d.kernarg.data(), pointers_.data(), 8 * pointers_.size());
    if (!scalars_.empty()) std::memcpy(d.kernarg.data() + 8 * pointers_.size(), scalars_.data(), 4 * scalars_.size());
    d.regions = regions_;
    return d;
  }

 private:
  std::vector<uint64_t> pointers_;
  std::vector<uint32_t> scalars_;
  std::vector<emu::MemoryRegion> regions_;
};

inline emu::RunStats run(const TestKernel& k, const emu::Dispatch& d, emu::EmulatorOptions o = {}) {
  if (o.threads == 0) o.threads = 2;
  return emu::run(k.code, k.info, d, o);
}

inline emu::EmulatorOptions instant() {
  emu::EmulatorOptions o;
  o.instant_completion = true;
  return o;
}

inline emu::EmulatorOptions randomized(uint64_t seed) {
  emu::EmulatorOptions o;
  o.seed = seed;
  return o;
}

inline std::string race_text(const emu::RunStats& s) {
  std::string out;
  for (auto& r : s.races) out += r.what + "\n";
  return out;
}

// Runs `k` and checks it reported no race (the reports are the failure message).
inline emu::RunStats run_race_free(const TestKernel& k, const emu::Dispatch& d, emu::EmulatorOptions o = {}) {
  const emu::RunStats stats = run(k, d, o);
  INFO(race_text(stats));
  CHECK(stats.races.empty());
  return stats;
}

inline float f32(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

}  // namespace cdna4::emutest
