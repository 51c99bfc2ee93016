// The bf16 MFMAs whose chain runs on the registers in place (16x16x32 and
// 32x32x16 on AVX-512 hosts) against a reference written from the layouts:
// D overlapping A, B or C, C as an inline constant, NaN payloads, infinities
// and subnormals, in both completion modes. Tagged [mfma]: it runs on the AVX2
// and portable host paths too.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "common/nan_rules.hpp"
#include "emulator_test_kernel.hpp"

using namespace cdna4;
using namespace cdna4::emutest;

namespace {

constexpr int kFirst = 8, kRegs = 24;  // v[8:31] are loaded, the MFMA runs, v[8:31] are stored

struct Case {
  int n;           // 16: v_mfma_f32_16x16x32_bf16, 32: v_mfma_f32_32x32x16_bf16
  int d, a, b, c;  // first registers; c < 0: C is the inline constant c_text
  const char* c_text = "";
  float c_value = 0;
};

std::string kernel(const Case& s) {
  std::string body = R"(
  s_load_dwordx4 s[4:7], s[0:1], 0
  v_lshlrev_b32 v3, 2, v0
  s_waitcnt lgkmcnt(0)
  s_add_u32 s8, s4, 0x800
  s_addc_u32 s9, s5, 0
  s_add_u32 s10, s4, 0x1000
  s_addc_u32 s11, s5, 0
  s_add_u32 s12, s6, 0x800
  s_addc_u32 s13, s7, 0
  s_add_u32 s14, s6, 0x1000
  s_addc_u32 s15, s7, 0
)";
  const char* in[3] = {"s[4:5]", "s[8:9]", "s[10:11]"};
  const char* out[3] = {"s[6:7]", "s[12:13]", "s[14:15]"};
  for (int r = 0; r < kRegs; ++r)
    body += fmt::format("  global_load_dword v{}, v3, {} offset:{}\n", kFirst + r, in[r / 8], 256 * (r % 8));
  body += "  s_waitcnt vmcnt(0)\n  s_nop 4\n";
  const int out_regs = s.n * s.n / 64;
  const std::string c = s.c < 0 ? std::string(s.c_text) : fmt::format("v[{}:{}]", s.c, s.c + out_regs - 1);
  body += fmt::format("  v_mfma_f32_{0}x{0}x{1}_bf16 v[{2}:{3}], v[{4}:{5}], v[{6}:{7}], {8}\n", s.n, 512 / s.n, s.d,
                      s.d + out_regs - 1, s.a, s.a + 3, s.b, s.b + 3, c);
  body += "  s_nop 7\n  s_nop 7\n  s_nop 7\n";
  for (int r = 0; r < kRegs; ++r)
    body += fmt::format("  global_store_dword v3, v{}, {} offset:{}\n", kFirst + r, out[r / 8], 256 * (r % 8));
  return body + "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
}

// The registers after the MFMA, from the gfx950 layouts and the fp32-fma-chain-k-order policy.
std::vector<uint32_t> expected(const Case& s, const std::vector<uint32_t>& regs) {
  const int n = s.n, k = 512 / n, groups = 64 / n;
  auto reg = [&](int first, int r, int lane) { return regs[size_t(first - kFirst + r) * 64 + lane]; };
  // Register r, lane l of A / B holds k = 8 (l / n) + 2 r + e in its half e; row / column l % n.
  auto ab = [&](int first, int row_or_column, int kk) {
    const int lane = (kk / 8) * n + row_or_column, r = (kk % 8) / 2;
    return f32((reg(first, r, lane) >> (16 * (kk % 2))) << 16);
  };
  // Register r, lane l of C / D holds row 4 groups (r / 4) + 4 (l / n) + r % 4, column l % n.
  auto place = [&](int i, int j) {
    const int r = 4 * (i / (4 * groups)) + i % 4, lane = ((i % (4 * groups)) / 4) * n + j;
    return std::pair{r, lane};
  };
  std::vector<uint32_t> out = regs;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const auto [r, lane] = place(i, j);
      float acc = s.c < 0 ? s.c_value : f32(reg(s.c, r, lane));
      for (int kk = 0; kk < k; ++kk) acc = std::fma(ab(s.a, i, kk), ab(s.b, j, kk), acc);
      out[size_t(s.d - kFirst + r) * 64 + lane] = bits(std::isnan(acc) ? gfx950::default_nan() : acc);
    }
  return out;
}

// bf16 pairs of varied magnitude (products round), with a few NaN payloads,
// infinities, zeros and subnormals; fp32 accumulators alike.
std::vector<uint32_t> registers(uint32_t seed) {
  std::mt19937 rng(seed);
  auto bf16 = [&]() -> uint32_t {
    const uint32_t pick = rng() % 64;
    if (pick == 0) return 0x7fa1u;  // a signalling NaN payload
    if (pick == 1) return 0xffc3u;
    if (pick == 2) return 0x7f80u | ((rng() & 1) << 15);
    if (pick == 3) return 0x0001u | (rng() & 0x807fu);  // subnormal
    if (pick == 4) return 0u;
    return ((rng() & 1) << 15) | ((118 + rng() % 20) << 7) | (rng() & 0x7f);
  };
  std::vector<uint32_t> regs(size_t(kRegs) * 64);
  for (uint32_t& x : regs) x = rng() % 97 == 0 ? 0x7f800123u : rng() % 89 == 0 ? 0x00000345u : bf16() | bf16() << 16;
  return regs;
}

std::vector<uint32_t> run_case(const Case& s, const std::vector<uint32_t>& regs, emu::EmulatorOptions options) {
  KernelShape shape;
  shape.sgprs = 24;
  const TestKernel k = TestKernel::build(kernel(s), shape);
  std::vector<uint32_t> in = regs, out(regs.size(), 0);
  Args args;
  args.add(in);
  args.add(out);
  run_race_free(k, args.dispatch(), options);
  return out;
}

}  // namespace

TEST_CASE("bf16 MFMAs in place: D over A, B or C, C inline, NaN payloads, every register after", "[emulator][mfma]") {
  const Case cases[] = {
      {16, 8, 8, 10, 8},           // D = A = C, B overlaps D's second half
      {16, 12, 10, 14, 12},        // A and B each overlap half of D
      {16, 16, 8, 12, 18},         // C overlaps D's second half
      {16, 8, 12, 16, -1, "1.0", 1.0f},
      {32, 8, 12, 20, 8},          // A and B inside D = C
      {32, 8, 8, 22, -1, "0", 0.0f},  // B runs past D's end
      {32, 12, 8, 28, 12},         // A below D, B past it
      {32, 8, 24, 26, 8},          // A and B overlap each other past D
  };
  uint32_t seed = 1;
  for (const Case& s : cases) {
    INFO("n " << s.n << " D v" << s.d << " A v" << s.a << " B v" << s.b << " C " << s.c << " " << s.c_text);
    const std::vector<uint32_t> regs = registers(seed++);
    const std::vector<uint32_t> want = expected(s, regs);
    for (const emu::EmulatorOptions& options : {instant(), randomized(seed)}) {
      const std::vector<uint32_t> got = run_case(s, regs, options);
      for (size_t i = 0; i < want.size(); ++i) {
        INFO("v" << kFirst + i / 64 << " lane " << i % 64);
        REQUIRE(got[i] == want[i]);
      }
    }
  }
}
