// The compile cache is bounded (least recently used kernels dropped past its
// byte limit) and can be emptied through the public API.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "cdna4/gemm.hpp"
#include "codegen/gemm/compile_cache.hpp"
#include "support/process.hpp"

using namespace cdna4;

namespace {

Schedule baseline() { return load_schedule(test::source_path("schedules/baseline_256x256x64_w8.json")); }

// Restores the default limit and empties the cache around a test.
struct CleanCache {
  CleanCache() { clear_compile_cache(); }
  ~CleanCache() {
    detail::compile_cache().set_limit(detail::CompileCache::kDefaultLimitBytes);
    clear_compile_cache();
  }
};

}  // namespace

TEST_CASE("compile cache: clear_compile_cache() empties it", "[gemm][cache]") {
  CleanCache clean;
  const Schedule s = baseline();
  CHECK(!compile(s, parse_shape("256x256x64")).stats.cached);
  CHECK(compile(s, parse_shape("256x256x64")).stats.cached);
  CHECK(detail::compile_cache().entries() == 1);
  clear_compile_cache();
  CHECK(detail::compile_cache().entries() == 0);
  CHECK(detail::compile_cache().bytes() == 0);
  CHECK(!compile(s, parse_shape("256x256x64")).stats.cached);
}

TEST_CASE("compile cache: past its byte limit the least recently used kernels go", "[gemm][cache]") {
  CleanCache clean;
  const Schedule s = baseline();
  // What each kernel takes in the cache.
  std::map<std::string, uint64_t> size;
  for (const char* shape : {"256x256x64", "256x256x128", "256x256x192", "256x256x256"}) {
    const uint64_t before = detail::compile_cache().bytes();
    const GemmKernel k = compile(s, parse_shape(shape));
    size[shape] = detail::compile_cache().bytes() - before;
    CHECK(size[shape] > k.kernel.hsaco().size());
  }
  clear_compile_cache();
  const uint64_t limit = size["256x256x64"] + size["256x256x192"] + size["256x256x256"];
  detail::compile_cache().set_limit(limit);
  for (const char* shape : {"256x256x64", "256x256x128", "256x256x192"}) compile(s, parse_shape(shape));
  CHECK(compile(s, parse_shape("256x256x64")).stats.cached);  // now the most recently used
  compile(s, parse_shape("256x256x256"));                     // drops 256x256x128, the least recently used
  CHECK(detail::compile_cache().entries() == 3);
  CHECK(detail::compile_cache().bytes() == limit);
  CHECK(compile(s, parse_shape("256x256x64")).stats.cached);
  CHECK(compile(s, parse_shape("256x256x256")).stats.cached);
  CHECK(compile(s, parse_shape("256x256x192")).stats.cached);
  CHECK(!compile(s, parse_shape("256x256x128")).stats.cached);

  // compile_json's entries share the bound.
  const std::string text = to_json(s);
  for (int k = 1; k <= 6; ++k) compile_json(text, parse_shape("256x256x" + std::to_string(64 * k)));
  CHECK(detail::compile_cache().bytes() <= limit);
  detail::compile_cache().set_limit(0);
  CHECK(detail::compile_cache().entries() == 0);
  CHECK(detail::compile_cache().bytes() == 0);
}

TEST_CASE("compile cache: the default bound holds about 64 MiB", "[gemm][cache]") {
  CHECK(detail::CompileCache::kDefaultLimitBytes == uint64_t(64) << 20);
}
