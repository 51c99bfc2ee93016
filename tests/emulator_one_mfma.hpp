#pragma once
// One MFMA (or SMFMAC) in a kernel of its own: A, B, C (and a sparse kind's
// index VGPR) loaded per lane and register from host arrays (element r*64 + l is
// register r of lane l), D stored back the same way.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "emulator_test_kernel.hpp"

namespace cdna4::emutest {

struct OneMfma {
  std::string mnemonic;
  int a_regs, b_regs, out_regs;
  bool sparse = false;    // src C is the index VGPR; D accumulates in place
  std::string modifiers = "";  // e.g. "cbsz:0 abid:1"
};

inline std::string one_mfma_body(const OneMfma& s) {
  // A v[8:11], B v[12:19], index v20, C / D v[24:39].
  std::string body = "  s_load_dwordx8 s[4:11], s[0:1], 0\n  s_load_dwordx2 s[12:13], s[0:1], 32\n"
                     "  v_lshlrev_b32 v3, 2, v0\n  s_waitcnt lgkmcnt(0)\n";
  auto load = [&](int first, int count, const char* base) {
    for (int r = 0; r < count; ++r)
      body += fmt::format("  global_load_dword v{}, v3, {} offset:{}\n", first + r, base, 256 * r);
  };
  load(8, s.a_regs, "s[4:5]");
  load(12, s.b_regs, "s[6:7]");
  load(24, s.out_regs, "s[8:9]");
  if (s.sparse) load(20, 1, "s[12:13]");
  body += "  s_waitcnt vmcnt(0)\n  s_nop 4\n";
  const std::string d = fmt::format("v[24:{}]", 23 + s.out_regs);
  const std::string a = fmt::format("v[8:{}]", 7 + s.a_regs), b = fmt::format("v[12:{}]", 11 + s.b_regs);
  body += fmt::format("  {} {}, {}, {}, {} {}\n  s_nop 7\n  s_nop 7\n  s_nop 7\n", s.mnemonic, d, a, b,
                      s.sparse ? std::string("v20") : d, s.modifiers);
  for (int r = 0; r < s.out_regs; ++r) body += fmt::format("  global_store_dword v3, v{}, s[10:11] offset:{}\n", 24 + r, 256 * r);
  return body + "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
}

// D of the MFMA; `index` only for sparse kinds (64 dwords).
inline std::vector<uint32_t> run_one_mfma(const OneMfma& s, std::vector<uint32_t> a, std::vector<uint32_t> b,
                                          std::vector<uint32_t> c, std::vector<uint32_t> index,
                                          emu::EmulatorOptions options, emu::RunStats* stats = nullptr) {
  const TestKernel k = TestKernel::build(one_mfma_body(s));
  std::vector<uint32_t> d(size_t(s.out_regs) * 64, 0);
  index.resize(64);
  Args args;
  args.add(a);
  args.add(b);
  args.add(c);
  args.add(d);
  args.add(index);
  const emu::RunStats run_stats = run(k, args.dispatch(), options);
  if (stats) *stats = run_stats;
  return d;
}

// The race and hazard reports of `instruction`, `nops` wait states of s_nop, then `reader`.
inline std::string reports_after(const std::string& instruction, int nops, const std::string& reader,
                                 const KernelShape& shape = {}) {
  std::string body = "  " + instruction + "\n";
  for (int left = nops; left > 0; left -= 8) body += fmt::format("  s_nop {}\n", std::min(left, 8) - 1);
  const TestKernel k = TestKernel::build(body + "  " + reader + "\n  s_endpgm\n", shape);
  Args args;
  return race_text(run(k, args.dispatch(), instant()));
}

}  // namespace cdna4::emutest
