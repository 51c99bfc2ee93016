#!/usr/bin/env python3
"""Hostile command lines against cdna4-gemm, cdna4-attn, cdna4-run and cdna4-asmgen: outputs
that collide or fail, values that round away, runaway model traces, oversized
schedule text. Each case names the exit status it expects and a piece of the
message; a case is clean when the tool ends by itself (no signal, no timeout,
no std::bad_alloc, no terminate) with that status and message.

    python3 tests/cli_adversarial.py BUILD_DIR      # prints one line per case and the tally
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEDULE = os.path.join(ROOT, "schedules", "baseline_256x256x64_w8.json")
ATTENTION = os.path.join(ROOT, "schedules", "attention", "attn_fwd_d64.json")
EXAMPLE = os.path.join(ROOT, "tools", "examples", "mfma_16x16x128.s")

ENDLESS = """\t.amdhsa_code_object_version 5
\t.amdgcn_target "amdgcn-amd-amdhsa--gfx950"
\t.text
\t.globl endless
\t.p2align 8
\t.type endless,@function
endless:
\ts_nop 0
loop:
\ts_branch loop
\t.size endless, .-endless
\t.rodata
\t.p2align 6
\t.amdhsa_kernel endless
\t\t.amdhsa_next_free_vgpr 8
\t\t.amdhsa_next_free_sgpr 8
\t\t.amdhsa_accum_offset 4
\t.end_amdhsa_kernel
\t.amdgpu_metadata
---
amdhsa.kernels:
  - .name: endless
    .symbol: endless.kd
    .kernarg_segment_size: 0
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .wavefront_size: 64
    .sgpr_count: 8
    .vgpr_count: 8
    .max_flat_workgroup_size: 256
