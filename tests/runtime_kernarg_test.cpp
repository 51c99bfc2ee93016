// Kernarg layout and dispatch geometry shared by the HSA and emulator backends.
#include <catch2/catch.hpp>

#include <cstring>

#include "support/errors.hpp"
#include "cdna4/runtime.hpp"
#include "foreign/hip_build.hpp"
#include "runtime/kernarg.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

KernelArg arg(std::string name, std::string kind, uint32_t offset, uint32_t size) {
  KernelArg a;
  a.name = std::move(name);
  a.value_kind = std::move(kind);
  a.offset = offset;
  a.size = size;
  return a;
}

// What clang-22 emits for `vector_add(const float*, const float*, float*, int)`.
KernelInfo hip_vector_add() {
  KernelInfo k;
  k.name = "vector_add";
  k.md_kernarg_size = 288;
  k.max_flat_workgroup_size = 1024;
  k.args = {arg("", "global_buffer", 0, 8),       arg("", "global_buffer", 8, 8),
            arg("", "global_buffer", 16, 8),      arg("", "by_value", 24, 4),
            arg("", "hidden_block_count_x", 32, 4), arg("", "hidden_block_count_y", 36, 4),
            arg("", "hidden_block_count_z", 40, 4), arg("", "hidden_group_size_x", 44, 2),
            arg("", "hidden_group_size_y", 46, 2),  arg("", "hidden_group_size_z", 48, 2),
            arg("", "hidden_remainder_x", 50, 2),   arg("", "hidden_remainder_y", 52, 2),
            arg("", "hidden_remainder_z", 54, 2),   arg("", "hidden_global_offset_x", 72, 8),
            arg("", "hidden_global_offset_y", 80, 8), arg("", "hidden_global_offset_z", 88, 8),
            arg("", "hidden_grid_dims", 96, 2),     arg("", "hidden_dynamic_lds_size", 100, 4),
            arg("", "hidden_queue_ptr", 104, 8),    arg("", "hidden_printf_buffer", 112, 8)};
  return k;
}

template <class T>
T at(const std::vector<uint8_t>& bytes, size_t offset) {
  REQUIRE(offset + sizeof(T) <= bytes.size());
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

}  // namespace

TEST_CASE("geometry: grid in workgroups gives AQL grid size = workgroups * block", "[runtime]") {
  KernelInfo k = hip_vector_add();
  auto g = rt::dispatch_geometry(k, {4, 3, 1}, {64, 2, 1}, GridUnit::Workgroups);
  CHECK(g.grid_size[0] == 256);
  CHECK(g.grid_size[1] == 6);
  CHECK(g.grid_size[2] == 1);
  CHECK(g.workgroups[0] == 4);
  CHECK(g.workgroups[1] == 3);
  CHECK(g.full_workgroups[0] == 4);
  CHECK(g.remainder[0] == 0);
  CHECK(g.dims == 2);
  CHECK(g.total_workgroups() == 12);
  CHECK_FALSE(g.has_partial_workgroups());
}

TEST_CASE("geometry: grid in work-items may end in a partial workgroup", "[runtime]") {
  KernelInfo k = hip_vector_add();
  auto g = rt::dispatch_geometry(k, {1000, 1, 5}, {256, 1, 2}, GridUnit::WorkItems);
  CHECK(g.grid_size[0] == 1000);
  CHECK(g.workgroups[0] == 4);
  CHECK(g.full_workgroups[0] == 3);  // HIP's hidden_block_count counts full workgroups
  CHECK(g.remainder[0] == 1000 - 3 * 256);
  CHECK(g.workgroups[2] == 3);
  CHECK(g.remainder[2] == 1);
  CHECK(g.dims == 3);
  CHECK(g.has_partial_workgroups());
}

TEST_CASE("geometry: invalid launches are refused with the reason", "[runtime]") {
  KernelInfo k = hip_vector_add();
  k.max_flat_workgroup_size = 256;
  CHECK_THAT(error_of([&] { rt::dispatch_geometry(k, {1}, {512}, GridUnit::Workgroups); }),
             Catch::Contains("512 work-items; the kernel allows at most 256"));
  CHECK_THAT(error_of([&] { rt::dispatch_geometry(k, {0}, {64}, GridUnit::Workgroups); }),
             Catch::Contains("must be non-zero"));
  CHECK_THAT(error_of([&] { rt::dispatch_geometry(k, {1u << 25}, {256}, GridUnit::Workgroups); }),
             Catch::Contains("grid dimension x"));
  k.max_flat_workgroup_size = 0;  // absent from metadata: the hardware limit
  CHECK_THAT(error_of([&] { rt::dispatch_geometry(k, {1}, {64, 32}, GridUnit::Workgroups); }),
             Catch::Contains("at most 1024"));
}

