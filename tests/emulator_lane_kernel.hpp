#pragma once
// Runs a VALU instruction sequence on one wave with per-lane inputs and returns
// the registers it leaves, for tests whose expected values are computed per lane.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "emulator_test_kernel.hpp"

namespace cdna4::emutest {

using LaneFn = std::function<uint32_t(uint32_t lane)>;

// Loads inputs[i] (one dword per lane, at most 16) into v(10+i), runs `body`,
// stores the registers `outputs` and returns their values, [output][lane]. The
// body must leave EXEC all ones and v3 as it is.
inline std::vector<std::vector<uint32_t>> run_lanes(const std::string& body, const std::vector<LaneFn>& inputs,
                                             const std::vector<int>& outputs, const KernelShape& shape = {}) {
  std::string text = "  s_load_dwordx4 s[4:7], s[0:1], 0\n  v_lshlrev_b32 v3, 2, v0\n  s_waitcnt lgkmcnt(0)\n";
  for (size_t i = 0; i < inputs.size(); ++i)
    text += fmt::format("  global_load_dword v{}, v3, s[4:5] offset:{}\n", 10 + i, 256 * i);
  text += "  s_waitcnt vmcnt(0)\n" + body + "  s_nop 4\n";
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (o > 0 && o % 16 == 0) text += "  v_add_u32 v3, 0x1000, v3\n";  // past the 13-bit offset
    text += fmt::format("  global_store_dword v3, v{}, s[6:7] offset:{}\n", outputs[o], 256 * (o % 16));
  }
  text += "  s_waitcnt vmcnt(0)\n  s_endpgm\n";
  const TestKernel k = TestKernel::build(text, shape);
  std::vector<uint32_t> in(64 * std::max<size_t>(inputs.size(), 1)), out(64 * outputs.size(), 0xdeadbeef);
  for (size_t i = 0; i < inputs.size(); ++i)
    for (uint32_t l = 0; l < 64; ++l) in[64 * i + l] = inputs[i](l);
  Args args;
  args.add(in);
  args.add(out);
  run_race_free(k, args.dispatch(), randomized(5));
  std::vector<std::vector<uint32_t>> result(outputs.size());
  for (size_t o = 0; o < outputs.size(); ++o) result[o].assign(out.begin() + 64 * o, out.begin() + 64 * (o + 1));
  return result;
}

// A lane-dependent bit pattern.
inline uint32_t pattern(uint32_t lane, uint32_t salt) { return (lane * 0x9e3779b9u) ^ (salt * 0x85ebca6bu) ^ (salt << 7); }

}  // namespace cdna4::emutest
