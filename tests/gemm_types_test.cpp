// Operand types: every pair the MFMAs take that the lowering handles is
// bit-exact on the emulator; every pair they cannot take, fp6 / bf6 operands
// and K off the 16-byte granule are refused with a message naming the cause.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <functional>

#include "codegen/schedule/geometry.hpp"
#include "cdna4/gemm.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using cdna4::test::error_of;
using nlohmann::ordered_json;

namespace {

// The fp8 baseline with other types and the planner's ops.
ordered_json fp8_baseline(const char* a, const char* b) {
  auto j = ordered_json::parse(schedule_test::read_text(schedule_test::schedules_dir() + "baseline_fp8_256x256x128_w8.json"));
  j["name"] = fmt::format("types_{}_{}", a, b);
  j["types"]["a"] = a;
  j["types"]["b"] = b;
  j.erase("ops");
  j["num_stages"] = 2;
  return j;
}

}  // namespace

TEST_CASE("f8f6f4 operand pairs, of equal and of different widths, are bit-exact on the emulator", "[gemm][types]") {
  const std::pair<const char*, const char*> pairs[] = {{"fp8", "bf8"}, {"bf8", "fp8"}, {"bf8", "bf8"}, {"fp4", "fp4"},
                                                       {"fp4", "fp8"}, {"bf8", "fp4"}, {"fp6", "fp6"},
                                                       {"bf6", "bf6"}, {"bf6", "fp8"}, {"fp4", "fp6"}};
  for (auto [ta, tb] : pairs) {
    const Schedule s = parse_schedule(fp8_baseline(ta, tb).dump());
    for (bool integers : {true, false}) {
      const int64_t m = 257, n = 130, k = integers ? 512 : 160;  // ragged M, N; K several tiles or a partial one
      INFO(fmt::format("{} x {}, {} data", ta, tb, integers ? "integer" : "random"));
      const auto a = test::typed_matrix(s.type_a, size_t(m * k), integers, 7);
      const auto b = test::typed_matrix(s.type_b, size_t(k * n), integers, 8);
      Device device = Device::emulator();
      const GemmRun run = run_gemm(device, s, test::problem(m, n, k, a, b, OutType::f32));
      const auto expected = to_output_bits(reference_gemm(s.type_a, a, s.type_b, b, m, n, k), DataType::f32);
      CHECK(run.launch.races.empty());
      CHECK(differing_elements(run.c, expected, 4) == 0);
    }
  }
}

