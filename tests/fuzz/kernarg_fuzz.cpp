// libFuzzer target: rt::build_kernarg and rt::build_kernarg_block with fuzzed
// metadata (sizes, argument kinds, offsets) and launch arguments. Each either
// throws cdna4::Error or returns a segment within the limit that holds every
// metadata argument.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>

#include "fuzz_checks.hpp"

namespace {

const char* const kKinds[] = {"global_buffer", "by_value", "hidden_block_count_x", "hidden_group_size_y",
                              "hidden_remainder_z", "hidden_grid_dims", "hidden_dynamic_lds_size",
                              "hidden_queue_ptr", "hidden_printf_buffer", "hidden_none", "image"};

uint32_t small_or_any(FuzzedDataProvider& in, uint32_t small) {
  return in.ConsumeBool() ? in.ConsumeIntegralInRange<uint32_t>(0, small) : in.ConsumeIntegral<uint32_t>();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cdna4;
  FuzzedDataProvider in(data, size);
  KernelInfo k;
  k.name = "k";
  k.kernarg_size = small_or_any(in, 512);
  k.md_kernarg_size = small_or_any(in, 512);
  k.max_flat_workgroup_size = in.ConsumeIntegralInRange<uint32_t>(0, 2048);
  const int metadata_args = in.ConsumeIntegralInRange(0, 12);
  for (int i = 0; i < metadata_args; ++i) {
    KernelArg a;
    a.value_kind = kKinds[in.ConsumeIntegralInRange<size_t>(0, std::size(kKinds) - 1)];
    a.offset = small_or_any(in, 512);
    a.size = small_or_any(in, 16);
    k.args.push_back(a);
  }
  std::vector<Arg> args;
  const int given = in.ConsumeIntegralInRange(0, 12);
  for (int i = 0; i < given; ++i)
    args.push_back(in.ConsumeBool() ? Arg::pointer(in.ConsumeIntegral<uint64_t>())
                                    : Arg::bytes(in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange(0, 16))));
  KernargBlock block(in.ConsumeIntegralInRange<size_t>(0, 5000));
  const Dim3 grid(in.ConsumeIntegralInRange<uint32_t>(0, 70000), in.ConsumeIntegralInRange<uint32_t>(0, 3));
  const Dim3 workgroup(in.ConsumeIntegralInRange<uint32_t>(0, 1100), in.ConsumeIntegralInRange<uint32_t>(0, 3));
  const GridUnit unit = in.ConsumeBool() ? GridUnit::WorkItems : GridUnit::Workgroups;

  rt::DispatchGeometry g;
  try {
    g = rt::dispatch_geometry(k, grid, workgroup, unit);
  } catch (const Error&) {
    return 0;
  }
  auto check = [&](const std::vector<uint8_t>& bytes) {
    if (bytes.size() > kMaxKernargSegmentBytes || bytes.size() < k.kernarg_bytes()) std::abort();
    for (const KernelArg& a : k.args)
      if (uint64_t(a.offset) + a.size > bytes.size()) std::abort();
  };
  try {
    check(rt::build_kernarg(k, args, g, {.dynamic_lds = 7, .queue_ptr = 9}));
  } catch (const Error&) {
  }
  try {
    check(rt::build_kernarg_block(k, block, g, {}));
  } catch (const Error&) {
  }
  return 0;
}
