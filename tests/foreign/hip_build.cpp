#include "foreign/hip_build.hpp"

#include <filesystem>
#include <stdexcept>

#include "support/process.hpp"

namespace cdna4::test {

namespace {

std::string clang_path() {
  const std::string clang = CDNA4_CLANG;
  if (clang.empty() || clang.ends_with("NOTFOUND") || !std::filesystem::exists(clang))
    throw std::runtime_error("clang-22 not found (CMake's CDNA4_CLANG is '" + clang +
                             "'); install clang-22 to build the foreign kernels");
  return clang;
}

std::vector<uint8_t> compile(const std::string& source, const std::vector<std::string>& flags) {
  TempDir dir;
  const std::string out = dir.file("kernel.hsaco");
  std::vector<std::string> command = {clang_path()};
  command.insert(command.end(), flags.begin(), flags.end());
  command.insert(command.end(), {"-O2", source_path("tests/foreign/" + source), "-o", out});
  CommandResult r = run_command(command);
  if (r.status != 0) throw std::runtime_error("clang-22 failed on " + source + ":\n" + r.output);
  return read_binary(out);
}

}  // namespace

std::vector<uint8_t> compile_foreign_hip(const std::string& name) {
  // -nogpuinc: no HIP headers (the sources declare what they use);
  // --no-gpu-bundle-output: a plain code object rather than an offload bundle.
  return compile(name + ".hip", {"-x", "hip", "--offload-arch=gfx950", "-nogpulib", "-nogpuinc", "--cuda-device-only",
                                 "--no-gpu-bundle-output"});
}

std::vector<uint8_t> compile_foreign_opencl(const std::string& name) {
  return compile(name + ".cl", {"-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx950", "-nogpulib"});
}

}  // namespace cdna4::test
