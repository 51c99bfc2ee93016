#include "runtime/kernarg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include "common/limits.hpp"

namespace cdna4::rt {
namespace {

constexpr uint32_t kMaxFlatWorkgroupSize = gfx950::kMaxWorkgroupSize;

bool is_hidden(const KernelArg& arg) { return std::string_view(arg.value_kind).starts_with("hidden_"); }

void put(std::vector<uint8_t>& kernarg, const KernelArg& arg, uint64_t value) {
  // Little-endian, truncated to the argument's size (hidden args are 2, 4 or 8 bytes).
  size_t n = std::min<size_t>(arg.size, sizeof(value));
  const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
  std::copy(bytes, bytes + n, kernarg.begin() + arg.offset);
}

uint64_t hidden_value(const KernelArg& arg, const DispatchGeometry& g, const HiddenValues& h) {
  std::string_view kind(arg.value_kind);
  auto axis = [&](std::string_view prefix) -> int {
    if (!kind.starts_with(prefix) || kind.size() != prefix.size() + 1) return -1;
    char c = kind.back();
    return c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : -1;
  };
  if (int a = axis("hidden_block_count_"); a >= 0) return g.full_workgroups[a];
  if (int a = axis("hidden_group_size_"); a >= 0) return g.block[a];
  if (int a = axis("hidden_remainder_"); a >= 0) return g.remainder[a];
  if (axis("hidden_global_offset_") >= 0) return 0;
  if (kind == "hidden_grid_dims") return g.dims;
  if (kind == "hidden_dynamic_lds_size") return h.dynamic_lds;
  if (kind == "hidden_queue_ptr") return h.queue_ptr;
  // hidden_none, hidden_printf_buffer, hidden_hostcall_buffer, hidden_heap_v1,
  // hidden_default_queue, hidden_completion_action, hidden_multigrid_sync_arg:
  // services this launcher does not provide; 0 means "absent" to the device
  // library. hidden_private_base / hidden_shared_base are only read on targets
  // without aperture registers, which gfx950 has.
  return 0;
}

uint32_t natural_alignment(size_t size) {
  uint32_t align = 1;
  while (align < size && align < 8) align *= 2;
  return align;
}

}  // namespace

DispatchGeometry dispatch_geometry(const KernelInfo& kernel, Dim3 grid, Dim3 block, GridUnit unit) {
  DispatchGeometry g;
  uint32_t max_flat = kernel.max_flat_workgroup_size ? kernel.max_flat_workgroup_size
                                                     : kMaxFlatWorkgroupSize;
  uint64_t flat = uint64_t(block.x) * block.y * block.z;
  if (flat == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0)
    throw Error(fmt::format("kernel {}: grid ({},{},{}) and block ({},{},{}) must be non-zero",
                            kernel.name, grid.x, grid.y, grid.z, block.x, block.y, block.z));
  if (flat > max_flat)
    throw Error(fmt::format("kernel {}: block ({},{},{}) has {} work-items; the kernel allows at most {}",
                            kernel.name, block.x, block.y, block.z, flat, max_flat));
  for (int a = 0; a < 3; ++a) {
    uint64_t items = unit == GridUnit::Workgroups ? uint64_t(grid[a]) * block[a] : grid[a];
    if (items > UINT32_MAX)
      throw Error(fmt::format("kernel {}: grid dimension {} has {} work-items; at most {} fit a dispatch",
                              kernel.name, "xyz"[a], items, UINT32_MAX));
    g.block[a] = block[a];
    g.grid_size[a] = uint32_t(items);
    g.full_workgroups[a] = uint32_t(items / block[a]);
    g.remainder[a] = uint32_t(items % block[a]);
    g.workgroups[a] = g.full_workgroups[a] + (g.remainder[a] ? 1 : 0);
    if (items > 1) g.dims = uint32_t(a + 1);
  }
  return g;
}

void check_kernarg_layout(const KernelInfo& kernel) {
  for (auto [what, size] : {std::pair{"descriptor kernarg_size", kernel.kernarg_size},
                            std::pair{"metadata .kernarg_segment_size", kernel.md_kernarg_size}})
    if (size > kMaxKernargSegmentBytes)
      throw Error(fmt::format("kernel {}: {} is {} bytes; a kernarg segment holds at most {}", kernel.name, what,
                              size, kMaxKernargSegmentBytes));
  const uint64_t segment = kernel.kernarg_bytes();
  std::vector<size_t> by_offset;
  for (size_t i = 0; i < kernel.args.size(); ++i) {
    const KernelArg& arg = kernel.args[i];
    if (uint64_t(arg.offset) + arg.size > segment)
      throw Error(fmt::format("kernel {}: metadata argument {} ends at byte {}, past the {}-byte kernarg segment",
                              kernel.name, describe_arg(arg, i), uint64_t(arg.offset) + arg.size, segment));
    if (arg.size) by_offset.push_back(i);
  }
  std::sort(by_offset.begin(), by_offset.end(), [&](size_t a, size_t b) {
    return std::pair(kernel.args[a].offset, a) < std::pair(kernel.args[b].offset, b);
  });
  for (size_t j = 1; j < by_offset.size(); ++j) {
    const KernelArg& before = kernel.args[by_offset[j - 1]];
    const KernelArg& after = kernel.args[by_offset[j]];
    if (after.offset < before.offset + before.size)
      throw Error(fmt::format("kernel {}: metadata argument {} overlaps argument {}", kernel.name,
                              describe_arg(after, by_offset[j]), describe_arg(before, by_offset[j - 1])));
  }
}


std::vector<uint8_t> build_kernarg(const KernelInfo& kernel, const std::vector<Arg>& args,
                                   const DispatchGeometry& geometry, const HiddenValues& hidden) {
  // A code object without argument metadata (hand-written assembly) gets its
  // explicit args packed in order at their natural alignment.
  std::vector<KernelArg> packed;
  const bool from_metadata = !kernel.args.empty();
  if (!from_metadata) {
    uint32_t offset = 0;
    for (const Arg& arg : args) {
      KernelArg k;
      k.value_kind = arg.kind() == Arg::Kind::Pointer ? "global_buffer" : "by_value";
      const size_t size = arg.kind() == Arg::Kind::Pointer ? 8 : arg.value().size();
      if (size > kMaxKernargSegmentBytes || offset > kMaxKernargSegmentBytes)
        throw Error(fmt::format("kernel {}: the arguments exceed the {}-byte limit of a kernarg segment",
                                kernel.name, kMaxKernargSegmentBytes));
      k.size = uint32_t(size);
      uint32_t align = natural_alignment(k.size);
      k.offset = (offset + align - 1) / align * align;
      offset = k.offset + k.size;
      packed.push_back(k);
    }
  }
  std::vector<const KernelArg*> wanted;
  if (from_metadata) {
    wanted = explicit_args(kernel);
  } else {
    for (const KernelArg& k : packed) wanted.push_back(&k);
  }
  if (wanted.size() != args.size())
    throw Error(fmt::format("kernel {} takes {} argument{}, {} given", kernel.name, wanted.size(),
                            wanted.size() == 1 ? "" : "s", args.size()));

  check_kernarg_layout(kernel);
  size_t bytes = kernel.kernarg_bytes();
  for (const KernelArg* arg : wanted) bytes = std::max<size_t>(bytes, size_t(arg->offset) + arg->size);
  if (bytes > kMaxKernargSegmentBytes)
    throw Error(fmt::format("kernel {}: the arguments take {} bytes; a kernarg segment holds at most {}",
                            kernel.name, bytes, kMaxKernargSegmentBytes));
  std::vector<uint8_t> kernarg(bytes, 0);

  for (size_t i = 0; i < args.size(); ++i) {
    const KernelArg& want = *wanted[i];
    const Arg& got = args[i];
    if (want.value_kind == "global_buffer") {
      if (got.kind() != Arg::Kind::Pointer || want.size != 8)
        throw Error(fmt::format("kernel {}: argument {} wants a buffer, got a {}-byte value",
                                kernel.name, describe_arg(want, i), got.value().size()));
      put(kernarg, want, got.address());
    } else if (want.value_kind == "by_value") {
      if (got.kind() != Arg::Kind::Value)
        throw Error(fmt::format("kernel {}: argument {} wants a value, got a buffer", kernel.name,
                                describe_arg(want, i)));
      if (got.value().size() != want.size)
        throw Error(fmt::format("kernel {}: argument {} wants {} bytes, got {}", kernel.name,
                                describe_arg(want, i), want.size, got.value().size()));
      std::copy(got.value().begin(), got.value().end(), kernarg.begin() + want.offset);
    } else {
      throw Error(fmt::format("kernel {}: argument {} has kind {}, which this launcher does not support",
                              kernel.name, describe_arg(want, i), want.value_kind));
    }
  }
  for (const KernelArg& arg : kernel.args)
    if (is_hidden(arg)) put(kernarg, arg, hidden_value(arg, geometry, hidden));
  return kernarg;
}

std::vector<uint8_t> build_kernarg_block(const KernelInfo& kernel, const KernargBlock& block,
                                         const DispatchGeometry& geometry, const HiddenValues& hidden) {
  check_kernarg_layout(kernel);
  if (block.size() > kMaxKernargSegmentBytes)
    throw Error(fmt::format("kernel {}: a kernarg block of {} bytes exceeds the {}-byte limit of a kernarg segment",
                            kernel.name, block.size(), kMaxKernargSegmentBytes));
  size_t bytes = std::max<size_t>(kernel.kernarg_bytes(), block.size());
  for (const KernelArg& arg : kernel.args) {
    if (is_hidden(arg) && arg.offset < block.size())
      throw Error(fmt::format("kernel {}: hidden argument {} at offset {} overlaps the {}-byte kernarg block; "
                              "the explicit arguments end at offset {}",
                              kernel.name, arg.value_kind, arg.offset, block.size(), arg.offset));
    bytes = std::max<size_t>(bytes, arg.offset + arg.size);
  }
  std::vector<uint8_t> kernarg(bytes, 0);
  std::copy(block.bytes().begin(), block.bytes().end(), kernarg.begin());
  for (const KernelArg& arg : kernel.args)
    if (is_hidden(arg)) put(kernarg, arg, hidden_value(arg, geometry, hidden));
  return kernarg;
}

}  // namespace cdna4::rt

namespace cdna4 {

std::vector<const KernelArg*> explicit_args(const KernelInfo& kernel) {
  std::vector<const KernelArg*> out;
  for (const KernelArg& arg : kernel.args)
    if (!rt::is_hidden(arg)) out.push_back(&arg);
  return out;
}

std::string describe_arg(const KernelArg& arg, size_t position) {
  return fmt::format("#{} ({}{}, {} bytes at offset {})", position,
                     arg.name.empty() ? "" : arg.name + ", ", arg.value_kind, arg.size, arg.offset);
}

}  // namespace cdna4