TEST_CASE("types an MFMA cannot take are refused, naming the JSON path and the MFMAs that can", "[schedule][types]") {
  auto parse_error = [](const ordered_json& j) { return error_of([&] { parse_schedule(j.dump(), "s.json"); }); };
  auto bf16 = ordered_json::parse(schedule_test::read_text(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json"));
  bf16["types"]["b"] = "fp8";
  CHECK(parse_error(bf16) ==
        "s.json: types.b: v_mfma_f32_16x16x32_bf16 does not take fp8 operands (it takes bf16 x bf16); for fp8 use "
        "v_mfma_f32_16x16x128_f8f6f4, v_mfma_f32_32x32x64_f8f6f4, v_mfma_scale_f32_16x16x128_f8f6f4, "
        "v_mfma_scale_f32_32x32x64_f8f6f4");
  bf16["types"]["b"] = "f16";
  CHECK_THAT(parse_error(bf16), Catch::Contains("does not take f16 operands") &&
                                    Catch::Contains("for f16 use v_mfma_f32_16x16x32_f16, v_mfma_f32_32x32x16_f16"));
  auto fp8 = fp8_baseline("bf16", "fp8");
  CHECK_THAT(parse_error(fp8), Catch::StartsWith("s.json: types.a: v_mfma_f32_16x16x128_f8f6f4 does not take bf16 "
                                                 "operands (it takes fp8, bf8, fp6, bf6 or fp4)"));
  CHECK_THAT(parse_error(fp8_baseline("fp8", "f32")), Catch::StartsWith("s.json: types.b: expected one of"));
}

TEST_CASE("K and leading dimensions off the granule are refused, per operand width", "[gemm][types]") {
  // fp8 x fp4: K in granules of the narrower type's 16 bytes, each ld in its own.
  const Schedule mixed = parse_schedule(fp8_baseline("fp8", "fp4").dump());
  CHECK_THAT(error_of([&] { compile(mixed, test::shape(256, 256, 272)); }),
             Catch::Contains("K must be a multiple of 32 (each lane loads 32 consecutive k"));
  GemmShape mixed_ld = test::shape(256, 256, 256);
  mixed_ld.lda = 272;
  mixed_ld.ldb = 272;
  CHECK_THAT(error_of([&] { compile(mixed, mixed_ld); }),
             Catch::Contains("lda must be a multiple of 16 and ldb of 32 elements"));
  mixed_ld.ldb = 288;
  CHECK_NOTHROW(compile(mixed, mixed_ld));
  // fp6: 48-byte groups of 64 elements.
  const Schedule fp6 = parse_schedule(fp8_baseline("fp6", "fp8").dump());
  CHECK_THAT(error_of([&] { compile(fp6, test::shape(256, 256, 160)); }),
             Catch::Contains("K must be a multiple of 64 (6-bit rows are loaded in 48-byte groups of 64 elements)"));
  GemmShape fp6_ld = test::shape(256, 256, 256);
  fp6_ld.lda = 288;
  CHECK_THAT(error_of([&] { compile(fp6, fp6_ld); }), Catch::Contains("lda must be a multiple of 64 and ldb of 16 elements"));
  const Schedule fp8 = parse_schedule(fp8_baseline("fp8", "fp8").dump());
  CHECK_THAT(error_of([&] { compile(fp8, test::shape(256, 256, 136)); }),
             Catch::Contains("K must be a multiple of 16 (each lane loads 16 consecutive k, 16 bytes)"));
  const Schedule fp4 = parse_schedule(fp8_baseline("fp4", "fp4").dump());
  CHECK_THAT(error_of([&] { compile(fp4, test::shape(256, 256, 144)); }), Catch::Contains("K must be a multiple of 32"));
  GemmShape ld = test::shape(256, 256, 256);
  ld.lda = 264;
  CHECK_THAT(error_of([&] { compile(fp8, ld); }), Catch::Contains("lda and ldb must be multiples of 16 elements"));
  // run_gemm pads K to the granule instead, with exact zeros.
  Device device = Device::emulator();
  const auto a = test::typed_matrix(DataType::fp8, 40 * 5, true, 1), b = test::typed_matrix(DataType::fp8, 5 * 24, true, 2);
  const GemmRun run = run_gemm(device, fp8, test::problem(40, 24, 5, a, b, OutType::bf16));
  CHECK(differing_elements(run.c, to_output_bits(reference_gemm(DataType::fp8, a, DataType::fp8, b, 40, 24, 5), DataType::bf16), 2) == 0);
  // bf16-sized buffers for an fp8 schedule are refused, naming the type.
  const std::vector<uint16_t> bf16_a(256), bf16_b(256);
  CHECK_THAT(error_of([&] { run_gemm(device, fp8, test::problem(16, 16, 16, test::bytes_of(bf16_a), test::bytes_of(bf16_b), OutType::f32)); }),
             Catch::Contains("A has 512 elements (512 bytes of fp8), M*K = 256"));
}

TEST_CASE("a workgroup whose waves cannot all hold their registers at once is refused", "[gemm][types]") {
  // The two-cluster fp8 schedule with its MFMAs one stage after the reads: every
  // fragment needs two register copies, 352 registers a wave, and 8 waves put
  // two on each SIMD (512 registers per lane).
  auto j = ordered_json::parse(schedule_test::read_text(schedule_test::schedules_dir() + "twocluster_fp8_256x256x128_w8.json"));
  for (auto& op : j["ops"])
    if (op["op"] == "mfma" || op["op"] == "setprio") op["stage"] = 2;
  const Schedule s = parse_schedule(j.dump());
  CompileOptions unverified;
  unverified.verify = false;
  CHECK_THAT(error_of([&] { compile(s, test::shape(512, 512, 512), unverified); }),
             Catch::Contains("8 waves put 2 on each SIMD, and 352 registers per wave") &&
                 Catch::Contains("the workgroup could never launch"));
}

TEST_CASE("MX scales: the scale block goes with a scaled MFMA, K with whole scale blocks", "[gemm][types]") {
  auto parse_error = [](const ordered_json& j) { return error_of([&] { parse_schedule(j.dump(), "s.json"); }); };
  auto mx = ordered_json::parse(schedule_test::read_text(schedule_test::schedules_dir() + "baseline_mxfp4_256x256x128_w8.json"));
  auto no_block = mx;
  no_block.erase("scale");
  CHECK_THAT(parse_error(no_block), Catch::StartsWith("s.json: scale: missing; v_mfma_scale_f32_16x16x128_f8f6f4 reads E8M0 scales"));
  auto unscaled = mx;
  unscaled["mfma"] = "v_mfma_f32_16x16x128_f8f6f4";
  CHECK_THAT(parse_error(unscaled), Catch::StartsWith("s.json: scale: v_mfma_f32_16x16x128_f8f6f4 takes no scales"));
  auto bad = mx;
  bad["scale"]["b"] = "e5m2";
  CHECK_THAT(parse_error(bad), Catch::StartsWith("s.json: scale.b: expected one of \"e8m0\""));

  const Schedule s = parse_schedule(mx.dump());
  Device device = Device::emulator();
  const auto a = test::typed_matrix(DataType::fp4, 64 * 48, true, 1), b = test::typed_matrix(DataType::fp4, 48 * 64, true, 2);
  CHECK_THAT(error_of([&] { run_gemm(device, s, test::scaled(test::problem(64, 64, 48, a, b, OutType::f32), std::vector<uint8_t>(128), std::vector<uint8_t>(128))); }),
             Catch::Contains("K = 48 is not a multiple of 32, the block of one MX scale"));
  const auto a64 = test::typed_matrix(DataType::fp4, 64 * 64, true, 1), b64 = test::typed_matrix(DataType::fp4, 64 * 64, true, 2);
  CHECK_THAT(error_of([&] { run_gemm(device, s, test::problem(64, 64, 64, a64, b64, OutType::f32)); }),
             Catch::Contains("scales hold 0 and 0 bytes; M x K/32 = 128 and K/32 x N = 128 expected"));
  auto mxfp8 = mx;  // fp8's 16-byte granule is 16 elements: K = 48 passes it, not the scale block
  mxfp8["types"]["a"] = mxfp8["types"]["b"] = "fp8";
  mxfp8.erase("ops");
  mxfp8["num_stages"] = 2;
  CHECK_THAT(error_of([&] { compile(parse_schedule(mxfp8.dump()), test::shape(256, 256, 48)); }),
             Catch::Contains("K must be a multiple of 32 for the MX-scaled"));
  // MX-fp8 (fp8 x bf8) is bit-exact too, ragged M, N and a partial last K tile
  // (a 128-row tile: at 256 x 256 the fp8 fragments, 128 accumulators and the
  // scale registers are more than two waves a SIMD hold).
  mxfp8["types"]["b"] = "bf8";
  mxfp8["tile"]["m"] = 128;
  const Schedule mx8 = parse_schedule(mxfp8.dump());
  const int64_t m = 257, n = 130, k = 160;
  const auto a8 = test::typed_matrix(DataType::fp8, size_t(m * k), false, 3);
  const auto b8 = test::typed_matrix(DataType::bf8, size_t(k * n), false, 4);
  const auto sa = test::scale_bytes(size_t(m * (k / 32)), false, 5), sb = test::scale_bytes(size_t((k / 32) * n), false, 6);
  const GemmRun run8 = run_gemm(device, mx8, test::scaled(test::problem(m, n, k, a8, b8, OutType::f32), sa, sb));
  CHECK(run8.launch.races.empty());
  CHECK(differing_elements(run8.c, to_output_bits(reference_gemm(DataType::fp8, a8, DataType::bf8, b8, m, n, k, sa, sb), DataType::f32), 4) == 0);
  // MX with operands of different widths: fp8 x fp4.
  mxfp8["types"]["b"] = "fp4";
  const Schedule mx84 = parse_schedule(mxfp8.dump());
  const auto b4 = test::typed_matrix(DataType::fp4, size_t(k * n), false, 7);
  const GemmRun run84 = run_gemm(device, mx84, test::scaled(test::problem(m, n, k, a8, b4, OutType::bf16), sa, sb));
  CHECK(run84.launch.races.empty());
  CHECK(differing_elements(run84.c, to_output_bits(reference_gemm(DataType::fp8, a8, DataType::fp4, b4, m, n, k, sa, sb), DataType::bf16), 2) == 0);
  const Schedule fp8 = parse_schedule(fp8_baseline("fp8", "fp8").dump());
  const auto a64_8 = test::typed_matrix(DataType::fp8, 64 * 64, true, 1);
  CHECK_THAT(error_of([&] { run_gemm(device, fp8, test::scaled(test::problem(64, 64, 64, a64_8, a64_8, OutType::f32), std::vector<uint8_t>(128), std::vector<uint8_t>(128))); }),
             Catch::Contains("takes no scales"));
}

TEST_CASE("6-bit operands in row-major LDS: both MFMA shapes, parts that span kpacks, bit-exact", "[gemm][types]") {
  // 32x32x64 fp6 x bf6 (48-byte rows per kpack), and a 128-row fp6 tile with K 256
  // (two kpacks: a G2S part spans both, and the verifier treats it as all rows).
  auto j32 = fp8_baseline("fp6", "bf6");
  j32["mfma"] = "v_mfma_f32_32x32x64_f8f6f4";
  auto j128 = fp8_baseline("bf6", "fp6");
  j128["tile"]["m"] = 128;
  j128["tile"]["k"] = 256;
  for (const auto& j : {j32, j128}) {
    const Schedule s = parse_schedule(j.dump());
    for (bool integers : {true, false}) {
      const int64_t m = 200, n = 130, k = integers ? 640 : 320;  // K a partial last tile either way
      INFO(fmt::format("{} {}, {} data", s.name, mfma_shape(s.mfma).mnemonic, integers ? "integer" : "random"));
      const auto a = test::typed_matrix(s.type_a, size_t(m * k), integers, 17);
      const auto b = test::typed_matrix(s.type_b, size_t(k * n), integers, 18);
      Device device = Device::emulator();
      const GemmRun run = run_gemm(device, s, test::problem(m, n, k, a, b, OutType::bf16));
      CHECK(run.launch.races.empty());
      CHECK(differing_elements(run.c, to_output_bits(reference_gemm(s.type_a, a, s.type_b, b, m, n, k), DataType::bf16), 2) == 0);
    }
  }
  // Geometry: three ds_read_b64 per fragment, parts as row ranges of the byte order.
  const Schedule s = parse_schedule(j128.dump());
  CHECK(fragment_reads(s, Operand::a) == 3);
  // A kpack is 128 rows x 96 bytes = 12 KiB; parts are 8 KiB.
  const auto rows = [&](int p) { return std::pair{part_rows(s, Operand::a, p).begin, part_rows(s, Operand::a, p).end}; };
  CHECK(rows(0) == std::pair{0, 86});    // bytes 0..8191: rows 0..85 of kpack 0
  CHECK(rows(1) == std::pair{0, 128});   // spans kpacks 0 and 1: all rows
  CHECK(rows(2) == std::pair{42, 128});  // kpack 1 bytes 4096..12287: rows 42..127
}
