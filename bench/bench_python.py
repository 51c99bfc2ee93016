#!/usr/bin/python3
"""Python gemm() call overhead over the C++ run_gemm on the same data.

cdna4jit.gemm() on 512x512x512 bf16 (float32 ones rounded on the way in,
layout nn, the emulator with instant completion) against bench_run_gemm
--python-reference, which times run_gemm on the same GEMM in C++.
Prints both medians and their ratio.

    PYTHONPATH=build/python bench/bench_python.py build/bench_run_gemm
"""
import os
import subprocess
import sys
import time

import numpy as np

import cdna4jit

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    cpp = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "bench_run_gemm")
    schedule = cdna4jit.load_schedule(os.path.join(HERE, "..", "schedules", "baseline_256x256x64_w8.json"))
    device = cdna4jit.Device("emulator", instant=True)
    a = np.ones((512, 512), np.float32)
    b = np.ones((512, 512), np.float32)
    cdna4jit.gemm(a, b, schedule=schedule, device=device)  # compile once
    times = []
    for _ in range(9):
        t0 = time.perf_counter()
        cdna4jit.gemm(a, b, schedule=schedule, device=device)
        times.append((time.perf_counter() - t0) * 1e3)
    python_ms = sorted(times)[len(times) // 2]
    out = subprocess.run([cpp, "--python-reference"], capture_output=True, text=True, check=True).stdout
    cpp_ms = float(out.split()[1])
    print("gemm() 512x512x512 bf16 (emulator, instant completion), median of 9 calls")
    print(f"python cdna4jit.gemm   {python_ms:8.3f} ms")
    print(f"C++ run_gemm           {cpp_ms:8.3f} ms")
    print(f"ratio                  {python_ms / cpp_ms:8.3f}  (Python - C++: {python_ms - cpp_ms:+.3f} ms; the Python side "
          "also rounds the float32 arrays into bf16 and builds the result array)")


if __name__ == "__main__":
    main()
