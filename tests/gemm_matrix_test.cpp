// The combinations a GEMM call site can ask for, sampled: every shipped
// schedule in two cases drawn (seeded) from layouts x odd shapes x fused
// epilogues x output types x data kinds, each bit-exact against the reference
// of the same matrices (one fp32 FMA chain per element in k order, then the
// epilogue in docs/codegen.md's order; the emulator's MFMA policy and its
// stated v_exp_f32 / v_rcp_f32). Tag [matrix].
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstring>
#include <random>

#include "cdna4/gemm.hpp"
#include "cdna4/reference.hpp"
#include "gemm_support.hpp"
#include "schedule_test_support.hpp"

using namespace cdna4;

namespace {

struct Case {
  Layout layout;
  int64_t m, n, k;
  std::optional<Epilogue> epilogue;
  OutType out;
  bool integers;
};

// C or bias data: f32 as raw floats, other types packed as test::typed_matrix makes them.
std::vector<uint8_t> epilogue_data(DataType type, size_t count, bool integers, uint32_t seed) {
  if (type != DataType::f32) return test::typed_matrix(type, count, integers, seed);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> whole(-4, 4);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint8_t> out(count * 4);
  for (size_t i = 0; i < count; ++i) {
    const float x = integers ? float(whole(rng)) : normal(rng);
    std::memcpy(&out[4 * i], &x, 4);
  }
  return out;
}

Case draw(std::mt19937& rng, int granule, bool scaled) {
  const Layout layouts[] = {Layout::nn, Layout::nt, Layout::tn, Layout::tt};
  const int k_unit = scaled ? std::max(granule, 32) : granule;
  // M or N = 1, K = one granule, a prime M, ragged tiles.
  const int64_t shapes[][3] = {{1, 72, 2}, {97, 1, 1}, {97, 130, 3}, {257, 40, 1}, {33, 264, 5}};
  const Epilogue epilogues[] = {
      {},
      {DataType::f32},                                               // alpha, beta and C
      {std::nullopt, BiasDim::m, DataType::f32, Activation::relu},   // bias per row
      {std::nullopt, BiasDim::n, DataType::bf16, Activation::gelu},  // bias per column
      {DataType::bf16, BiasDim::n, DataType::f32, Activation::silu},
  };
  const OutType outs[] = {OutType::f32, OutType::bf16, OutType::f16};
  std::uniform_int_distribution<int> pick(0, 1 << 20);
  const auto& s = shapes[pick(rng) % 5];
  Case c{layouts[pick(rng) % 4], s[0], s[1], s[2] * k_unit, std::nullopt, outs[pick(rng) % 3], pick(rng) % 2 == 0};
  const int e = pick(rng) % 6;
  if (e < 5) c.epilogue = epilogues[e];  // 5: no epilogue block at all
  return c;
}

}  // namespace

TEST_CASE("every shipped schedule in sampled layouts, odd shapes, epilogues and output types is bit-exact",
          "[gemm][matrix]") {
  Device device = Device::emulator();
  std::mt19937 rng(2026);
  for (const std::string& file : schedule_test::shipped_files()) {
    const Schedule s = load_schedule(schedule_test::schedules_dir() + file);
    for (int sample = 0; sample < 4; ++sample) {
      const Case c = draw(rng, k_granule(s), s.scaled);
      INFO(fmt::format("{}: layout {}, {}x{}x{}, {} out, {} data, epilogue {}", s.name, to_string(c.layout), c.m, c.n,
                       c.k, to_string(c.out), c.integers ? "integer" : "random",
                       c.epilogue ? fmt::format("c {} bias {} act {}", c.epilogue->c ? to_string(*c.epilogue->c) : "-",
                                                int(c.epilogue->bias), to_string(c.epilogue->activation))
                                  : "none"));
      const auto a = test::typed_matrix(s.type_a, size_t(c.m * c.k), c.integers, 100 + sample);
      const auto b = test::typed_matrix(s.type_b, size_t(c.k * c.n), c.integers, 200 + sample);
      const auto sa = s.scaled ? test::scale_bytes(size_t(c.m * (c.k / 32)), c.integers, 7) : std::vector<uint8_t>{};
      const auto sb = s.scaled ? test::scale_bytes(size_t((c.k / 32) * c.n), c.integers, 8) : std::vector<uint8_t>{};
      CompileOptions options;
      options.epilogue = c.epilogue;
      GemmProblem data = test::scaled(test::problem(c.m, c.n, c.k, a, b, c.out), sa, sb);
      data.layout = c.layout;
      std::vector<uint8_t> c_in, bias;
      if (c.epilogue) {
        data.alpha = 0.75f;
        data.beta = c.epilogue->c ? -1.5f : 0.0f;
        if (c.epilogue->c) c_in = epilogue_data(*c.epilogue->c, size_t(c.m * c.n), c.integers, 300);
        const int64_t bias_len = c.epilogue->bias == BiasDim::m ? c.m : c.epilogue->bias == BiasDim::n ? c.n : 0;
        if (bias_len) bias = epilogue_data(c.epilogue->bias_type, size_t(bias_len), c.integers, 400);
      }
      data.c = c_in;
      data.bias = bias;
      const GemmRun run = run_gemm(device, s, data, options);
      const GemmShape packed = test::shape(c.m, c.n, c.k);
      const auto a_mk = reference_operand(s.type_a, a, c.layout, Operand::a, c.m, c.k, packed.ld(c.layout, Operand::a));
      const auto b_kn = reference_operand(s.type_b, b, c.layout, Operand::b, c.n, c.k, packed.ld(c.layout, Operand::b));
      std::vector<float> expected = reference_gemm(s.type_a, a_mk, s.type_b, b_kn, c.m, c.n, c.k, sa, sb);
      if (c.epilogue)
        expected = reference_epilogue(expected, c.m, c.n, *c.epilogue, data.alpha, data.beta, data.c, data.bias);
      CHECK(run.launch.races.empty());
      CHECK(differing_elements(run.c, to_output_bits(expected, data_type(c.out)), size_t(element_bytes(c.out))) == 0);
    }
  }
}
