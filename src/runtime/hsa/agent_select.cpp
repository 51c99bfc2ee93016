#include "runtime/hsa/agent_select.hpp"

#include <fmt/format.h>

#include "cdna4/error.hpp"

namespace cdna4::hsa {

size_t select_gfx950_agent(const std::vector<AgentDescription>& agents) {
  for (size_t i = 0; i < agents.size(); ++i) {
    // Names may carry target features ("gfx950:sramecc+:xnack-").
    const std::string& name = agents[i].name;
    if (agents[i].is_gpu && name.starts_with("gfx950") && (name.size() == 6 || name[6] == ':'))
      return i;
  }
  std::string found;
  for (const auto& agent : agents) {
    found += found.empty() ? "" : ", ";
    found += agent.name.empty() ? "(unnamed)" : agent.name;
    if (!agent.product_name.empty() && agent.product_name != agent.name) found += " " + agent.product_name;
    found += agent.is_gpu ? " (GPU)" : " (CPU)";
  }
  throw Error(fmt::format("no gfx950 agent; agents found: {}", found.empty() ? "none" : found));
}

}  // namespace cdna4::hsa