TEST_CASE("kernarg: explicit args by metadata offset, hidden args of code object v5", "[runtime]") {
  KernelInfo k = hip_vector_add();
  auto g = rt::dispatch_geometry(k, {1000, 1, 1}, {256, 1, 1}, GridUnit::WorkItems);
  auto bytes = rt::build_kernarg(k, {Arg::pointer(0x1000), Arg::pointer(0x2000), Arg::pointer(0x3000), 1000},
                                 g, {.dynamic_lds = 4096, .queue_ptr = 0xabcd});
  REQUIRE(bytes.size() == 288);
  CHECK(at<uint64_t>(bytes, 0) == 0x1000);
  CHECK(at<uint64_t>(bytes, 8) == 0x2000);
  CHECK(at<uint64_t>(bytes, 16) == 0x3000);
  CHECK(at<int32_t>(bytes, 24) == 1000);
  CHECK(at<uint32_t>(bytes, 32) == 3);
  CHECK(at<uint32_t>(bytes, 36) == 1);
  CHECK(at<uint32_t>(bytes, 40) == 1);
  CHECK(at<uint16_t>(bytes, 44) == 256);
  CHECK(at<uint16_t>(bytes, 46) == 1);
  CHECK(at<uint16_t>(bytes, 48) == 1);
  CHECK(at<uint16_t>(bytes, 50) == 1000 - 768);
  CHECK(at<uint16_t>(bytes, 52) == 0);
  CHECK(at<uint64_t>(bytes, 72) == 0);
  CHECK(at<uint16_t>(bytes, 96) == 1);
  CHECK(at<uint32_t>(bytes, 100) == 4096);
  CHECK(at<uint64_t>(bytes, 104) == 0xabcd);
  CHECK(at<uint64_t>(bytes, 112) == 0);  // printf buffer: not provided
}

TEST_CASE("kernarg: mismatched arguments name the argument", "[runtime]") {
  KernelInfo k = hip_vector_add();
  auto g = rt::dispatch_geometry(k, {1}, {64}, GridUnit::Workgroups);
  auto p = Arg::pointer(0x1000);
  CHECK_THAT(error_of([&] { rt::build_kernarg(k, {p, p, p}, g, {}); }),
             Catch::Contains("takes 4 arguments, 3 given"));
  CHECK_THAT(error_of([&] { rt::build_kernarg(k, {p, p, p, int64_t(7)}, g, {}); }),
             Catch::Contains("#3 (by_value, 4 bytes at offset 24) wants 4 bytes, got 8"));
  CHECK_THAT(error_of([&] { rt::build_kernarg(k, {p, 1, p, 7}, g, {}); }),
             Catch::Contains("#1 (global_buffer, 8 bytes at offset 8) wants a buffer"));
  CHECK_THAT(error_of([&] { rt::build_kernarg(k, {p, p, p, p}, g, {}); }),
             Catch::Contains("wants a value, got a buffer"));
  k.args[1].value_kind = "image";
  CHECK_THAT(error_of([&] { rt::build_kernarg(k, {p, p, p, 7}, g, {}); }),
             Catch::Contains("has kind image, which this launcher does not support"));
}

TEST_CASE("kernarg: named args appear in messages; size comes from metadata or descriptor", "[runtime]") {
  KernelInfo k;
  k.name = "gemm";
  k.kernarg_size = 64;  // descriptor larger than the metadata's
  k.md_kernarg_size = 20;
  k.args = {arg("c", "global_buffer", 0, 8), arg("m", "by_value", 8, 4), arg("scale", "by_value", 16, 4)};
  auto g = rt::dispatch_geometry(k, {1}, {256}, GridUnit::Workgroups);
  auto bytes = rt::build_kernarg(k, {Arg::pointer(0x40), 3, 0.5f}, g, {});
  CHECK(bytes.size() == 64);
  CHECK(at<float>(bytes, 16) == 0.5f);
  CHECK_THAT(error_of([&] { rt::build_kernarg(k, {Arg::pointer(0x40), 3, 0.5}, g, {}); }),
             Catch::Contains("#2 (scale, by_value"));
}

TEST_CASE("kernarg: without argument metadata, args are packed at natural alignment", "[runtime]") {
  KernelInfo k;
  k.name = "hand_written";
  k.kernarg_size = 8;
  auto g = rt::dispatch_geometry(k, {1}, {64}, GridUnit::Workgroups);
  auto bytes = rt::build_kernarg(k, {int32_t(5), Arg::pointer(0x1234), uint16_t(9)}, g, {});
  REQUIRE(bytes.size() == 18);
  CHECK(at<int32_t>(bytes, 0) == 5);
  CHECK(at<uint64_t>(bytes, 8) == 0x1234);
  CHECK(at<uint16_t>(bytes, 16) == 9);
}

TEST_CASE("kernarg: hidden args of a clang-22 HIP kernel land where its code reads them", "[runtime]") {
  // The real metadata of a foreign code object, read by our code-object reader.
  Kernel kernel = Kernel::from_hsaco(test::compile_foreign_hip("vector_add"));
  const KernelInfo& info = kernel.info();
  CHECK(info.name == "vector_add");
  REQUIRE(explicit_args(info).size() == 4);
  auto g = rt::dispatch_geometry(info, {4}, {128}, GridUnit::Workgroups);
  auto bytes = rt::build_kernarg(info, {Arg::pointer(1), Arg::pointer(2), Arg::pointer(3), 512}, g, {});
  CHECK(bytes.size() >= info.md_kernarg_size);
  bool saw_group_size = false;
  for (const KernelArg& a : info.args) {
    if (a.value_kind == "hidden_group_size_x") {
      saw_group_size = true;
      CHECK(at<uint16_t>(bytes, a.offset) == 128);
    }
    if (a.value_kind == "hidden_block_count_x") CHECK(at<uint32_t>(bytes, a.offset) == 4);
  }
  CHECK(saw_group_size);
}
