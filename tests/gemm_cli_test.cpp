// cdna4-gemm and cdna4-asmgen's schedule mode, as a user runs them.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>

#include "cdna4/code_object.hpp"
#include "cdna4/reference.hpp"
#include "gemm_support.hpp"
#include "support/process.hpp"

using namespace cdna4;

namespace {

std::string tool(const char* name) { return std::string(CDNA4_BINARY_DIR) + "/" + name; }
std::string schedule(const char* name) { return test::source_path(std::string("schedules/") + name); }

std::vector<uint8_t> as_bytes(const std::vector<uint16_t>& v) {
  std::vector<uint8_t> out(v.size() * 2);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

}  // namespace

TEST_CASE("cdna4-gemm runs user data and checks it bit for bit, under either MFMA policy", "[cli][gemm][policy]") {
  test::TempDir dir;
  const int64_t m = 70, n = 90, k = 40;
  const auto a = test::random_matrix(size_t(m * k), 3), b = test::random_matrix(size_t(k * n), 4);
  test::write_binary(dir.file("a.bin"), as_bytes(a));
  test::write_binary(dir.file("b.bin"), as_bytes(b));
  auto gemm = [&](std::vector<std::string> extra) {
    std::vector<std::string> command = {tool("cdna4-gemm"), schedule("interleave4_256x256x64_w8.json"), "--shape",
                                        "70x90x40", "--a", dir.file("a.bin"), "--b", dir.file("b.bin"), "--c-out",
                                        dir.file("c.bin"), "--check"};
    command.insert(command.end(), extra.begin(), extra.end());
    auto r = test::run_command(command);
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("bit-exact: yes (0 of 6300 elements differ)") != std::string::npos);
    return test::read_binary(dir.file("c.bin"));
  };
  // The file holds what the reference says, as raw bf16.
  CHECK((gemm({"--out-type", "bf16"}) == to_output_bits(reference_gemm(a, b, m, n, k), true)));
  // --check compares against the reference under the run's policy.
  const auto fused = reference_gemm(MfmaPolicy::cdna3_fused_groups, DataType::bf16, as_bytes(a), DataType::bf16,
                                    as_bytes(b), m, n, k);
  CHECK((gemm({"--out-type", "f32", "--mfma-policy", "cdna3-fused-groups"}) == to_output_bits(fused, false)));
  CHECK((to_output_bits(fused, false) != to_output_bits(reference_gemm(a, b, m, n, k), false)));

  auto unknown = test::run_command({tool("cdna4-gemm"), schedule("interleave4_256x256x64_w8.json"), "--shape",
                                    "70x90x40", "--mfma-policy", "exact"});
  CHECK(unknown.status == 2);
  CHECK(unknown.output.find("--mfma-policy takes fp32-fma-chain-k-order or cdna3-fused-groups") != std::string::npos);
}

TEST_CASE("cdna4-gemm says what is wrong with its input", "[cli][gemm]") {
  test::TempDir dir;
  test::write_binary(dir.file("short.bin"), std::vector<uint8_t>(10));
  auto short_a = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "4x4x8",
                                    "--a", dir.file("short.bin"), "--b", dir.file("short.bin")});
  CHECK(short_a.status == 1);
  CHECK(short_a.output.find("has 10 bytes; A needs 32 bf16 elements = 64 bytes") != std::string::npos);
  auto no_shape = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json")});
  CHECK(no_shape.status == 2);  // bad usage
  CHECK(no_shape.output.find("--shape MxNxK is required") != std::string::npos);
  auto rejected = test::run_command({tool("cdna4-gemm"), test::source_path("schedules/fixtures/seed001_interleave4_buggy.json"),
                                     "--shape", "256x256x256"});
  CHECK(rejected.status == 1);
  CHECK(rejected.output.find("war-race") != std::string::npos);
}

TEST_CASE("cdna4-asmgen compiles a schedule to every output kind", "[cli][codegen]") {
  test::TempDir dir;
  const std::string s = schedule("prefetch2_256x256x64_w8.json");
  for (const char* out : {"k.s", "k.o", "k.hsaco", "k.yaml"}) {
    auto r = test::run_command({tool("cdna4-asmgen"), s, "--shape", "512x512x512", "-o", dir.file(out)});
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK(r.output.find("registers:") != std::string::npos);
    CHECK(r.output.find("MFMA") != std::string::npos);
  }
  CHECK(test::read_text_file(dir.file("k.s")).find("v_mfma_f32_16x16x32_bf16") != std::string::npos);
  CHECK(test::read_text_file(dir.file("k.yaml")).find(".name:           cdna4_gemm_prefetch2_256x256x64_w8") !=
        std::string::npos);
  const auto co = CodeObject::read(test::read_binary(dir.file("k.hsaco")));
  CHECK(co.kernels().at(0).group_segment_fixed_size == 131072);
  auto no_shape = test::run_command({tool("cdna4-asmgen"), s, "-o", dir.file("x.s")});
  CHECK(no_shape.status == 2);
  CHECK(no_shape.output.find("needs --shape") != std::string::npos);
  auto verify = test::run_command({tool("cdna4-asmgen"), "--verify", test::source_path("schedules/fixtures/seed001_interleave4_buggy.json")});
  CHECK(verify.status == 3);  // the check (the verifier) failed
  CHECK(verify.output.find("rejected") != std::string::npos);
}

