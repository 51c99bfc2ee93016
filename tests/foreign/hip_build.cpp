#include "foreign/hip_build.hpp"

#include <filesystem>
#include <stdexcept>

#include "support/process.hpp"

namespace cdna4::test {

std::vector<uint8_t> compile_foreign_hip(const std::string& name) {
  const std::string clang = CDNA4_CLANG;
  if (clang.empty() || clang.ends_with("NOTFOUND") || !std::filesystem::exists(clang))
    throw std::runtime_error("clang-22 not found (CMake's CDNA4_CLANG is '" + clang +
                             "'); install clang-22 to build the foreign HIP kernels");
  TempDir dir;
  const std::string out = dir.file(name + ".hsaco");
  // -nogpuinc: no HIP headers (the sources declare what they use);
  // --no-gpu-bundle-output: a plain code object rather than an offload bundle.
  CommandResult r = run_command({clang, "-x", "hip", "--offload-arch=gfx950", "-nogpulib", "-nogpuinc",
                                 "--cuda-device-only", "--no-gpu-bundle-output", "-O2",
                                 source_path("tests/foreign/" + name + ".hip"), "-o", out});
  if (r.status != 0) throw std::runtime_error("clang-22 failed on " + name + ".hip:\n" + r.output);
  return read_binary(out);
}

}  // namespace cdna4::test
