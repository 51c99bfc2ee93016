#!/usr/bin/python3
"""Compile two shipped schedules for one GEMM, run both on the emulator and
compare their outputs (bit for bit) and compile times.

    PYTHONPATH=build/python python/examples/compare_schedules.py [M N K]
"""
import os
import sys
import time

import numpy as np

import cdna4jit

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEDULES = os.environ.get("CDNA4_SCHEDULES", os.path.join(HERE, "..", "..", "schedules"))


def main():
    m, n, k = (int(x) for x in sys.argv[1:4]) if len(sys.argv) == 4 else (512, 512, 512)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    device = cdna4jit.Device("emulator")
    results = {}
    for name in ("baseline_256x256x64_w8", "pingpong_256x256x64_w8"):
        schedule = cdna4jit.load_schedule(os.path.join(SCHEDULES, name + ".json"))
        kernel = cdna4jit.compile(schedule, m, n, k, layout="nn")
        t0 = time.perf_counter()
        results[name] = cdna4jit.gemm(a, b, schedule=schedule, device=device)
        ran = time.perf_counter() - t0
        print(f"{name}: compile {kernel.stats['total_ms']:.2f} ms ({kernel.stats['instructions']} instructions, "
              f"{kernel.stats['vgprs']} VGPRs), emulated GEMM {ran:.3f} s")
    first, second = results.values()
    same = np.array_equal(first.view(np.uint32), second.view(np.uint32))
    print(f"outputs {'identical bit for bit' if same else 'DIFFER'}; max |C - A@B| = {np.abs(first - a @ b).max():.3g} "
          "(A and B rounded to bf16 on the way in)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
