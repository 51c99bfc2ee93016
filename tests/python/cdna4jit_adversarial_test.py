"""A hostile caller's pass over cdna4jit: each case either gives the right
answer (checked against the CPU reference or NumPy) or raises an exception
whose message says what was wrong, never a failed cast, a SystemError, a hang
or a crash. The tally is printed at the end.
"""
import os
import signal
import subprocess
import sys
import threading
import unittest

import numpy as np

import cdna4jit

SCHEDULES = os.environ.get("CDNA4_SCHEDULES", os.path.join(os.path.dirname(__file__), "..", "..", "schedules"))
BASELINE = os.path.join(SCHEDULES, "baseline_256x256x64_w8.json")
FP8 = os.path.join(SCHEDULES, "baseline_fp8_256x256x128_w8.json")
MXFP4 = os.path.join(SCHEDULES, "baseline_mxfp4_256x256x128_w8.json")
FP8XFP4 = os.path.join(SCHEDULES, "baseline_fp8xfp4_256x256x128_w8.json")
F16 = os.path.join(SCHEDULES, "baseline_f16_256x256x64_w8.json")

RNG = np.random.default_rng(2024)
A = RNG.standard_normal((40, 64))
B = RNG.standard_normal((64, 24))


def bits(x):
    return np.ascontiguousarray(x).view(np.uint8)


def epilogue_schedule(**epilogue):
    d = cdna4jit.load_schedule(BASELINE).to_dict()
    d["name"] += "_adversarial"
    d["epilogue"] = epilogue
    return d


EPI = epilogue_schedule(c="f32", bias="n", bias_type="f32", activation="none")


def same_as_reference(a, b, schedule=BASELINE, **kw):
    """gemm(a, b) must equal reference_gemm(a, b) bit for bit (out float32)."""
    c = cdna4jit.gemm(a, b, schedule=schedule, out_dtype="float32", **kw)
    ref = cdna4jit.reference_gemm(np.asarray(a), np.asarray(b), schedule=schedule, out_dtype="float32", **kw)
    np.testing.assert_array_equal(bits(c), bits(ref))
    return c


def same_nan_positions_and_other_bits(a, b):
    """The emulator's MFMA gives inf * 0 and inf - inf the host's NaN (sign set on x86), the reference
    +NaN: NaNs must stand where the reference has them, every other element equal bit for bit."""
    c = cdna4jit.gemm(a, b, schedule=BASELINE, out_dtype="float32")
    ref = cdna4jit.reference_gemm(a, b, out_dtype="float32")
    np.testing.assert_array_equal(np.isnan(c), np.isnan(ref))
    assert np.isnan(ref).any()
    np.testing.assert_array_equal(bits(c[~np.isnan(c)]), bits(ref[~np.isnan(ref)]))


def deep(levels):
    d = {}
    for _ in range(levels):
        d = {"x": d}
    return d


def self_referencing():
    d = cdna4jit.load_schedule(BASELINE).to_dict()
    d["loop"] = d
    return d


def concurrent_gemms():
    device = cdna4jit.Device("emulator")
    results, errors = [None] * 6, []

    def run(i):
        try:
            results[i] = cdna4jit.gemm(A * (i + 1), B, schedule=BASELINE, device=device)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i, c in enumerate(results):
        np.testing.assert_array_equal(bits(c), bits(cdna4jit.reference_gemm(A * (i + 1), B)))


def in_child(script, expect):
    """Runs `script` in a fresh interpreter; its last line of output must be `expect`."""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    lines = run.stdout.split("\n")
    assert run.returncode == 0 and expect in run.stdout, (run.returncode, lines[-3:], run.stderr[-2000:])


SIGNAL_PREAMBLE = r"""
import os, signal, threading, numpy as np, cdna4jit
def ctrl_c_soon(): threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
BASELINE = %r
""" % BASELINE

