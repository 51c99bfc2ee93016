// The public runtime API on the emulator device: buffers, argument matching,
// launches of hand-written kernels, and what a race does to a launch.
#include <catch2/catch.hpp>

#include <numeric>

#include "support/errors.hpp"
#include "cdna4/runtime.hpp"
#include "codegen/assembler.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

// A one-wave-per-workgroup kernel `name(out, n)`; `body` runs with s[4:5] = out,
// s6 = n, s2 = workgroup id x, v0 = lane.
std::string kernel_source(const std::string& name, const std::string& body) {
  return R"(
	.amdhsa_code_object_version 5
	.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
	.text
	.globl )" + name + R"(
	.p2align 8
	.type )" + name + R"(,@function
)" + name + R"(:
	s_load_dwordx2 s[4:5], s[0:1], 0x0
	s_load_dword s6, s[0:1], 0x8
)" + body + R"(
	s_endpgm
	.size )" + name + ", .-" + name + R"(
	.rodata
	.p2align 6
	.amdhsa_kernel )" + name + R"(
		.amdhsa_kernarg_size 16
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 16
		.amdhsa_accum_offset 8
	.end_amdhsa_kernel
	.amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--gfx950
amdhsa.kernels:
  - .name: )" + name + R"(
    .symbol: )" + name + R"(.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 64
    .sgpr_count: 16
    .vgpr_count: 8
    .agpr_count: 0
    .max_flat_workgroup_size: 64
    .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: n, .offset: 8, .size: 4, .value_kind: by_value }
...
	.end_amdgpu_metadata
)";
}

// out[64 * wg + lane] = 1000 * wg + n + lane
const char* kStoreIds = R"(
	s_lshl_b32 s7, s2, 6
	v_add_u32 v1, s7, v0
	v_lshlrev_b32 v2, 2, v1
	s_mul_i32 s8, s2, 1000
	s_waitcnt lgkmcnt(0)
	s_add_u32 s8, s8, s6
	v_add_u32 v3, s8, v0
	global_store_dword v2, v3, s[4:5]
)";

// out[lane] += n, but reads the loaded value without waiting for the load.
const char* kMissingWait = R"(
	v_lshlrev_b32 v2, 2, v0
	s_waitcnt lgkmcnt(0)
	global_load_dword v3, v2, s[4:5]
	v_add_u32 v4, s6, v3
	s_waitcnt vmcnt(0)
	global_store_dword v2, v4, s[4:5]
)";

Kernel build(const std::string& name, const std::string& body) {
  return Kernel::from_hsaco(codegen::build_hsaco(kernel_source(name, body)));
}

}  // namespace

TEST_CASE("device: emulator buffers round-trip and check their bounds", "[runtime]") {
  Device dev = Device::emulator();
  CHECK(dev.name() == "emulator");
  Buffer b = dev.alloc(16);
  CHECK(b.size() == 16);
  CHECK(b.address() != 0);
  CHECK(b.download<uint32_t>() == std::vector<uint32_t>(4, 0));  // fresh memory is zero
  b.upload(std::vector<uint32_t>{1, 2, 3, 4});
  uint32_t two[2];
  b.download(two, 8, 8);
  CHECK(two[0] == 3);
  CHECK(two[1] == 4);
  CHECK_THAT(error_of([&] { b.upload(two, 8, 12); }), Catch::Contains("exceeds the buffer's 16 bytes"));
  CHECK_THAT(error_of([&] { Buffer().download(two, 4); }), Catch::Contains("empty Buffer"));
  b.fill_zero();
  CHECK(b.download<uint32_t>() == std::vector<uint32_t>(4, 0));
}

TEST_CASE("device: a huge allocation is refused, never a wrapped tiny block", "[runtime]") {
  Device dev = Device::emulator();
  for (size_t bytes : {SIZE_MAX, SIZE_MAX - 4095, SIZE_MAX / 2, (size_t(1) << 40) + 1})
    CHECK_THAT(error_of([&] { dev.alloc(bytes); }), Catch::Contains("cannot allocate") && Catch::Contains("1 TiB"));
  Buffer ok = dev.alloc(1 << 20);
  CHECK(ok.size() == size_t(1) << 20);
}

