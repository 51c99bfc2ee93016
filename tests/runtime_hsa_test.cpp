// The HSA backend's parts that can run without a GPU: finding the runtime,
// choosing the agent, filling the AQL packet, and the errors on this machine.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "support/errors.hpp"
#include "cdna4/error.hpp"
#include "runtime/hsa/agent_select.hpp"
#include "runtime/hsa/aql_packet.hpp"
#include "runtime/hsa/hsa_api.hpp"
#include "runtime/hsa/hsa_context.hpp"
#include "runtime/hsa/hsa_loader.hpp"

using namespace cdna4;
using cdna4::test::error_of;

TEST_CASE("hsa: a missing runtime says what was tried", "[runtime]") {
  std::string message = error_of([] {
    hsa::load_runtime({"/nonexistent/libhsa-runtime64.so.1", "libcdna4-no-such-runtime.so.1"});
  });
  CHECK_THAT(message, Catch::StartsWith("no HSA runtime found (tried /nonexistent/libhsa-runtime64.so.1: "));
  CHECK_THAT(message, Catch::Contains("libcdna4-no-such-runtime.so.1: "));
  CHECK_THAT(message, Catch::Contains("set HSA_RUNTIME_LIB"));
}

TEST_CASE("hsa: a library that is not an HSA runtime is named as such", "[runtime]") {
  std::string message = error_of([] { hsa::load_runtime({"libm.so.6"}); });
  CHECK_THAT(message, Catch::Contains("libm.so.6: not an HSA runtime: missing hsa_init"));
}

TEST_CASE("hsa: candidates are $HSA_RUNTIME_LIB, /opt/rocm, then the soname", "[runtime]") {
  const char* saved = std::getenv("HSA_RUNTIME_LIB");
  std::string saved_value = saved ? saved : "";
  setenv("HSA_RUNTIME_LIB", "/custom/libhsa.so", 1);
  auto with_env = hsa::default_runtime_candidates();
  unsetenv("HSA_RUNTIME_LIB");
  auto without_env = hsa::default_runtime_candidates();
  if (saved) setenv("HSA_RUNTIME_LIB", saved_value.c_str(), 1);
  CHECK(with_env == std::vector<std::string>{"/custom/libhsa.so", "/opt/rocm/lib/libhsa-runtime64.so.1",
                                             "libhsa-runtime64.so.1"});
  CHECK(without_env ==
        std::vector<std::string>{"/opt/rocm/lib/libhsa-runtime64.so.1", "libhsa-runtime64.so.1"});
}

TEST_CASE("hsa: the gfx950 GPU agent is chosen, otherwise the agents found are listed", "[runtime]") {
  using hsa::AgentDescription;
  CHECK(hsa::select_gfx950_agent({{"AMD EPYC 9575F", "", false},
                                  {"gfx942", "AMD Instinct MI300X", true},
                                  {"gfx950", "AMD Instinct MI355X", true}}) == 2);
  CHECK(hsa::select_gfx950_agent({{"gfx950:sramecc+:xnack-", "", true}}) == 0);
  CHECK_THAT(error_of([] { hsa::select_gfx950_agent({{"gfx9500", "", true}}); }),
             Catch::Contains("no gfx950 agent"));
  CHECK(error_of([] {
          hsa::select_gfx950_agent({{"AMD EPYC 9575F", "", false}, {"gfx942", "AMD Instinct MI300X", true}});
        }) == "no gfx950 agent; agents found: AMD EPYC 9575F (CPU), gfx942 AMD Instinct MI300X (GPU)");
  CHECK(error_of([] { hsa::select_gfx950_agent({}); }) == "no gfx950 agent; agents found: none");
}

TEST_CASE("hsa: the AQL packet carries the shared dispatch geometry", "[runtime]") {
  KernelInfo k;
  k.name = "k";
  auto g = rt::dispatch_geometry(k, {8, 4, 1}, {256, 1, 1}, GridUnit::Workgroups);
  hsa_kernel_dispatch_packet_t packet{};
  int kernarg = 0;
  hsa::fill_dispatch_packet(packet, g, {0x1234, &kernarg, 16, 65536, hsa_signal_t{77}});
  CHECK(packet.grid_size_x == 2048);
  CHECK(packet.grid_size_y == 4);
  CHECK(packet.grid_size_z == 1);
  CHECK(packet.workgroup_size_x == 256);
  CHECK(packet.workgroup_size_y == 1);
  CHECK(packet.setup == 2);  // dimensions
  CHECK(packet.kernel_object == 0x1234);
  CHECK(packet.kernarg_address == &kernarg);
  CHECK(packet.private_segment_size == 16);
  CHECK(packet.group_segment_size == 65536);
  CHECK(packet.completion_signal.handle == 77);
  CHECK(packet.header == 0);  // written last, by publish_packet

  uint16_t header = hsa::dispatch_packet_header();
  CHECK((header & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH);
  CHECK((header >> HSA_PACKET_HEADER_BARRIER & 1) == 1);
  CHECK((header >> HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE & 3) == HSA_FENCE_SCOPE_SYSTEM);
  CHECK((header >> HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE & 3) == HSA_FENCE_SCOPE_SYSTEM);
  hsa::publish_packet(packet, header);
  CHECK(packet.header == header);
  CHECK(packet.setup == 2);
}

TEST_CASE("hsa: on a machine without a gfx950 the runtime's answer is a clear error", "[runtime]") {
  // Here: either no runtime library, a runtime that cannot initialise (no
  // /dev/kfd), or one without a gfx950 agent. On a gfx950 machine: success.
  std::string message = error_of([] { hsa::HsaContext context(hsa::default_runtime()); });
  INFO(message);
  bool clear = message == "no error" || message.starts_with("no HSA runtime found (tried ") ||
               (message.starts_with("HSA runtime ") && message.find("hsa_init failed: ") != std::string::npos) ||
               message.starts_with("no gfx950 agent; agents found: ");
  CHECK(clear);
}
