#include <fmt/format.h>

#include <fstream>
#include <iterator>

#include "cdna4/runtime.hpp"

namespace cdna4 {

struct Kernel::State {
  std::vector<uint8_t> hsaco;
  CodeObject code;
  KernelInfo info;
};

Kernel Kernel::from_hsaco(std::vector<uint8_t> hsaco, const std::string& name) {
  auto state = std::make_shared<State>();
  state->hsaco = std::move(hsaco);
  state->code = CodeObject::read(state->hsaco);
  const auto& kernels = state->code.kernels();
  if (kernels.empty()) throw Error("code object contains no kernels");
  if (!name.empty()) {
    state->info = state->code.kernel(name);
  } else if (kernels.size() == 1) {
    state->info = kernels.front();
  } else {
    std::string names;
    for (const auto& k : kernels) names += (names.empty() ? "" : ", ") + k.name;
    throw Error(fmt::format("code object has {} kernels ({}); name the one to launch",
                            kernels.size(), names));
  }
  Kernel kernel;
  kernel.state_ = std::move(state);
  return kernel;
}

Kernel Kernel::from_file(const std::string& path, const std::string& name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("cannot open code object {}", path));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return from_hsaco(std::move(bytes), name);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
}

namespace {

// A default-constructed Kernel has no state; every accessor (and so every
// launch) refuses it instead of dereferencing null.
template <class State>
const State& loaded(const std::shared_ptr<const State>& state) {
  if (!state) throw Error("empty Kernel: load one with Kernel::from_file or Kernel::from_hsaco first");
  return *state;
}

}  // namespace

const std::string& Kernel::name() const { return loaded(state_).info.name; }
const std::vector<uint8_t>& Kernel::hsaco() const { return loaded(state_).hsaco; }
const CodeObject& Kernel::code_object() const { return loaded(state_).code; }
const KernelInfo& Kernel::info() const { return loaded(state_).info; }

}  // namespace cdna4
