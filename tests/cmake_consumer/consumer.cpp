// Compiles a shipped schedule and runs it on the emulator, checking one element.
#include <cstdio>
#include <cstring>

#include "cdna4/gemm.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const cdna4::Schedule s = cdna4::load_schedule(argv[1]);
  cdna4::Device device = cdna4::Device::emulator();
  std::vector<uint16_t> a(64 * 64, 0x3f80), b(64 * 64, 0x4000);  // 1.0 and 2.0 in bf16
  const cdna4::GemmRun run = cdna4::run_gemm(device, s, 64, 64, 64, a, b, cdna4::OutType::f32);
  float c0;
  std::memcpy(&c0, run.c.data(), 4);
  std::printf("cdna4 %s: C[0][0] = %g\n", cdna4::version(), c0);
  return c0 == 128.0f ? 0 : 1;
}