TEST_CASE("device: names are 'emulator' and 'hsa'", "[runtime]") {
  CHECK(Device::open("emulator").name() == "emulator");
  CHECK_THAT(error_of([] { Device::open("cuda"); }), Catch::Contains("unknown device 'cuda'"));
  std::string hsa = error_of([] { Device::open("hsa"); });
  INFO(hsa);
  CHECK((hsa == "no error" || hsa.starts_with("no HSA runtime found") || hsa.starts_with("HSA runtime ") ||
         hsa.starts_with("no gfx950 agent")));
}

TEST_CASE("kernel: picks the only kernel, or the named one", "[runtime]") {
  auto hsaco = codegen::build_hsaco(kernel_source("store_ids", kStoreIds));
  CHECK(Kernel::from_hsaco(hsaco).name() == "store_ids");
  CHECK(Kernel::from_hsaco(hsaco, "store_ids").info().args.size() == 2);
  CHECK_THAT(error_of([&] { Kernel::from_hsaco(hsaco, "other"); }), Catch::Contains("other"));
  CHECK_THAT(error_of([] { Kernel::from_file("/nonexistent.hsaco"); }),
             Catch::Contains("cannot open code object /nonexistent.hsaco"));
}

TEST_CASE("device: a hand-written kernel runs on the emulator with its arguments", "[runtime]") {
  Device dev = Device::emulator();
  Kernel kernel = build("store_ids", kStoreIds);
  Buffer out = dev.alloc(3 * 64 * 4);
  LaunchStats stats = dev.launch(kernel, {3}, {64}, {out, 7});
  std::vector<uint32_t> got = out.download<uint32_t>();
  for (uint32_t wg = 0; wg < 3; ++wg)
    for (uint32_t lane = 0; lane < 64; ++lane) REQUIRE(got[wg * 64 + lane] == 1000 * wg + 7 + lane);
  CHECK(stats.races.empty());
  CHECK(stats.instructions > 0);
}

TEST_CASE("device: launch refuses bad arguments and geometry before running", "[runtime]") {
  Device dev = Device::emulator();
  Kernel kernel = build("store_ids", kStoreIds);
  Buffer out = dev.alloc(64 * 4);
  CHECK_THAT(error_of([&] { dev.launch(kernel, {1}, {64}, {out}); }), Catch::Contains("takes 2 arguments, 1 given"));
  CHECK_THAT(error_of([&] { dev.launch(kernel, {1}, {64}, {out, size_t(7)}); }),
             Catch::Contains("#1 (n, by_value, 4 bytes at offset 8) wants 4 bytes, got 8"));
  CHECK_THAT(error_of([&] { dev.launch(kernel, {1}, {128}, {out, 7}); }), Catch::Contains("at most 64"));
  LaunchOptions big_lds;
  big_lds.dynamic_lds = 200000;
  CHECK_THAT(error_of([&] { dev.launch(kernel, {1}, {64}, {out, 7}, big_lds); }),
             Catch::Contains("exceed gfx950's 163840"));
  LaunchOptions partial;
  partial.grid_unit = GridUnit::WorkItems;
  CHECK_THAT(error_of([&] { dev.launch(kernel, {100}, {64}, {out, 7}, partial); }),
             Catch::Contains("whole workgroups only"));
}

TEST_CASE("device: a race throws RaceError by default and is returned on request", "[runtime]") {
  Device dev = Device::emulator();
  Kernel kernel = build("missing_wait", kMissingWait);
  Buffer out = dev.alloc(64 * 4);
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    LaunchOptions options;
    options.seed = seed;
    try {
      dev.launch(kernel, {1}, {64}, {out, 1}, options);
      FAIL("seed " << seed << ": no race reported");
    } catch (const RaceError& e) {
      CHECK_FALSE(e.races().empty());
      CHECK_THAT(std::string(e.what()), Catch::Contains("race at pc 0x"));
    }
    options.on_race = OnRace::Report;
    LaunchStats stats = dev.launch(kernel, {1}, {64}, {out, 1}, options);
    CHECK_FALSE(stats.races.empty());
  }
}
