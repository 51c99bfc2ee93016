// Compiles a shipped schedule and runs it on the emulator, checking one element.
#include <cstdio>
#include <cstring>
#include <vector>

#include "cdna4/gemm.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const cdna4::Schedule s = cdna4::load_schedule(argv[1]);
  cdna4::Device device = cdna4::Device::emulator();
  std::vector<uint8_t> a(64 * 64 * 2), b(64 * 64 * 2);
  for (size_t i = 0; i < 64 * 64; ++i) {  // 1.0 and 2.0 in bf16, little-endian
    a[2 * i + 1] = 0x3f, a[2 * i] = 0x80;
    b[2 * i + 1] = 0x40;
  }
  cdna4::GemmProblem problem;
  problem.shape = cdna4::parse_shape("64x64x64");
  problem.shape.out = cdna4::OutType::f32;
  problem.a = a;
  problem.b = b;
  const cdna4::GemmRun run = cdna4::run_gemm(device, s, problem);
  float c0;
  std::memcpy(&c0, run.c.data(), 4);
  std::printf("cdna4 %s: C[0][0] = %g\n", cdna4::version(), c0);
  return c0 == 128.0f ? 0 : 1;
}