TEST_CASE("cdna4-gemm takes data in the schedule's types", "[cli][gemm][types]") {
  test::TempDir dir;
  const int64_t m = 70, n = 90, k = 64;
  const auto a = test::typed_matrix(DataType::fp8, size_t(m * k), false, 3);
  const auto b = test::typed_matrix(DataType::fp8, size_t(k * n), false, 4);
  test::write_binary(dir.file("a.bin"), a);
  test::write_binary(dir.file("b.bin"), b);
  auto r = test::run_command({tool("cdna4-gemm"), schedule("baseline_fp8_256x256x128_w8.json"), "--shape", "70x90x64",
                              "--a", dir.file("a.bin"), "--b", dir.file("b.bin"), "--out-type", "f16", "--c-out",
                              dir.file("c.bin"), "--check"});
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("bit-exact: yes (0 of 6300 elements differ)") != std::string::npos);
  CHECK((test::read_binary(dir.file("c.bin")) ==
         to_output_bits(reference_gemm(DataType::fp8, a, DataType::fp8, b, m, n, k), DataType::f16)));
  for (const char* data : {"integer", "random"}) {
    auto g = test::run_command({tool("cdna4-gemm"), schedule("pingpong_fp8_256x256x128_w8.json"), "--shape",
                                "300x260x200", "--data", data, "--check"});
    INFO(g.output);
    CHECK(g.status == 0);
    CHECK(g.output.find("bit-exact: yes") != std::string::npos);
  }
  // A file of the wrong size names the type and the bytes it needs.
  test::write_binary(dir.file("short.bin"), std::vector<uint8_t>(100));
  auto short_a = test::run_command({tool("cdna4-gemm"), schedule("baseline_fp8_256x256x128_w8.json"), "--shape",
                                    "64x64x64", "--a", dir.file("short.bin"), "--b", dir.file("b.bin")});
  CHECK(short_a.status == 1);
  CHECK(short_a.output.find("A needs 4096 fp8 elements = 4096 bytes") != std::string::npos);
  auto scale = test::run_command({tool("cdna4-gemm"), schedule("baseline_fp8_256x256x128_w8.json"), "--shape",
                                  "64x64x64", "--a-scale", dir.file("short.bin")});
  CHECK(scale.status == 1);
  CHECK(scale.output.find("has no scaled MFMA (v_mfma_scale_*)") != std::string::npos);
}

TEST_CASE("cdna4-gemm takes MX scales for a scaled schedule", "[cli][gemm][types]") {
  test::TempDir dir;
  const int64_t m = 70, n = 90, k = 96;
  const auto a = test::typed_matrix(DataType::fp4, size_t(m * k), false, 3);
  const auto b = test::typed_matrix(DataType::fp4, size_t(k * n), false, 4);
  const auto sa = test::scale_bytes(size_t(m * (k / 32)), false, 5), sb = test::scale_bytes(size_t((k / 32) * n), false, 6);
  test::write_binary(dir.file("a.bin"), a);
  test::write_binary(dir.file("b.bin"), b);
  test::write_binary(dir.file("sa.bin"), sa);
  test::write_binary(dir.file("sb.bin"), sb);
  auto r = test::run_command({tool("cdna4-gemm"), schedule("baseline_mxfp4_256x256x128_w8.json"), "--shape", "70x90x96",
                              "--a", dir.file("a.bin"), "--b", dir.file("b.bin"), "--a-scale", dir.file("sa.bin"),
                              "--b-scale", dir.file("sb.bin"), "--c-out", dir.file("c.bin"), "--check"});
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("bit-exact: yes (0 of 6300 elements differ)") != std::string::npos);
  CHECK((test::read_binary(dir.file("c.bin")) ==
         to_output_bits(reference_gemm(DataType::fp4, a, DataType::fp4, b, m, n, k, sa, sb), DataType::f32)));
  auto short_scales = test::run_command({tool("cdna4-gemm"), schedule("baseline_mxfp4_256x256x128_w8.json"), "--shape",
                                         "70x90x96", "--a-scale", dir.file("sb.bin"), "--b-scale", dir.file("sb.bin")});
  CHECK(short_scales.status == 1);
  CHECK(short_scales.output.find("A's scales need 210 E8M0 bytes") != std::string::npos);
}

