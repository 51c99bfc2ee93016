// cdna4-attn, as a user runs it: files in and out in either layout, --check,
// --device model's TFLOP/s and timeline, and clear refusals of bad command lines.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cdna4/attention.hpp"
#include "support/process.hpp"
#include "support/random_bf16.hpp"

using namespace cdna4;

namespace {

std::string tool() { return std::string(CDNA4_BINARY_DIR) + "/cdna4-attn"; }
std::string schedule(int dim) {
  return test::source_path("schedules/attention/attn_fwd_d" + std::to_string(dim) + ".json");
}

test::CommandResult attn(std::vector<std::string> args) {
  args.insert(args.begin(), tool());
  return test::run_command(args);
}

bool says(const test::CommandResult& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

}  // namespace

TEST_CASE("cdna4-attn writes O and the LSE of user files as the policy reference gives them, in either layout",
          "[cli][attention]") {
  test::TempDir dir;
  AttentionShape shape;
  shape.batch = 2, shape.seqlen_q = 70, shape.seqlen_k = 90, shape.heads = 4, shape.heads_kv = 2, shape.dim = 64;
  shape.causal = true;
  shape.out = OutType::f32;
  shape.lse = true;
  const auto q = test::random_bf16(2 * 70 * 4 * 64, 11), k = test::random_bf16(2 * 90 * 2 * 64, 12),
             v = test::random_bf16(2 * 90 * 2 * 64, 13);
  test::write_binary(dir.file("q.bin"), q);
  test::write_binary(dir.file("k.bin"), k);
  test::write_binary(dir.file("v.bin"), v);
  const AttentionBlocks blocking = blocks(load_attention_schedule(schedule(64)));
  for (const char* layout : {"bshd", "bhsd"}) {
    INFO(layout);
    auto r = attn({schedule(64), "--shape", "2x70x90x4x2x64", "--causal", "--out-type", "f32", "--layout", layout,
                   "--q", dir.file("q.bin"), "--k", dir.file("k.bin"), "--v", dir.file("v.bin"), "--o-out",
                   dir.file("o.bin"), "--lse-out", dir.file("lse.bin"), "--check"});
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(says(r, "bit-exact: yes (0 of 35840 O elements, 0 of 560 LSE values differ)"));
    CHECK(says(r, "0 outside); within tolerance"));
    CHECK(says(r, "wrote O to " + dir.file("o.bin") + " (143360 bytes)"));
    // The files hold what the reference computes from the same bytes read at the layout's strides.
    AttentionProblem p;
    p.shape = shape;
    p.q = q, p.k = k, p.v = v;
    const bool bhsd = std::string(layout) == "bhsd";
    p.q_strides = p.o_strides = bhsd ? TensorStrides::bhsd(70, 4, 64) : TensorStrides::bshd(70, 4, 64);
    p.k_strides = p.v_strides = bhsd ? TensorStrides::bhsd(90, 2, 64) : TensorStrides::bshd(90, 2, 64);
    const AttentionOutput want = reference(p, blocking);
    CHECK((test::read_binary(dir.file("o.bin")) == want.o));
    CHECK((test::read_binary(dir.file("lse.bin")) == want.lse));
  }
}

TEST_CASE("cdna4-attn --check on generated data, MQA and one query, with the check in --json", "[cli][attention]") {
  auto r = attn({schedule(128), "--shape", "1x1x300x8x1x128", "--lse", "--check", "--json", "--instant"});
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output);
  CHECK(j["check"]["bit_exact"] == true);
  CHECK(j["check"]["differing_elements"] == 0);
  CHECK(j["check"]["within_tolerance"] == true);
  CHECK(j["check"]["max_error_o"].get<double>() <= j["check"]["tolerance_o"].get<double>());
  CHECK(j["check"]["tolerance_o"].get<double>() > 0);
  CHECK(j["flops"].get<double>() == 4.0 * 8 * 1 * 300 * 128);
  CHECK(j["races"].empty());
}