amdhsa.version: [ 1, 2 ]
...
\t.end_amdgpu_metadata
"""


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
    gemm, attn, run, asmgen = (os.path.join(build, t) for t in ("cdna4-gemm", "cdna4-attn", "cdna4-run", "cdna4-asmgen"))
    d = tempfile.mkdtemp(prefix="cdna4-adversarial-")
    p = lambda name: os.path.join(d, name)
    results = []

    def case(name, argv, status, needle="", after=None, timeout=120):
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, errors="replace")
            out, rc = r.stdout + r.stderr, r.returncode
        except subprocess.TimeoutExpired:
            out, rc = "timeout", "timeout"
        problems = []
        if rc != status:
            problems.append(f"status {rc}, expected {status}")
        if needle and needle not in out:
            problems.append(f"no '{needle}'")
        for bad in ("bad_alloc", "terminate called", "Traceback", "Segmentation"):
            if bad in out:
                problems.append(bad)
        if after:
            problem = after()
            if problem:
                problems.append(problem)
        results.append((name, problems, out.strip().splitlines()[-1:] if problems else []))
        print(("ok    " if not problems else "FAIL  ") + name + ("" if not problems else ": " + "; ".join(problems)))

    small = [gemm, SCHEDULE, "--shape", "64x64x64", "--device", "model", "--instant", "--quiet"]
    with open(p("c.bin"), "wb") as f:
        f.write(b"\1\2\3")
    os.symlink(p("c.bin"), p("link.bin"))
    os.symlink(p("nowhere/x.bin"), p("dangling.bin"))
    os.mkdir(p("adir"))
    shutil.copy(SCHEDULE, p("s.json"))
    shutil.copy(EXAMPLE, p("k.s"))
    unchanged = lambda path, data: (lambda: None if open(path, "rb").read() == data else f"{path} changed")
    absent = lambda path: (lambda: None if not os.path.lexists(path) else f"{path} exists")
    leftovers = lambda: (lambda: None if not [n for n in os.listdir(d) if n.startswith(".")] else "temporary left")

    # cdna4-gemm outputs
    case("gemm -o and --timeline through a symlink to the same file", small + ["-o", p("c.bin"), "--timeline", p("link.bin")], 2,
         "names the same file", unchanged(p("c.bin"), b"\1\2\3"))
    case("gemm -o a symlink to --a", small + ["--a", p("c.bin"), "--b", p("c.bin"), "-o", p("link.bin")], 2,
         "names the same file as --a")
    case("gemm --trace over --c-in", small + ["--c-in", p("c.bin"), "--trace", p("c.bin")], 2, "names the same file as --c-in")
    case("gemm --timeline over the schedule, relative path", [gemm, p("s.json"), "--shape", "64x64x64", "--device", "model",
         "--model-only", "--timeline", os.path.join(d, "adir", "..", "s.json")], 2, "the schedule")
    case("gemm -o a directory", small + ["-o", p("adir")], 1, "cannot write " + p("adir") + " (Is a directory)")
    case("gemm -o under a regular file", small + ["-o", p("c.bin") + "/x"], 1, "cannot write", leftovers())
    case("gemm -o into a missing directory, --trace fine", small + ["-o", p("none/c.bin"), "--trace", p("t1.json")], 1,
         "cannot write " + p("none/c.bin"), absent(p("t1.json")))
    case("gemm --trace /dev/full, -o fine", small + ["-o", p("c2.bin"), "--trace", "/dev/full"], 1, "No space left on device",
         absent(p("c2.bin")))
    case("gemm -o /dev/null and --trace /dev/null", small + ["-o", "/dev/null", "--trace", "/dev/null"], 0)
    case("gemm -o a dangling symlink writes its target's directory or fails", small + ["-o", p("dangling.bin")], 1,
         "cannot write " + p("dangling.bin"))
    with open(p("target.bin"), "wb") as f:
        f.write(b"old")
    os.symlink("target.bin", p("live.bin"))
    case("gemm -o a live relative symlink replaces its target, keeps the link", small + ["-o", p("live.bin")], 0, "",
         lambda: None if os.path.islink(p("live.bin")) and os.path.getsize(p("target.bin")) == 16384 else "link or target wrong")
    case("gemm --trace /dev/stderr and -o /dev/stdout", small + ["--trace", "/dev/stderr", "-o", "/dev/stdout"], 0,
         '"traceEvents"')
    case("gemm --trace /dev/fd/77 (not open)", small + ["--trace", "/dev/fd/77"], 1, "Bad file descriptor")
    case("gemm --trace ''", small + ["--trace", ""], 2, "--trace needs a file name")
    case("gemm -o '' ", small + ["-o", ""], 2, "-o needs a file name")
    os.chmod(p("c.bin"), 0o640)
    case("gemm -o keeps the mode of the file it replaces",
         small + ["-o", p("c.bin")], 0, "",
         lambda: None if stat.S_IMODE(os.stat(p("c.bin")).st_mode) == 0o640 else "mode not kept")
    # numbers
    case("gemm --alpha 1e-45 (smallest subnormal)", small + ["--alpha", "1e-45"], 0)
    case("gemm --alpha -0", small + ["--alpha", "-0"], 0)
    case("gemm --alpha 0x1p3", small + ["--alpha", "0x1p3"], 2, "not a finite fp32 number")
    case("gemm --alpha -1e-300", small + ["--alpha", "-1e-300"], 2, "rounds to 0 in fp32")
    case("gemm --alpha 3.5e38", small + ["--alpha", "3.5e38"], 2, "rounds to infinity in fp32")
    case("gemm --alpha 1e999999", small + ["--alpha", "1e999999"], 2, "rounds to infinity in fp32")
    case("gemm --alpha 1e-999999", small + ["--alpha", "1e-999999"], 2, "rounds to 0 in fp32")
    case("gemm --beta 1e39 with --c-in", small + ["--c-in", p("c.bin"), "--beta", "1e39"], 2, "rounds to infinity")
    # model memory
    case("gemm --max-trace-bytes 1", small + ["--max-trace-bytes", "1"], 1, "passed the limit of 1 bytes")
    case("gemm --max-trace-bytes 0 (no limit)", small + ["--max-trace-bytes", "0"], 0)
    case("gemm --max-trace-bytes on the emulator", [gemm, SCHEDULE, "--shape", "64x64x64", "--max-trace-bytes", "1M"], 2,
         "--max-trace-bytes needs --device model")
    case("gemm --max-trace-bytes 99999999999G", small + ["--max-trace-bytes", "99999999999G"], 2, "too large")
    case("gemm --max-trace-bytes -5", small + ["--max-trace-bytes", "-5"], 2, "not a non-negative integer")
    case("gemm timeline bound by --max-trace-bytes, --model-only --trace",
         [gemm, SCHEDULE, "--shape", "256x256x8192", "--device", "model", "--model-only", "--quiet", "--trace",
          p("t2.json"), "--max-trace-bytes", "3M"], 1, "--max-trace-bytes", absent(p("t2.json")))

    # cdna4-attn
    attn_small = [attn, ATTENTION, "--shape", "1x64x64x2x1x64", "--quiet"]
    with open(p("o.bin"), "wb") as f:
        f.write(b"old")
    os.symlink(p("o.bin"), p("o-link.bin"))
    case("attn --o-out and --lse-out one file through a symlink", attn_small + ["--o-out", p("o.bin"), "--lse-out",
         p("o-link.bin")], 2, "names the same file as --o-out", unchanged(p("o.bin"), b"old"))
    case("attn --o-out over --q", attn_small + ["--q", p("c.bin"), "--k", p("c.bin"), "--v", p("c.bin"), "--o-out",
         p("c.bin")], 2, "names the same file as --q")
    case("attn --lse-out /dev/full, --o-out fine", attn_small + ["--o-out", p("o1.bin"), "--lse-out", "/dev/full"], 1,
         "No space left on device", absent(p("o1.bin")))
    case("attn --o-out /dev/null --lse-out /dev/null", attn_small + ["--o-out", "/dev/null", "--lse-out", "/dev/null"], 0)
    case("attn --o-out into a missing directory", attn_small + ["--o-out", p("none/o.bin")], 1, "cannot write", leftovers())
    case("attn --scale 3.5e38", attn_small + ["--scale", "3.5e38"], 2, "rounds to infinity in fp32")
    case("attn --scale 1e-50", attn_small + ["--scale", "1e-50"], 2, "rounds to 0 in fp32")
    case("attn --shape with a 2^63 field", [attn, ATTENTION, "--shape", "1x9223372036854775808x1x1x1x64"], 2, "too large")
    case("attn --shape of 2^62 queries", [attn, ATTENTION, "--shape", "1x4611686018427387904x1x1x1x64"], 1,
         "overflow 64 bits")
    case("attn --shape with a huge B x H product", [attn, ATTENTION, "--shape", "4294967296x1x1x4294967296x1x64"], 1,
         "overflow 64 bits")
    case("attn --shape past --max-bytes", [attn, ATTENTION, "--shape", "1x1000000x1000000x64x64x64"], 2, "(--max-bytes)")
    case("attn --max-bytes 1K", attn_small + ["--max-bytes", "1K"], 2, "more than the limit of 1024 bytes")
    case("attn a directory as the schedule", [attn, p("adir"), "--shape", "1x64x64x2x1x64"], 1, "")
    case("attn --max-trace-bytes 1 on the model", attn_small + ["--device", "model", "--max-trace-bytes", "1"], 1,
         "passed the limit of 1 bytes")

    # cdna4-asmgen
    case("asmgen k.s --emit obj -o k.s", [asmgen, p("k.s"), "--emit", "obj", "-o", p("k.s")], 2, "names the same file as the input",
         unchanged(p("k.s"), open(EXAMPLE, "rb").read()))
    case("asmgen --emit metadata -o the input", [asmgen, p("k.s"), "--emit", "metadata", "-o", p("k.s")], 2, "same file")
    case("asmgen schedule -o schedule via ./", [asmgen, p("s.json"), "--shape", "256x256x64", "-o", d + "/./s.json"], 2,
         "same file")
    case("asmgen -o /dev/full", [asmgen, EXAMPLE, "-o", "/dev/full"], 1, "No space left on device")
    case("asmgen -o ''", [asmgen, EXAMPLE, "-o", ""], 2, "-o needs a file name")
    shutil.copy(EXAMPLE, p("adir2.s"))
    os.mkdir(p("adir2.hsaco"))
    case("asmgen default output is a directory", [asmgen, p("adir2.s")], 1, "(Is a directory)")
    with open(p("big.json"), "w") as f:
        f.write("{" + " " * (16 << 20) + "}")
    case("asmgen 16 MiB + 2 schedule", [asmgen, p("big.json"), "--shape", "256x256x64"], 1, "larger than 16777216 bytes")
    subprocess.run([asmgen, EXAMPLE, "-o", p("k.hsaco")], capture_output=True)
    with open(p("endless.s"), "w") as f:
        f.write(ENDLESS)
    subprocess.run([asmgen, p("endless.s"), "-o", p("endless.hsaco")], capture_output=True)

    # cdna4-run
    kr = [run, p("k.hsaco"), "--grid", "1", "--block", "64", "--buf", "#0=8K", "--buf", "#1=8K"]
    case("run --out over the code object", kr + ["--buf", "#2=1K", "--out", "#2=" + p("k.hsaco")], 2, "the code object")
    case("run --out #0 and #1 to one file", kr + ["--buf", "#2=1K", "--out", "#0=" + p("o.bin"), "--out", "#1=" + p("o.bin")], 2,
         "names the same file as --out #0")
    case("run --out over a --buf file", kr + ["--buf", "#2=" + p("c.bin"), "--out", "#2=" + p("link.bin")], 2, "--buf #2")
    case("run --trace and --timeline the same", kr + ["--buf", "#2=1K", "--device", "model", "--trace", p("t.x"), "--timeline",
         p("t.x")], 2, "names the same file as --trace")
    case("run --out /dev/full and a file", kr + ["--buf", "#2=1K", "--out", "#0=" + p("o0.bin"), "--out", "#2=/dev/full"], 1,
         "No space left", absent(p("o0.bin")))
    case("run --trace ''", kr + ["--buf", "#2=1K", "--device", "model", "--trace", ""], 2, "needs a file name")
    case("run --max-trace-bytes on the emulator", kr + ["--buf", "#2=1K", "--max-trace-bytes", "1M"], 2, "needs --device model")
    case("run an endless kernel on the model, 32M of trace",
         [run, p("endless.hsaco"), "--grid", "1", "--block", "256", "--device", "model", "--max-instructions", "0",
          "--timeout", "0", "--max-trace-bytes", "32M"], 1, "passed the limit of 33554432 bytes")
    case("run an endless kernel on the model --model-only --trace",
         [run, p("endless.hsaco"), "--grid", "64", "--block", "64", "--device", "model", "--model-only", "--trace",
          p("t3.json"), "--max-instructions", "0", "--timeout", "0", "--max-trace-bytes", "8M"], 1,
         "passed the limit", absent(p("t3.json")))
    vadd = os.path.join(d, "vadd.hsaco")
    clang = shutil.which("clang-22")
    if clang:
        subprocess.run([clang, "-x", "hip", "--offload-arch=gfx950", "-nogpulib", "-nogpuinc", "--cuda-device-only",
                        "--no-gpu-bundle-output", "-O2", os.path.join(ROOT, "tests", "foreign", "vector_add.hip"), "-o",
                        vadd], capture_output=True)
        va = [run, vadd, "--grid", "1", "--block", "64", "--buf", "#0=256", "--buf", "#1=256", "--buf", "#2=256"]
        for value, status, needle in [("-1.5", 2, "is a float"), ("nan", 2, "is a float"), ("1e3", 2, "is a float"),
                                      ("inf", 2, "is a float"), ("f32:abc", 2, "is not a 4-byte float"),
                                      ("f32:", 2, "is not a 4-byte float"), ("0x1e", 0, ""), ("f64:1", 2, "has 8 bytes"),
                                      ("-2147483648", 0, ""), ("-2147483649", 2, "not a 4-byte integer")]:
            case(f"run vector_add --arg #3={value}", va + ["--arg", "#3=" + value], status, needle)
        with open(p("n.bin"), "wb") as f:
            f.write(b"\0\0\0\0")
        case("run --arg @FILE that is also an output", va + ["--arg", "#3=@" + p("n.bin"), "--out", "#2=" + p("n.bin")], 2,
             "--arg #3")

    clean = sum(1 for _, problems, _ in results if not problems)
    print(f"\n{clean} of {len(results)} cases clean")
    for name, problems, tail in results:
        if problems:
            print(f"  {name}: {'; '.join(problems)} | {' '.join(tail)}")
    shutil.rmtree(d)
    return 0 if clean == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
