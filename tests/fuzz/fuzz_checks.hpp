#pragma once
// What every code-object fuzz target checks: the bytes load or throw
// cdna4::Error; a loaded code object prints its metadata, and each kernel's
// kernarg segment, built from matching arguments, stays inside the limit.
#include <cdna4/runtime.hpp>

#include <cstdlib>

#include "runtime/kernarg.hpp"

namespace cdna4::fuzz {

inline void lay_out(const KernelInfo& k) {
  rt::DispatchGeometry g;
  try {
    g = rt::dispatch_geometry(k, {3, 2}, {64}, GridUnit::Workgroups);
  } catch (const Error&) {
    return;
  }
  std::vector<Arg> args;
  for (const KernelArg* a : explicit_args(k))
    args.push_back(a->value_kind == "global_buffer" ? Arg::pointer(0x1000) : Arg::bytes(std::vector<uint8_t>(a->size)));
  for (bool block : {false, true}) {
    try {
      const auto bytes = block ? rt::build_kernarg_block(k, KernargBlock(16), g, {})
                               : rt::build_kernarg(k, args, g, {});
      if (bytes.size() > kMaxKernargSegmentBytes) std::abort();
    } catch (const Error&) {
    }
  }
}

inline void load_and_lay_out(const std::vector<uint8_t>& bytes) {
  try {
    const CodeObject co = CodeObject::read(bytes);
    if (co.metadata_yaml().empty() || co.kernels().empty()) std::abort();
    for (const KernelInfo& k : co.kernels()) lay_out(k);
    (void)Kernel::from_hsaco(bytes, co.kernels().front().name).name();
  } catch (const Error&) {
  }
}

}  // namespace cdna4::fuzz
