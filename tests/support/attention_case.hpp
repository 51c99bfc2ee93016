#pragma once
// Test support for attention kernels: a shipped schedule read field by field,
// a problem (shape, random bf16 tensors, packed BSHD or strided BHSD), and the
// two checks every kernel run meets: the raw bits of O and LSE equal the
// policy reference's, and both lie within docs/attention.md's tolerance of
// float64.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cdna4/attention.hpp"
#include "cdna4/reference.hpp"
#include "cdna4/runtime.hpp"
#include "attention_check.hpp"
#include "support/attention_output.hpp"
#include "support/completion_mode.hpp"
#include "support/process.hpp"
#include "support/random_bf16.hpp"

namespace cdna4::test {

// A shipped schedule (schedules/attention/attn_fwd_d{128,64}.json), read field
// by field: the whole schedule reader is parse_attention_schedule's.
inline AttentionSchedule shipped_attention(int dim) {
  const std::string path = source_path(fmt::format("schedules/attention/attn_fwd_d{}.json", dim));
  std::ifstream in(path);
  REQUIRE(in);
  const nlohmann::json j = nlohmann::json::parse(in);
  REQUIRE(j.at("kind") == "attention");
  REQUIRE(j.size() == 9);  // the fields below and "kind": a new field would need reading here
  AttentionSchedule s;
  s.name = j.at("name");
  s.target = j.at("target");
  s.dim = j.at("dim");
  s.waves = j.at("waves");
  s.block_q = j.at("block_q");
  s.block_k = j.at("block_k");
  s.lds_buffers = j.at("lds_buffers");
  s.num_stages = int(j.at("num_stages"));
  REQUIRE(s.dim == dim);
  return s;
}

struct AttentionCase {
  int64_t b = 1, nq = 64, nk = 64, h = 1, hkv = 1;
  int d = 128;
  bool causal = false;
  OutType out = OutType::f32;
  bool lse = true;
  bool bhsd = false;  // Q, K, V and O strided as [B][H][S][D] (each with a gap)
};

inline std::string describe(const AttentionCase& c) {
  return fmt::format("B={} Nq={} Nk={} H={} Hkv={} D={}{} O {}{}{}", c.b, c.nq, c.nk, c.h, c.hkv, c.d,
                     c.causal ? " causal" : "", to_string(c.out), c.lse ? " lse" : "", c.bhsd ? " bhsd" : "");
}

// Elements from a [B, S, H, D] tensor's first to its last at strides st.
inline int64_t tensor_elements(const TensorStrides& st, int64_t b, int64_t seq, int64_t heads, int64_t d) {
  return (b - 1) * st.batch + (seq - 1) * st.seq + (heads - 1) * st.head + d;
}

// The problem and the bytes it borrows. BHSD strides put a gap of 8 elements
// after each row and of one row after each head, so nothing is packed.
// Changing the strides or the bytes afterwards: call borrow() again.
struct AttentionData {
  AttentionProblem problem;
  std::vector<uint8_t> q, k, v;
  explicit AttentionData(const AttentionCase& c, uint32_t seed) {
    AttentionShape& s = problem.shape;
    s.batch = c.b, s.seqlen_q = c.nq, s.seqlen_k = c.nk, s.heads = c.h, s.heads_kv = c.hkv, s.dim = c.d;
    s.causal = c.causal, s.out = c.out, s.lse = c.lse;
    const auto strided = [&](int64_t seq, int64_t heads) {
      const int64_t row = c.d + 8, head = (seq + 1) * row;
      return TensorStrides{heads * head, row, head};
    };
    if (c.bhsd) {
      problem.q_strides = strided(c.nq, c.h);
      problem.k_strides = strided(c.nk, c.hkv);
      problem.v_strides = strided(c.nk, c.hkv);
      problem.o_strides = strided(c.nq, c.h);
    }
    q = random_bf16(tensor_elements(problem.strides_q(), c.b, c.nq, c.h, c.d), seed);
    k = random_bf16(tensor_elements(problem.strides_k(), c.b, c.nk, c.hkv, c.d), seed + 1);
    v = random_bf16(tensor_elements(problem.strides_v(), c.b, c.nk, c.hkv, c.d), seed + 2);
    borrow();
  }
  void borrow() { problem.q = q, problem.k = k, problem.v = v; }
};

// The first element whose bits differ, named by (b, i, h, d), or "" when all agree.
inline std::string first_difference(const AttentionData& data, const AttentionOutput& got,
                                    const AttentionOutput& want) {
  const AttentionShape& s = data.problem.shape;
  if (got.o.size() != want.o.size()) return fmt::format("O has {} bytes, want {}", got.o.size(), want.o.size());
  const std::string o = for_each_o(data.problem, [&](int64_t b, int64_t i, int64_t h, int64_t d, int64_t e) {
    if (o_bits(got.o, s.out, e) == o_bits(want.o, s.out, e)) return std::string();
    return fmt::format("O[b={}, i={}, h={}, d={}] = {} (0x{:x}), the policy reference has {} (0x{:x})", b, i, h, d,
                       o_value(got.o, s.out, e), o_bits(got.o, s.out, e), o_value(want.o, s.out, e),
                       o_bits(want.o, s.out, e));
  });
  if (!o.empty()) return o;
  if (got.o != want.o) return "O differs in the gaps between its elements";
  if (got.lse.size() != want.lse.size()) return fmt::format("LSE has {} bytes, want {}", got.lse.size(), want.lse.size());
  for (int64_t row = 0; row < int64_t(got.lse.size() / 4); ++row)
    if (std::memcmp(&got.lse[size_t(row) * 4], &want.lse[size_t(row) * 4], 4) != 0)
      return fmt::format("{} = {}, the policy reference has {}", lse_name(s, row), lse_value(got.lse, row),
                         lse_value(want.lse, row));
  return "";
}

// docs/attention.md "Tolerance against float64" (cdna4-attn --check's rule):
// "" when O and the LSE are within it, else how far they are.
inline std::string beyond_tolerance(const AttentionData& data, const AttentionOutput& got) {
  const tools::Float64Errors e = tools::float64_errors(data.problem, got, reference_f64(data.problem));
  if (e.within()) return "";
  return fmt::format("{} O elements outside (largest |O - O64| {}, its tolerance {}; at most {} of the tolerance), "
                     "{} LSE values outside (largest |LSE - LSE64| {}, its tolerance {}; at most {} of the tolerance)",
                     e.o_outside, e.o, e.o_tolerance, e.o_share, e.lse_outside, e.lse, e.lse_tolerance, e.lse_share);
}

// One problem on one schedule, compiled once, launched in each mode: every run
// bit-exact against the policy reference and (unless the inputs leave the
// tolerance's premise: finite N(0, 1)-like values) within tolerance of float64.
inline void check_kernel_runs(Device& dev, const AttentionSchedule& schedule, const AttentionData& data,
                              const std::vector<LaunchOptions>& modes, bool against_f64 = true) {
  const AttentionOutput want = reference(data.problem, blocks(schedule));
  const AttentionKernel kernel = compile_attention(schedule, data.problem.shape);
  for (const LaunchOptions& mode : modes) {
    const std::string name = mode.timed.value_or(false)                ? "timed"
                             : mode.instant_completion.value_or(false) ? "instant completion"
                                                                       : "randomized completion";
    INFO(name << ", seed " << mode.seed.value_or(0));
    const auto start = std::chrono::steady_clock::now();
    const AttentionRun run = run_attention(dev, kernel, data.problem, mode);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    UNSCOPED_INFO(fmt::format("{}: {:.2f} s", name, seconds));
    CHECK(first_difference(data, run.out, want) == "");
    if (against_f64) CHECK(beyond_tolerance(data, run.out) == "");
  }
}

}  // namespace cdna4::test