TEST_CASE("cdna4-gemm runs a batch from files holding the matrices one after another", "[cli][gemm][batch]") {
  test::TempDir dir;
  const int64_t batch = 2, m = 40, n = 24, k = 32;
  const auto a = test::random_matrix(size_t(batch * m * k), 5), b = test::random_matrix(size_t(batch * k * n), 6);
  test::write_binary(dir.file("a.bin"), as_bytes(a));
  test::write_binary(dir.file("b.bin"), as_bytes(b));
  auto r = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "40x24x32",
                              "--batch", "2", "--a", dir.file("a.bin"), "--b", dir.file("b.bin"), "--c-out",
                              dir.file("c.bin"), "--check"});
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("40x24x32 batch 2 f32") != std::string::npos);
  CHECK(r.output.find("bit-exact: yes (0 of 1920 elements differ)") != std::string::npos);
  // C holds the two products one after another, each the reference's.
  std::vector<uint8_t> expected;
  for (int64_t z = 0; z < batch; ++z) {
    const std::vector<uint16_t> az(a.begin() + z * m * k, a.begin() + (z + 1) * m * k);
    const std::vector<uint16_t> bz(b.begin() + z * k * n, b.begin() + (z + 1) * k * n);
    const auto cz = to_output_bits(reference_gemm(az, bz, m, n, k), false);
    expected.insert(expected.end(), cz.begin(), cz.end());
  }
  CHECK((test::read_binary(dir.file("c.bin")) == expected));
  // A file sized for one matrix is refused, naming the batch's size.
  test::write_binary(dir.file("a1.bin"), as_bytes(std::vector<uint16_t>(a.begin(), a.begin() + m * k)));
  auto short_a = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "40x24x32",
                                    "--batch", "2", "--a", dir.file("a1.bin"), "--b", dir.file("b.bin")});
  CHECK(short_a.status == 1);
  CHECK(short_a.output.find("A needs 2560 bf16 elements") != std::string::npos);
}

TEST_CASE("cdna4-gemm reads files stored in the declared layout, strided batches included", "[cli][gemm][layout]") {
  test::TempDir dir;
  const int64_t m = 40, n = 24, k = 32;
  // tn: A stored K x M, B K x N.
  const auto a = test::random_matrix(size_t(k * m), 7), b = test::random_matrix(size_t(k * n), 8);
  test::write_binary(dir.file("a.bin"), as_bytes(a));
  test::write_binary(dir.file("b.bin"), as_bytes(b));
  auto r = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "40x24x32",
                              "--layout", "tn", "--a", dir.file("a.bin"), "--b", dir.file("b.bin"), "--c-out",
                              dir.file("c.bin"), "--check"});
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("bit-exact: yes (0 of 960 elements differ)") != std::string::npos);
  const auto a_mk = reference_operand(DataType::bf16, as_bytes(a), Layout::tn, Operand::a, m, k, m);
  CHECK((test::read_binary(dir.file("c.bin")) ==
         to_output_bits(reference_gemm(DataType::bf16, a_mk, DataType::bf16, as_bytes(b), m, n, k), DataType::f32)));

  // Two tt GEMMs whose matrices sit stride elements apart, with gaps.
  const int64_t stride_a = k * m + 16, stride_b = n * k + 8, stride_c = m * n + 5;
  const auto sa = test::random_matrix(size_t(stride_a + k * m), 9), sb = test::random_matrix(size_t(stride_b + n * k), 10);
  test::write_binary(dir.file("sa.bin"), as_bytes(sa));
  test::write_binary(dir.file("sb.bin"), as_bytes(sb));
  auto strided = test::run_command(
      {tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "40x24x32", "--layout", "tt",
       "--batch", "2", "--stride-a", std::to_string(stride_a), "--stride-b", std::to_string(stride_b), "--stride-c",
       std::to_string(stride_c), "--a", dir.file("sa.bin"), "--b", dir.file("sb.bin"), "-o", dir.file("sc.bin"),
       "--check"});
  INFO(strided.output);
  CHECK(strided.status == 0);
  CHECK(strided.output.find("bit-exact: yes (0 of 1920 elements differ)") != std::string::npos);
  const auto c = test::read_binary(dir.file("sc.bin"));
  REQUIRE(c.size() == size_t(stride_c + m * n) * 4);
  const auto b_kn = reference_operand(DataType::bf16, as_bytes(sb), Layout::tt, Operand::b, n, k, k, stride_b);
  const auto a1 = reference_operand(DataType::bf16, as_bytes(sa), Layout::tt, Operand::a, m, k, m, stride_a);
  const auto expected = to_output_bits(reference_gemm(DataType::bf16, a1, DataType::bf16, b_kn, m, n, k), DataType::f32);
  CHECK((std::vector<uint8_t>(c.begin() + stride_c * 4, c.end()) == expected));

  auto bad = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "40x24x32",
                                "--layout", "tx"});
  CHECK(bad.status == 2);
  CHECK(bad.output.find("--layout takes nn, nt, tn or tt") != std::string::npos);
  auto unaligned = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape",
                                      "40x24x32", "--batch", "2", "--stride-a", "1283"});
  CHECK(unaligned.status == 1);
  CHECK(unaligned.output.find("stride_a must be a multiple of 8") != std::string::npos);
}