TEST_CASE("cdna4-attn --device model prints attention TFLOP/s and draws the timeline", "[cli][attention][model]") {
  test::TempDir dir;
  auto r = attn({schedule(128), "--shape", "1x256x256x4x4x128", "--causal", "--device", "model", "--json",
                 "--timeline", dir.file("t.svg"), "--trace", dir.file("t.json")});
  INFO(r.output);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.output);
  const double flops = 4.0 * 4 * 256 * 256 * 128 / 2;  // causal: half
  CHECK(j["flops"].get<double>() == flops);
  const double seconds = j["model"]["seconds"].get<double>();
  REQUIRE(seconds > 0);
  CHECK(j["model"]["tflops"].get<double>() == Approx(flops / seconds / 1e12));
  CHECK(test::read_text_file(dir.file("t.svg")).starts_with("<svg"));
  CHECK(nlohmann::json::parse(test::read_text_file(dir.file("t.json")))["traceEvents"].size() > 0);
  auto text = attn({schedule(64), "--shape", "1x128x128x2x2x64", "--device", "model"});
  INFO(text.output);
  CHECK(text.status == 0);
  CHECK(says(text, "modeled: "));
  CHECK(says(text, " TFLOP/s (8.389e+06 FLOPs: 4 B H NQ NK D)"));
  CHECK(says(text, "modeled time: "));
}

TEST_CASE("cdna4-attn refuses bad command lines in words: usage 2, problems 1", "[cli][attention]") {
  test::TempDir dir;
  test::write_binary(dir.file("short.bin"), std::vector<uint8_t>(10));
  const std::string s = schedule(128), shape = "1x16x16x2x1x128";
  const struct {
    std::vector<std::string> args;
    int status;
    const char* says;
  } cases[] = {
      {{s}, 2, "--shape BxNQxNKxHxHKVxD is required"},
      {{"--shape", shape}, 2, "no schedule given"},
      {{s, "--shape", "1x16x16x2"}, 2, "--shape '1x16x16x2': expected BxNQxNKxHxHKVxD (six numbers)"},
      {{s, "--shape", "1x16x-16x2x1x128"}, 2, "--shape NK: '-16' is not a non-negative integer"},
      {{s, "--shape", shape, "--q", dir.file("short.bin")}, 2, "give all of --q, --k and --v, or none"},
      {{s, "--shape", shape, "--out-type", "f16"}, 2, "--out-type takes f32 or bf16"},
      {{s, "--shape", shape, "--layout", "sbhd"}, 2, "--layout takes bshd or bhsd"},
      {{s, "--shape", shape, "--device", "gpu"}, 2, "--device takes emulator, model or hsa"},
      {{s, "--shape", shape, "--timeline", dir.file("t.svg")}, 2, "--timeline needs --device model"},
      {{s, "--shape", shape, "--scale", "nan"}, 2, "--scale: 'nan' is not a finite fp32 number"},
      {{s, "--shape", shape, "--frobnicate"}, 2, "unknown option --frobnicate"},
      {{s, "--shape", shape, "--o-out", s}, 2, "names the same file as the schedule"},
      {{s, "--shape", "64x4096x4096x32x8x128"}, 2, "more than the limit of 1073741824 bytes (--max-bytes)"},
      {{s, "--shape", "1x16x16x3x2x128"}, 1, "H (3) must be a multiple of Hkv (2)"},
      {{s, "--shape", "1x16x16x2x1x96"}, 1, "D must be 64 or 128, got 96"},
      {{s, "--shape", "1x16x16x2x1x64"}, 1, "schedule attn_fwd_d128 is for D = 128; --shape 1x16x16x2x1x64 has D = 64"},
      {{s, "--shape", shape, "--scale", "-2"}, 1, "the softmax scale must be finite and positive"},
      {{s, "--shape", shape, "--q", dir.file("short.bin"), "--k", dir.file("short.bin"), "--v", dir.file("short.bin")},
       1, "has 10 bytes; Q needs 4096 bf16 elements = 8192 bytes"},
      {{test::source_path("schedules/baseline_256x256x64_w8.json"), "--shape", shape}, 1, "GEMM schedule"},
  };
  for (const auto& c : cases) {
    auto r = attn(c.args);
    INFO(r.output);
    CHECK(r.status == c.status);
    CHECK(says(r, c.says));
    CHECK(says(r, "cdna4-attn: "));
  }
  CHECK(dir.entry_count() == 1);  // nothing written
}

TEST_CASE("Ctrl-C stops a long cdna4-attn launch cleanly and writes nothing", "[cli][attention][progress]") {
  test::TempDir dir;
  // 2.7e11 FLOPs: a minute or more on the emulator, so SIGINT 2 s after the handler is in always lands first.
  auto r = test::run_command_interrupted(
      {tool(), schedule(128), "--shape", "1x8192x8192x8x8x128", "--o-out", dir.file("o.bin")}, 2.0);
  INFO(r.output);
  CHECK(r.status == 130);
  CHECK(says(r, "cdna4-attn: interrupted (Ctrl-C)"));
  CHECK(says(r, "nothing written"));
  CHECK(dir.entry_count() == 0);
}