# (name, call, kind): kind "error" expects a clean refusal, "ok" a call that returns (its own checks inside).
CASES = [
    # --- schedules: what is a path, what is text, what is refused
    ("schedule: an int", lambda: cdna4jit.load_schedule(3), "error"),
    ("schedule: None", lambda: cdna4jit.load_schedule(None), "error"),
    ("schedule: empty path", lambda: cdna4jit.load_schedule(""), "error"),
    ("schedule: broken JSON text", lambda: cdna4jit.load_schedule("  {\"name\": "), "error"),
    ("schedule: a NUL in the path", lambda: cdna4jit.load_schedule("a\0b.json"), "error"),
    ("schedule: non-UTF-8 bytes path", lambda: cdna4jit.load_schedule(b"/nonexistent/\xff\xfe.json"), "error"),
    ("gemm: a list of ints (int64)", lambda: cdna4jit.gemm([[1] * 64] * 16, B, schedule=BASELINE), "error"),
    ("schedule: a directory", lambda: cdna4jit.load_schedule(SCHEDULES), "error"),
    ("schedule: /dev/zero", lambda: cdna4jit.load_schedule("/dev/zero"), "error"),
    ("schedule: a list", lambda: cdna4jit.load_schedule([1, 2]), "error"),
    ("schedule: dict 10000 levels deep", lambda: cdna4jit.load_schedule(deep(10000)), "error"),
    ("schedule: dict holding itself", lambda: cdna4jit.load_schedule(self_referencing()), "error"),
    ("schedule: dict with an int key", lambda: cdna4jit.load_schedule({1: "x"}), "error"),
    ("schedule: dict with a set", lambda: cdna4jit.load_schedule(dict(cdna4jit.load_schedule(BASELINE).to_dict(), name={1})), "error"),
    ("schedule: dict with -inf", lambda: cdna4jit.load_schedule(dict(cdna4jit.load_schedule(BASELINE).to_dict(), waves=float("-inf"))), "error"),
    ("schedule: dict with waves True", lambda: cdna4jit.load_schedule(dict(cdna4jit.load_schedule(BASELINE).to_dict(), waves=True)), "error"),
    ("schedule: dict with waves -2^70", lambda: cdna4jit.load_schedule(dict(cdna4jit.load_schedule(BASELINE).to_dict(), waves=-2 ** 70)), "error"),
    ("verify: a missing file", lambda: cdna4jit.verify("/nonexistent.json"), "error"),
    ("gemm: schedule=None", lambda: cdna4jit.gemm(A, B, schedule=None), "error"),
    ("gemm: schedule=a float", lambda: cdna4jit.gemm(A, B, schedule=1.5), "error"),
    # --- operands: dtypes, shapes, strides, values
    ("gemm: 1-D a", lambda: cdna4jit.gemm(A[0], B, schedule=BASELINE), "error"),
    ("gemm: 3-D a", lambda: cdna4jit.gemm(A[None], B, schedule=BASELINE), "error"),
    ("gemm: M = 0", lambda: cdna4jit.gemm(A[:0], B, schedule=BASELINE), "error"),
    ("gemm: K = 0", lambda: cdna4jit.gemm(A[:, :0].copy(), B[:0].copy(), schedule=BASELINE), "error"),
    ("gemm: complex64", lambda: cdna4jit.gemm(A.astype(np.complex64), B, schedule=BASELINE), "error"),
    ("gemm: bool", lambda: cdna4jit.gemm(A > 0, B, schedule=BASELINE), "error"),
    ("gemm: int8 into fp8", lambda: cdna4jit.gemm(np.ones((16, 128), np.int8), np.ones((128, 16), np.uint8), schedule=FP8), "error"),
    ("gemm: str array", lambda: cdna4jit.gemm(np.array([["a"] * 64] * 16), B, schedule=BASELINE), "error"),
    ("gemm: structured dtype", lambda: cdna4jit.gemm(np.zeros((16, 64), "f4,f4"), B, schedule=BASELINE), "error"),
    ("gemm: datetime64", lambda: cdna4jit.gemm(np.zeros((16, 64), "datetime64[s]"), B, schedule=BASELINE), "error"),
    ("gemm: longdouble", lambda: cdna4jit.gemm(A.astype(np.longdouble), B, schedule=BASELINE), "error"),
    ("gemm: object array of floats", lambda: cdna4jit.gemm(A.astype(object), B, schedule=BASELINE), "error"),
    ("gemm: uint16 into fp8", lambda: cdna4jit.gemm(np.ones((16, 128), np.uint16), np.ones((128, 16), np.uint8), schedule=FP8), "error"),
    ("gemm: fp8 code 0x10 beside fp4", lambda: same_as_reference(np.full((16, 128), 0x10, np.uint8), np.ones((128, 16), np.uint8), schedule=FP8XFP4), "ok"),
    ("gemm: fp4 code 16 in b", lambda: cdna4jit.gemm(np.zeros((16, 128), np.uint8), np.full((128, 16), 0x10, np.uint8), schedule=FP8XFP4), "error"),
    ("gemm: a strided view", lambda: cdna4jit.gemm(A[:, ::2], B[::2], schedule=BASELINE), "error"),
    ("gemm: a broadcast of 2^20 rows", lambda: cdna4jit.gemm(np.broadcast_to(A[:1], (1 << 20, 64)), B, schedule=BASELINE), "error"),
    ("gemm: NaN and infinity in a", lambda: same_nan_positions_and_other_bits(np.where(A > 1.5, np.nan, np.where(A < -1.5, -np.inf, A)), B), "ok"),
    ("gemm: NaN in a, none made", lambda: same_as_reference(np.where(A > 1.5, np.nan, A), B), "ok"),
    ("gemm: lists of lists", lambda: np.testing.assert_allclose(cdna4jit.gemm(A.tolist(), B.tolist(), schedule=BASELINE), A @ B, rtol=0.05, atol=0.2), "ok"),
    ("gemm: read-only arrays", lambda: same_as_reference(np.frombuffer(A.tobytes(), np.float64).reshape(A.shape), B), "ok"),
    ("gemm: misaligned float64", lambda: same_as_reference(np.frombuffer(b"\0" + A.tobytes(), np.float64, offset=1).reshape(A.shape), B), "ok"),
    ("gemm: big-endian Fortran float64", lambda: np.testing.assert_array_equal(
        bits(cdna4jit.gemm(np.asfortranarray(A.astype(">f8")), B, schedule=BASELINE)),
        bits(cdna4jit.gemm(A, B, schedule=BASELINE))), "ok"),
    ("gemm: float16 into bf16", lambda: np.testing.assert_array_equal(
        bits(cdna4jit.gemm(A.astype(np.float16), B, schedule=BASELINE)),
        bits(cdna4jit.gemm(A.astype(np.float16).astype(np.float32), B, schedule=BASELINE))), "ok"),
    ("gemm: float64 subnormals into bf16", lambda: np.testing.assert_array_equal(
        cdna4jit.gemm(np.full((16, 64), 1e-310), np.ones((64, 16)), schedule=BASELINE), np.zeros((16, 16), np.float32)), "ok"),
    ("gemm: float64 beyond fp8's range saturates", lambda: same_as_reference(np.full((16, 128), 1e300), np.ones((128, 16)), schedule=FP8), "ok"),
    ("gemm: fp8 x fp4 with K = 40 (padded)", lambda: same_as_reference(
        RNG.integers(0, 0x78, (16, 40), dtype=np.uint8), RNG.integers(0, 16, (40, 24), dtype=np.uint8), schedule=FP8XFP4), "ok"),
    ("gemm: np.matrix", lambda: same_as_reference(np.asmatrix(A), B), "ok"),
    # --- scales and epilogue data
    ("gemm: a_scale int32", lambda: cdna4jit.gemm(np.zeros((16, 128), np.uint8), np.zeros((128, 16), np.uint8), schedule=MXFP4,
                                                 a_scale=np.ones((16, 4), np.int32), b_scale=np.ones((4, 16), np.uint8)), "error"),
    ("gemm: a_scale 3-D", lambda: cdna4jit.gemm(np.zeros((16, 128), np.uint8), np.zeros((128, 16), np.uint8), schedule=MXFP4,
                                               a_scale=np.ones((1, 16, 4), np.uint8), b_scale=np.ones((4, 16), np.uint8)), "error"),
    ("gemm: MX with K = 64 + 32", lambda: same_as_reference(RNG.integers(0, 16, (16, 96), dtype=np.uint8), RNG.integers(0, 16, (96, 16), dtype=np.uint8),
                                                           schedule=MXFP4, a_scale=np.full((16, 3), 127, np.uint8), b_scale=np.full((3, 16), 128, np.uint8)), "ok"),
    ("gemm: MX with K = 48", lambda: cdna4jit.gemm(np.zeros((16, 48), np.uint8), np.zeros((48, 16), np.uint8), schedule=MXFP4,
                                                  a_scale=np.ones((16, 1), np.uint8), b_scale=np.ones((1, 16), np.uint8)), "error"),
    ("gemm: NaN scale (255)", lambda: same_as_reference(np.ones((16, 128), np.uint8), np.ones((128, 16), np.uint8), schedule=MXFP4,
                                                       a_scale=np.full((16, 4), 255, np.uint8), b_scale=np.full((4, 16), 127, np.uint8)), "ok"),
    ("gemm: bias (1, N)", lambda: cdna4jit.gemm(A, B, schedule=EPI, c=np.zeros((40, 24)), bias=np.zeros((1, 24))), "error"),
    ("gemm: c object array", lambda: cdna4jit.gemm(A, B, schedule=EPI, c=np.zeros((40, 24)).astype(object), bias=np.zeros(24)), "error"),
    ("gemm: c Fortran order", lambda: same_as_reference(A, B, schedule=EPI, c=np.asfortranarray(RNG.standard_normal((40, 24))), bias=np.ones(24)), "ok"),
    ("gemm: c big-endian", lambda: same_as_reference(A, B, schedule=EPI, c=RNG.standard_normal((40, 24)).astype(">f4"), bias=np.ones(24, ">f8")), "ok"),
    ("gemm: alpha complex", lambda: cdna4jit.gemm(A, B, schedule=EPI, c=np.zeros((40, 24)), bias=np.zeros(24), alpha=1j), "error"),
    ("gemm: alpha a list", lambda: cdna4jit.gemm(A, B, schedule=EPI, c=np.zeros((40, 24)), bias=np.zeros(24), alpha=[1.0]), "error"),
    ("gemm: alpha NaN", lambda: same_as_reference(A, B, schedule=EPI, c=np.zeros((40, 24)), bias=np.zeros(24), alpha=float("nan")), "ok"),
    ("gemm: beta infinity", lambda: same_as_reference(A, B, schedule=EPI, c=np.ones((40, 24)), bias=np.zeros(24), beta=float("inf")), "ok"),
    ("gemm: alpha numpy float32", lambda: same_as_reference(A, B, schedule=EPI, c=np.ones((40, 24)), bias=np.zeros(24), alpha=np.float32(0.25)), "ok"),
    ("gemm: alpha 2^-149 (smallest subnormal)", lambda: same_as_reference(A, B, schedule=EPI, c=np.ones((40, 24)), bias=np.zeros(24), alpha=2.0 ** -149), "ok"),
    ("gemm: alpha 2^-151", lambda: cdna4jit.gemm(A, B, schedule=EPI, c=np.ones((40, 24)), bias=np.zeros(24), alpha=2.0 ** -151), "error"),
    # --- out_dtype, device, compile and model arguments
    ("gemm: out_dtype int8", lambda: cdna4jit.gemm(A, B, schedule=BASELINE, out_dtype="int8"), "error"),
    ("gemm: out_dtype float64", lambda: cdna4jit.gemm(A, B, schedule=BASELINE, out_dtype=np.float64), "error"),
    ("gemm: out_dtype ''", lambda: cdna4jit.gemm(A, B, schedule=BASELINE, out_dtype=""), "error"),
    ("gemm: out_dtype a list", lambda: cdna4jit.gemm(A, B, schedule=BASELINE, out_dtype=[1]), "error"),
    ("gemm: device 'cpu'", lambda: cdna4jit.gemm(A, B, schedule=BASELINE, device="cpu"), "error"),
    ("gemm: device None", lambda: cdna4jit.gemm(A, B, schedule=BASELINE, device=None), "error"),
    ("compile: M = -1", lambda: cdna4jit.compile(BASELINE, -1, 64, 64), "error"),
    ("compile: 2^62 x 2^62", lambda: cdna4jit.compile(BASELINE, 2 ** 62, 2 ** 62, 64), "error"),
    ("compile: M = 2^63", lambda: cdna4jit.compile(BASELINE, 2 ** 63, 64, 64), "error"),
    ("compile: layout 3", lambda: cdna4jit.compile(BASELINE, 64, 64, 64, layout=3), "error"),
    ("compile: M = 64.5", lambda: cdna4jit.compile(BASELINE, 64.5, 64, 64), "error"),
    ("model: M = 0", lambda: cdna4jit.model(BASELINE, 0, 64, 64), "error"),
    ("model: layout 'xx'", lambda: cdna4jit.model(BASELINE, 64, 64, 64, layout="xx"), "error"),
    ("model: K = 2^40", lambda: cdna4jit.model(BASELINE, 256, 256, 2 ** 40), "error"),
    ("model: MX with K = 48", lambda: cdna4jit.model(MXFP4, 256, 256, 48), "error"),
    ("model: every layout and output type", lambda: [cdna4jit.model(BASELINE, 256, 256, 128, layout=l, out_dtype=o)
                                                      for l in ("nn", "nt", "tn", "tt") for o in ("float32", "float16")], "ok"),
    ("Device: 'bogus'", lambda: cdna4jit.Device("bogus"), "error"),
    ("Device: name 3", lambda: cdna4jit.Device(3), "error"),
    ("Device: seed -1", lambda: cdna4jit.Device(seed=-1), "error"),
    ("Device: time_limit '10'", lambda: cdna4jit.Device(time_limit="10"), "error"),
    ("Device: time_limit 1e300 (no limit)", lambda: cdna4jit.gemm(A, B, schedule=BASELINE, device=cdna4jit.Device(time_limit=1e300)), "ok"),
    ("Device: max_instructions -1", lambda: cdna4jit.Device(max_instructions=-1), "error"),
    ("Device: mfma_policy 3", lambda: cdna4jit.Device(mfma_policy=3), "error"),
    ("Device: threads 100000 on a small GEMM", lambda: np.testing.assert_array_equal(
        bits(cdna4jit.gemm(A, B, schedule=BASELINE, device=cdna4jit.Device(threads=100000))), bits(cdna4jit.reference_gemm(A, B))), "ok"),
    ("launch: kernel None", lambda: cdna4jit.Device().launch(None, A, B), "error"),
    ("launch: an MX kernel without scales", lambda: cdna4jit.Device().launch(
        cdna4jit.compile(MXFP4, 64, 64, 128), np.zeros((64, 128), np.uint8), np.zeros((64, 128), np.uint8)), "error"),
    ("launch: an epilogue kernel with its data", lambda: cdna4jit.Device().launch(
        cdna4jit.compile(EPI, 40, 24, 64, layout="nn"), A, B, c=np.zeros((40, 24)), bias=np.ones(24)), "ok"),
    ("reference_gemm: type_a 'fp9'", lambda: cdna4jit.reference_gemm(A, B, type_a="fp9"), "error"),
    ("reference_gemm: type_a 3", lambda: cdna4jit.reference_gemm(A, B, type_a=3), "error"),
    ("reference_gemm: schedule and type_a", lambda: cdna4jit.reference_gemm(A, B, schedule=BASELINE, type_a="fp8"), "error"),
    ("reference_gemm: fused groups for fp4", lambda: cdna4jit.reference_gemm(A, B, type_a="fp4", type_b="fp4", mfma_policy="cdna3-fused-groups"), "error"),
    ("reference_gemm: scales for bf16", lambda: cdna4jit.reference_gemm(A, B, a_scale=np.ones((40, 2), np.uint8), b_scale=np.ones((2, 24), np.uint8)), "error"),
    # --- threads and signals
    ("six threads share one Device", concurrent_gemms, "ok"),
    ("a raising handler's own exception", lambda: in_child(SIGNAL_PREAMBLE + r"""
def handler(*args): raise ValueError("stop here")
signal.signal(signal.SIGINT, handler); ctrl_c_soon()
try: cdna4jit.gemm(np.ones((8192, 2048)), np.ones((2048, 4096)), schedule=BASELINE, device=cdna4jit.Device(threads=1)); print("finished")
except ValueError as e: print("raised", e)
""", "raised stop here"), "ok"),
    ("Ctrl-C in Device.launch", lambda: in_child(SIGNAL_PREAMBLE + r"""
k = cdna4jit.compile(BASELINE, 8192, 4096, 2048, layout="nn"); ctrl_c_soon()
try: cdna4jit.Device(threads=1).launch(k, np.ones((8192, 2048)), np.ones((2048, 4096))); print("finished")
except KeyboardInterrupt: print("interrupted")
""", "interrupted"), "ok"),
    ("Ctrl-C, then the same Device runs again", lambda: in_child(SIGNAL_PREAMBLE + r"""
d = cdna4jit.Device(threads=1); ctrl_c_soon()
try: cdna4jit.gemm(np.ones((8192, 2048)), np.ones((2048, 4096)), schedule=BASELINE, device=d)
except KeyboardInterrupt: pass
print("again", cdna4jit.gemm(np.ones((16, 64)), np.ones((64, 16)), schedule=BASELINE, device=d)[0, 0])
""", "again 64.0"), "ok"),
    ("a gemm from a thread ignores Ctrl-C, the main thread gets it", lambda: in_child(SIGNAL_PREAMBLE + r"""
import time
out = []
t = threading.Thread(target=lambda: out.append(cdna4jit.gemm(np.ones((2048, 1024)), np.ones((1024, 1024)), schedule=BASELINE,
                                                            device=cdna4jit.Device(threads=1))[0, 0]))
t.start()
try:
    ctrl_c_soon(); time.sleep(30)
except KeyboardInterrupt: pass
t.join(); print("thread", out)
""", "thread [1024.0]"), "ok"),
]


def classify(call, kind):
    """'clean' when the case ends as expected, else what went wrong."""
    try:
        call()
    except (cdna4jit.Error, TypeError, ValueError) as e:
        message = str(e)
        if kind != "error":
            return "raised %s: %s" % (type(e).__name__, message[:300])
        if "Unable to cast" in message or not message.strip():
            return "unclear %s: %s" % (type(e).__name__, message[:300])
        return "clean"
    except AssertionError as e:
        return "wrong result: %s" % str(e)[:300]
    except BaseException as e:  # noqa: BLE001 - every other kind is a finding
        return "raised %s: %s" % (type(e).__name__, str(e)[:300])
    return "clean" if kind == "ok" else "accepted what should be refused"


class AdversarialTest(unittest.TestCase):
    def test_every_case_ends_cleanly(self):
        findings = []
        for name, call, kind in CASES:
            verdict = classify(call, kind)
            if verdict != "clean":
                findings.append("%s: %s" % (name, verdict))
        print("\nadversarial pass: %d cases, %d clean, %d findings" % (len(CASES), len(CASES) - len(findings),
                                                                       len(findings)), file=sys.stderr)
        self.maxDiff = None
        self.assertEqual(findings, [])


if __name__ == "__main__":
    unittest.main()
