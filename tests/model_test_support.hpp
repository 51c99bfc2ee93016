#pragma once
// Runs a hand-written kernel on the emulator with tracing on and times its
// first workgroup with the CU model.
#include <vector>

#include "emulator_test_kernel.hpp"
#include "runtime/emulator/trace.hpp"
#include "runtime/model/cu_model.hpp"
#include "runtime/model/instruction_class.hpp"
#include "runtime/model/trace_collector.hpp"

namespace cdna4::modeltest {

// The vector memory latency the hand computations of the CU-model tests use.
inline constexpr uint32_t kGlobalLatency = 600;

struct Traced {
  std::vector<emu::WorkgroupTrace> traces;
  model::CuResult cu;
};

inline Traced model_first_workgroup(const emutest::TestKernel& k, const emu::Dispatch& d) {
  model::TraceCollector sink(1, {}, {}, 0);
  emu::EmulatorOptions o = emutest::instant();
  o.trace = &sink;
  emutest::run(k, d, o);
  Traced t;
  t.traces = sink.take_resident();
  auto program = emu::decode_program(k.code.text(), k.info.accum_offset);
  t.cu = model::simulate_cu(*program, model::classify(*program), t.traces, kGlobalLatency);
  return t;
}

// The trace cost of the first executed instruction named `prefix` (e.g. "DS_READ").
inline uint32_t cost_of_first(const emutest::TestKernel& k, const Traced& t, const std::string& prefix) {
  auto program = emu::decode_program(k.code.text(), k.info.accum_offset);
  for (const auto& e : t.traces.at(0).waves.at(0))
    if (program->names[e.inst].rfind(prefix, 0) == 0) return e.cost;
  return ~0u;
}

}  // namespace cdna4::modeltest
