// L2 reuse from the grid order: which workgroups share XCD 0, and the
// fraction of their requested lines its L2 must fetch.
#include <catch2/catch.hpp>

#include "runtime/model/l2_reuse.hpp"
#include "runtime/model/parameters.hpp"

using namespace cdna4;

TEST_CASE("model: XCD 0 holds every 8th workgroup of the first round", "[model]") {
  static_assert(model::param::kXcds.value == 8 && model::param::kComputeUnits.value == 256);
  const auto one_per_cu = model::first_round_on_one_xcd(4096, 1);
  REQUIRE(one_per_cu.size() == 32);  // 32 CUs per XCD
  CHECK(one_per_cu.front() == 0);
  CHECK(one_per_cu[1] == 8);
  CHECK(one_per_cu.back() == 248);
  CHECK(model::first_round_on_one_xcd(4096, 2).size() == 64);
  CHECK(model::first_round_on_one_xcd(10, 1) == std::vector<uint64_t>{0, 8});
  CHECK(model::first_round_on_one_xcd(1, 4) == std::vector<uint64_t>{0});
}

TEST_CASE("model: the L2 fetches each distinct line of the XCD's footprints once", "[model]") {
  const auto shared = model::l2_reuse({{1, 2, 3, 4}, {3, 4, 5, 6}, {1, 2, 5, 6}});
  CHECK(shared.requested_lines == 12);
  CHECK(shared.distinct_lines == 6);
  CHECK(shared.miss_fraction() == Approx(0.5));
  CHECK(model::l2_reuse({{1, 2}, {3, 4}}).miss_fraction() == 1.0);
  CHECK(model::l2_reuse({}).miss_fraction() == 1.0);  // nothing read: no reuse claimed
}
