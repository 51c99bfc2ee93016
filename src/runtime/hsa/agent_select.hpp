#pragma once
// Choosing the GPU agent to run on, separated from the runtime so it can be tested.
#include <cstddef>
#include <string>
#include <vector>

namespace cdna4::hsa {

struct AgentDescription {
  std::string name;          // HSA_AGENT_INFO_NAME, e.g. "gfx950"
  std::string product_name;  // marketing name, may be empty
  bool is_gpu = false;
};

// Index of the first gfx950 GPU agent. Throws cdna4::Error
// "no gfx950 agent; agents found: gfx942 (GPU), ... (CPU)" otherwise.
size_t select_gfx950_agent(const std::vector<AgentDescription>& agents);

}  // namespace cdna4::hsa
