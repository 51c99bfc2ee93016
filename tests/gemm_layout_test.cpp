// Operand layouts in the kernel (nn, nt, tn, tt): K-major operands (A "t", B
// "n") go to LDS as stored and reach the MFMAs through ds_read_b64_tr_b16 /
// _b8; every layout bit-exact against the reference (one fp32 FMA chain per
// element in k order, the emulator's MFMA policy) of the same matrices.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "gemm_support.hpp"
#include "model_test_support.hpp"
#include "schedule_test_support.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

constexpr Layout kLayouts[] = {Layout::nn, Layout::nt, Layout::tn, Layout::tt};

Schedule with_types(const char* file, DataType a, DataType b) {
  Schedule s = load_schedule(schedule_test::schedules_dir() + file);
  s.type_a = a;
  s.type_b = b;
  return s;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("all four layouts are bit-exact in the kernel, for 16- and 8-bit operands and both MFMA shapes",
          "[gemm][layout]") {
  const Schedule schedules[] = {
      load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json"),      // bf16 16x16x32
      load_schedule(schedule_test::schedules_dir() + "pingpong_256x256x64_w8.json"),      // bf16 32x32x16
      load_schedule(schedule_test::schedules_dir() + "baseline_f16_256x256x64_w8.json"),  // f16
      load_schedule(schedule_test::schedules_dir() + "baseline_fp8_256x256x128_w8.json"), // fp8 16x16x128
      load_schedule(schedule_test::schedules_dir() + "pingpong_fp8_256x256x128_w8.json"), // fp8 32x32x64
      with_types("baseline_fp8_256x256x128_w8.json", DataType::bf8, DataType::fp8),
  };
  Device device = Device::emulator();
  for (const Schedule& s : schedules) {
    // Ragged M and N (M = 300 not whole 16-byte rows: run_gemm pads a K-major
    // A's rows), K a partial tile.
    const int64_t m = 300, n = 264, k = 192;  // 2 x 2 workgroups
    const auto a = test::typed_matrix(s.type_a, size_t(m * k), false, 11);
    const auto b = test::typed_matrix(s.type_b, size_t(k * n), false, 12);
    for (Layout layout : kLayouts) {
      INFO(fmt::format("{} ({} x {}), layout {}", s.name, to_string(s.type_a), to_string(s.type_b), to_string(layout)));
      GemmProblem problem = test::problem(m, n, k, a, b, OutType::f32);
      problem.layout = layout;
      const GemmRun run = run_gemm(device, s, problem);
      const GemmShape packed = test::shape(m, n, k);
      const auto a_mk = reference_operand(s.type_a, a, layout, Operand::a, m, k, packed.ld(layout, Operand::a));
      const auto b_kn = reference_operand(s.type_b, b, layout, Operand::b, n, k, packed.ld(layout, Operand::b));
      const auto expected = to_output_bits(reference_gemm(s.type_a, a_mk, s.type_b, b_kn, m, n, k), DataType::f32);
      CHECK(run.launch.races.empty());
      CHECK(differing_elements(run.c, expected, 4) == 0);
    }
  }
}

TEST_CASE("a K-major operand is read with transposing LDS reads, two per 16-byte piece",
          "[gemm][layout]") {
  const Schedule bf16 = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  const Schedule fp8 = load_schedule(schedule_test::schedules_dir() + "baseline_fp8_256x256x128_w8.json");
  CompileOptions options;
  options.keep_assembly = true;
  const auto assembly = [&](const Schedule& s, Layout layout) {
    options.layout = layout;
    GemmShape shape = test::shape(512, 512, 512);
    shape.ldc = 513;  // D's rows off 16 bytes: stored element by element, no LDS reads in the store
    return compile(s, shape, options).assembly;
  };
  // In nt every 16-byte piece of A and of B is one ds_read_b128; in nn B's
  // pieces, in tt A's, in tn all are two transposing reads each.
  for (const Schedule* s : {&bf16, &fp8}) {
    INFO(s->name);
    const std::string tr = element_bits(s->type_a) == 16 ? "ds_read_b64_tr_b16" : "ds_read_b64_tr_b8";
    const std::string nt = assembly(*s, Layout::nt), nn = assembly(*s, Layout::nn);
    const std::string tt = assembly(*s, Layout::tt), tn = assembly(*s, Layout::tn);
    const size_t pieces = count(nt, "ds_read_b128");
    CHECK(pieces > 0);
    CHECK(count(nt, "_tr_") == 0);
    CHECK(count(nn, "ds_read_b128") + count(tt, "ds_read_b128") == pieces);
    CHECK(count(nn, tr) + count(tt, tr) == 2 * pieces);
    CHECK(count(nn, "ds_read_b128") > count(tt, "ds_read_b128"));  // the wave's tile has more rows of A than of B
    CHECK(count(tn, "ds_read_b128") == 0);
    CHECK(count(tn, tr) == 2 * pieces);
    CHECK(count(tn, "_tr_") == count(tn, tr));
  }

  // run_gemm's B is K x N: layout nn, in the kernel.
  Device device = Device::emulator();
  const int64_t m = 64, n = 64, k = 64;
  const auto a = test::integer_matrix(size_t(m * k), 3), b = test::integer_matrix(size_t(k * n), 4);
  const GemmRun run = run_gemm(device, bf16, test::problem(m, n, k, test::bytes_of(a), test::bytes_of(b), OutType::f32));
  const auto expected = to_output_bits(reference_gemm(a, b, m, n, k), DataType::f32);
  CHECK(differing_elements(run.c, expected, 4) == 0);
}

// The trace's bank cycles (common/lds_rules.hpp: a ds_read_b128 4 groups of 16
// lanes at 2 clocks, a transposing read 4 rows of 16 lanes at 2 clocks) of
// every LDS read the first workgroup executes.
TEST_CASE("LDS reads of every layout are free of bank conflicts", "[gemm][layout][model]") {
  for (const char* file : {"baseline_256x256x64_w8.json", "pingpong_256x256x64_w8.json",
                           "baseline_fp8_256x256x128_w8.json", "pingpong_fp8_256x256x128_w8.json",
                           "tilelang_ns2_128x128x64_w4.json", "twocluster_ns3_256x256x32_w8.json"}) {
    const Schedule s = load_schedule(schedule_test::schedules_dir() + file);
    for (Layout layout : kLayouts) {
      INFO(fmt::format("{}, layout {}", s.name, to_string(layout)));
      CompileOptions options;
      options.layout = layout;
      const GemmKernel kernel = compile(s, test::shape(256, 256, 512), options);
      const std::vector<uint8_t> hsaco = kernel.kernel.hsaco();
      CodeObject code = CodeObject::read(hsaco);
      const emutest::TestKernel k{hsaco, code, code.kernel(kernel.kernel.name())};
      std::vector<uint8_t> a(256 * 512 * 2), b(256 * 512 * 2);
      std::vector<float> c(256 * 256);
      emutest::Args args;
      args.add(a);
      args.add(b);
      args.add(c);
      const modeltest::Traced t = modeltest::model_first_workgroup(k, args.dispatch(1, uint32_t(s.waves * 64)));
      const auto program = emu::decode_program(k.code.text(), k.info.accum_offset);
      size_t transposing = 0, b128 = 0, conflicted = 0;
      for (const auto& wave : t.traces.at(0).waves)
        for (const emu::TraceEntry& e : wave) {
          const std::string& name = program->names[e.inst];
          if (name.rfind("DS_READ_B64_TR", 0) == 0) {
            ++transposing;
            conflicted += e.cost != 8;  // 4 rows of 16 lanes x 8 bytes: eight clocks
          } else if (name.rfind("DS_READ_B128", 0) == 0) {
            ++b128;
            conflicted += e.cost != 8;  // 4 groups of 16 lanes x 16 bytes: eight clocks
          }
        }
      CHECK(transposing + b128 > 0);
      CHECK((transposing > 0) == (layout != Layout::nt));
      CHECK(conflicted == 0);
    }
  }
}

TEST_CASE("run_gemm: K-major operands with leading dimensions and batch strides past the packed ones",
          "[gemm][layout][batch]") {
  const Schedule s = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  Device device = Device::emulator();
  for (Layout layout : {Layout::tn, Layout::nn, Layout::tt}) {
    INFO(to_string(layout));
    GemmShape shape = test::shape(100, 40, 64);
    shape.batch = 2;
    shape.out = OutType::bf16;
    // Rows on 16 bytes with gaps after them, and gaps between the matrices.
    shape.lda = (shape.stored_cols(layout, Operand::a) + 12 + 7) / 8 * 8;
    shape.ldb = (shape.stored_cols(layout, Operand::b) + 24 + 7) / 8 * 8;
    shape.stride_a = shape.stored_rows(layout, Operand::a) * shape.lda + 8;
    shape.stride_b = shape.stored_rows(layout, Operand::b) * shape.ldb + 16;
    const auto a = test::typed_matrix(DataType::bf16, size_t(shape.stride_a * 2), false, 21);
    const auto b = test::typed_matrix(DataType::bf16, size_t(shape.stride_b * 2), false, 22);
    GemmProblem problem;
    problem.shape = shape;
    problem.layout = layout;
    problem.a = a;
    problem.b = b;
    const StagedProblem staged = stage(s, problem);  // the kernel reads the caller's buffers: no copy
    CHECK((staged.a.empty() && staged.b.empty() && staged.problem().a.data() == a.data()));
    const GemmRun run = run_gemm(device, s, problem);
    CHECK(differing_elements(run.c, reference(s, problem), 2) == 0);
    CHECK(run.launch.races.empty());
    REQUIRE(run.c.size() == size_t(shape.c_stride() + shape.m * shape.n) * 2);
    for (int64_t z = 0; z < shape.batch; ++z) {
      INFO("matrix " << z);
      const auto a_mk = reference_operand(DataType::bf16, a, layout, Operand::a, shape.m, shape.k, shape.lda, z * shape.stride_a);
      const auto b_kn = reference_operand(DataType::bf16, b, layout, Operand::b, shape.n, shape.k, shape.ldb, z * shape.stride_b);
      const auto expected =
          to_output_bits(reference_gemm(DataType::bf16, a_mk, DataType::bf16, b_kn, shape.m, shape.n, shape.k), DataType::bf16);
      const auto first = run.c.begin() + std::ptrdiff_t(z * shape.c_stride() * 2);
      CHECK(differing_elements(std::vector<uint8_t>(first, first + std::ptrdiff_t(shape.m * shape.n * 2)), expected, 2) == 0);
    }
  }
}

TEST_CASE("layouts the kernel cannot take are refused with the reason", "[gemm][layout][errors]") {
  const Schedule mxfp4 = load_schedule(schedule_test::schedules_dir() + "baseline_mxfp4_256x256x128_w8.json");
  CompileOptions nn;
  nn.layout = Layout::nn;
  CHECK_THAT(error_of([&] { compile(mxfp4, test::shape(256, 256, 256), nn); }),
             Catch::Contains("layout \"nn\" stores b with K as its slow dimension, which is lowered for 16- and 8-bit "
                             "types (transposing LDS reads), not for fp4"));
  const Schedule bf16 = load_schedule(schedule_test::schedules_dir() + "baseline_256x256x64_w8.json");
  CompileOptions tn;
  tn.layout = Layout::tn;
  GemmShape shape = test::shape(100, 40, 64);  // packed: A's rows are M = 100 long, not whole 16 bytes
  CHECK_THAT(error_of([&] { compile(bf16, shape, tn); }),
             Catch::Contains("lda and ldb must be multiples of 8 elements (rows start on 16 bytes)"));
  shape.lda = 96;
  CHECK_THAT(error_of([&] { compile(bf16, shape, tn); }),
             Catch::Contains("a leading dimension is smaller than its row (layout tn: A rows of 100, B rows of 40"));
  shape.lda = 104;
  Device device = Device::emulator();
  // 64 rows of 104 elements, the last one read up to 104: 63 * 104 + 104 elements.
  const std::vector<uint8_t> short_a(63 * 104 * 2 + 100 * 2), b(64 * 40 * 2);
  GemmProblem problem;
  problem.shape = shape;
  problem.layout = Layout::tn;
  problem.a = short_a;
  problem.b = b;
  CHECK_THAT(error_of([&] { run_gemm(device, bf16, problem); }),
             Catch::Contains("A holds 13304 bytes; the shape 100x40x64 f32 (layout tn) reads 6656 bf16 elements"));
}

// The same count over every shipped schedule (layout nt, the schedule's own
// types, MX scales where it has them), for an f32 and a bf16 D: the operand
// reads (ds_read_b128 of swizzled rows, row_swizzle.cpp's map per geometry) and
// the staged store's reads of D's rows.
TEST_CASE("LDS reads of every shipped schedule are free of bank conflicts", "[gemm][layout][model]") {
  for (const std::string& file : schedule_test::shipped_files()) {
    const Schedule s = schedule_test::load(file);
    for (OutType out : {OutType::f32, OutType::bf16}) {
      INFO(fmt::format("{}, D {}", s.name, out == OutType::f32 ? "f32" : "bf16"));
      GemmShape shape = test::shape(256, 256, 512);
      shape.out = out;
      const GemmKernel kernel = compile(s, shape);
      const std::vector<uint8_t> hsaco = kernel.kernel.hsaco();
      CodeObject code = CodeObject::read(hsaco);
      const emutest::TestKernel k{hsaco, code, code.kernel(kernel.kernel.name())};
      std::vector<uint8_t> a(256 * 512 * 2), b(256 * 512 * 2), c(256 * 256 * 4), scales(256 * 512 / 32);
      emutest::Args args;
      args.add(a);
      args.add(b);
      args.add(c);
      if (s.scaled) {
        args.add(scales);
        args.add(scales);
      }
      const modeltest::Traced t = modeltest::model_first_workgroup(k, args.dispatch(1, uint32_t(s.waves * 64)));
      const auto program = emu::decode_program(k.code.text(), k.info.accum_offset);
      size_t b128 = 0, conflicted = 0;
      for (const auto& wave : t.traces.at(0).waves)
        for (const emu::TraceEntry& e : wave)
          if (program->names[e.inst].rfind("DS_READ_B128", 0) == 0) {
            ++b128;
            conflicted += e.cost != 8;  // 4 groups of 16 lanes x 16 bytes: eight clocks
          }
      CHECK(b128 > 0);
      CHECK(conflicted == 0);
    }
  }
}

// A 16-bit D goes through the staged store's LDS rows with the halves of some
// 32-byte units swapped (store_c.cpp, "Staging"): 4 and 8 units a row, both
// MFMA shapes, bf16 and f16, bit-exact.
TEST_CASE("a 16-bit D through the staged store's swapped halves is bit-exact", "[gemm][layout]") {
  Device device = Device::emulator();
  for (const char* file : {"baseline_256x256x64_w8.json", "pingpong2_256x128x64_w8.json", "pingpong_256x256x64_w8.json"}) {
    const Schedule s = schedule_test::load(file);
    const int64_t m = 2 * s.tile_m, n = 2 * s.tile_n, k = s.tile_k;
    const auto a = test::typed_matrix(s.type_a, size_t(m * k), false, 31);
    const auto b = test::typed_matrix(s.type_b, size_t(k * n), false, 32);
    for (OutType out : {OutType::bf16, OutType::f16}) {
      INFO(fmt::format("{}, D {}", s.name, to_string(out)));
      const GemmRun run = run_gemm(device, s, test::problem(m, n, k, a, b, out));
      const auto expected = to_output_bits(reference_gemm(s.type_a, a, s.type_b, b, m, n, k), data_type(out));
      CHECK(run.launch.races.empty());
      CHECK(differing_elements(run.c, expected, 2) == 0);
    }
  }
}
