#pragma once
// What a device backend (emulator, model, HSA) implements behind cdna4::Device.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cdna4/runtime.hpp"
#include "runtime/kernarg.hpp"

namespace cdna4::detail {

class Allocation {
 public:
  virtual ~Allocation() = default;
  virtual uint64_t address() const = 0;
  virtual size_t size() const = 0;
  // Offsets and sizes are checked by Buffer before these are called.
  virtual void write(size_t offset, const void* data, size_t bytes) = 0;
  virtual void read(size_t offset, void* data, size_t bytes) const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const std::string& name() const = 0;
  virtual std::shared_ptr<Allocation> alloc(size_t bytes) = 0;
  // Runs to completion. Races go into the stats; Device applies OnRace.
  virtual LaunchStats launch(const Kernel& kernel, const rt::DispatchGeometry& geometry,
                             const rt::ExplicitArgs& args, const LaunchOptions& options) = 0;
};

std::shared_ptr<Backend> make_emulator_backend(const EmulatorConfig& config);
std::shared_ptr<Backend> make_model_backend(const EmulatorConfig& config);  // emulator + timing model
std::shared_ptr<Backend> make_hsa_backend();

}  // namespace cdna4::detail
