// libFuzzer target: any input either parses or throws cdna4::Error; a parsed
// schedule prints and re-parses to itself, and plans/verifies without crashing.
#include <cdna4/schedule.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  cdna4::Schedule s;
  try {
    s = cdna4::parse_schedule(text, "fuzz.json");
  } catch (const cdna4::Error&) {
    return 0;
  }
  if (!(cdna4::parse_schedule(cdna4::to_json(s), "fuzz.json") == s)) std::abort();
  if (s.ops.size() > 64) return 0;  // keep each run short
  try {
    cdna4::VerifyOptions options;
    options.k_tiles = {1, 3};
    const cdna4::Schedule planned = s.ops.empty() ? cdna4::plan(s) : s;
    (void)cdna4::verify(planned, options);
  } catch (const cdna4::Error&) {
  }
  return 0;
}