TEST_CASE("cdna4-gemm runs a fused epilogue from its flags and checks it", "[cli][gemm][epilogue]") {
  test::TempDir dir;
  const int64_t m = 70, n = 40;
  std::vector<float> c(static_cast<size_t>(m * n)), bias(static_cast<size_t>(n));
  for (size_t i = 0; i < c.size(); ++i) c[i] = float(int(i % 13) - 6) * 0.25f;
  for (size_t j = 0; j < bias.size(); ++j) bias[j] = float(j) * 0.5f - 7.0f;
  std::vector<uint8_t> c_bytes(c.size() * 4), bias_bytes(bias.size() * 4);
  std::memcpy(c_bytes.data(), c.data(), c_bytes.size());
  std::memcpy(bias_bytes.data(), bias.data(), bias_bytes.size());
  test::write_binary(dir.file("c.bin"), c_bytes);
  test::write_binary(dir.file("bias.bin"), bias_bytes);
  auto r = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "70x40x32",
                              "--alpha", "0.5", "--beta", "-2", "--c-in", dir.file("c.bin"), "--c-type", "f32", "--bias",
                              dir.file("bias.bin"), "--bias-dim", "n", "--activation", "gelu", "--out-type", "bf16",
                              "--check"});
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("bit-exact: yes (0 of 2800 elements differ)") != std::string::npos);
  // C's type defaults to the output type: an f32 file is twice what bf16 needs.
  auto wrong_type = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape",
                                       "70x40x32", "--c-in", dir.file("c.bin"), "--out-type", "bf16"});
  CHECK(wrong_type.status == 1);
  CHECK(wrong_type.output.find("C needs 2800 bf16 elements = 5600 bytes") != std::string::npos);
  auto bad = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "70x40x32",
                                "--beta", "2"});
  CHECK(bad.status == 2);
  CHECK(bad.output.find("--beta scales C: give --c-in FILE") != std::string::npos);
  auto short_bias = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape",
                                       "70x40x32", "--bias", dir.file("bias.bin"), "--bias-dim", "m"});
  CHECK(short_bias.status == 1);
  CHECK(short_bias.output.find("the bias needs 70 f32 elements") != std::string::npos);
}

TEST_CASE("every tool prints its version and documents the same exit codes", "[cli]") {
  for (const char* t : {"cdna4-gemm", "cdna4-asmgen", "cdna4-run"}) {
    const auto v = test::run_command({tool(t), "--version"});
    INFO(v.output);
    CHECK(v.status == 0);
    CHECK(v.output.find(std::string(t) + " " + cdna4::version()) != std::string::npos);
    const auto h = test::run_command({tool(t), "--help"});
    CHECK(h.status == 0);
    CHECK(h.output.find("Exit status: 0 success, 1 error, 2 bad usage, 3 ") != std::string::npos);
    const auto bad = test::run_command({tool(t), "--no-such-option"});
    CHECK(bad.status == 2);
  }
  // -o names the main output of cdna4-gemm, C.
  test::TempDir dir;
  auto check = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "16x16x16",
                                  "-o", dir.file("c.bin")});
  CHECK(check.status == 0);
  CHECK(test::read_binary(dir.file("c.bin")).size() == 16 * 16 * 4);  // -o writes the main output, C
}

TEST_CASE("Ctrl-C stops a long launch cleanly and leaves no output; no progress bar off a terminal", "[cli][gemm][progress]") {
  test::TempDir dir;
  // 550 G MACs: tens of seconds on the emulator, so SIGINT 2 s after the handler is in always lands first.
  auto r = test::run_command_interrupted({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape",
                                          "8192x8192x8192", "-o", dir.file("c.bin")},
                                         2.0);
  INFO(r.output);
  CHECK(r.status == 130);
  CHECK(r.output.find("interrupted (Ctrl-C)") != std::string::npos);
  CHECK(r.output.find("nothing written") != std::string::npos);
  CHECK(!std::filesystem::exists(dir.file("c.bin")));
  // Piped stderr: no bar.
  auto quiet = test::run_command({tool("cdna4-gemm"), schedule("baseline_256x256x64_w8.json"), "--shape", "512x512x64"});
  CHECK(quiet.status == 0);
  CHECK(quiet.output.find("workgroups/s") == std::string::npos);
}
