#pragma once
// Compiles the HIP (and OpenCL) sources in tests/foreign to gfx950 code objects with clang-22,
// the way any HIP user's toolchain would, without the HIP headers or runtime.
#include <cstdint>
#include <string>
#include <vector>

namespace cdna4::test {

// Compiles tests/foreign/<name>.hip; throws std::runtime_error with clang's
// output when clang-22 is missing or the compile fails.
std::vector<uint8_t> compile_foreign_hip(const std::string& name);
// tests/foreign/<name>.cl, OpenCL C: its metadata names each argument's type (.type_name).
std::vector<uint8_t> compile_foreign_opencl(const std::string& name);

}  // namespace cdna4::test
