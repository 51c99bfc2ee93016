"""cdna4jit under hostile input and signals: each test is one way the module
once gave a wrong result, an unclear error or ignored Ctrl-C.
"""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import numpy as np

import cdna4jit

SCHEDULES = os.environ.get("CDNA4_SCHEDULES", os.path.join(os.path.dirname(__file__), "..", "..", "schedules"))
BASELINE = os.path.join(SCHEDULES, "baseline_256x256x64_w8.json")
MXFP4 = os.path.join(SCHEDULES, "baseline_mxfp4_256x256x128_w8.json")
MXFP6 = os.path.join(SCHEDULES, "baseline_mxfp6_256x256x128_w8.json")
FP8XFP4 = os.path.join(SCHEDULES, "baseline_fp8xfp4_256x256x128_w8.json")

# fp4 E2M1 codes 0..15 and their values (OCP MX): sign bit 8.
FP4_VALUES = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6], np.float32)


def small_integers(shape, seed):
    return np.random.default_rng(seed).integers(-4, 5, size=shape).astype(np.float32)


def exact_product(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def bits(array):
    return np.ascontiguousarray(array).view(np.uint8)


def with_epilogue(path, **epilogue):
    d = cdna4jit.load_schedule(path).to_dict()
    d["name"] += "_epilogue"
    d["epilogue"] = epilogue
    return d


def to_bf16_bits(x):  # x exact in bf16
    return (np.ascontiguousarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


class InterruptTest(unittest.TestCase):
    """Ctrl-C stops gemm() and model() while the kernel runs."""

    SCRIPT = r"""
import sys, time, numpy as np, cdna4jit
what, schedule = sys.argv[1], sys.argv[2]
device = cdna4jit.Device("emulator", threads=1)
a = np.ones((8192, 4096), np.float32); b = np.ones((4096, 4096), np.float32)
print("ready", flush=True)
start = time.monotonic()
try:
    if what == "gemm":
        cdna4jit.gemm(a, b, schedule=schedule, device=device)
    else:
        cdna4jit.model(schedule, 256, 256, 1 << 20, timeline=False)
    print("finished %.3f" % (time.monotonic() - start), flush=True)
except KeyboardInterrupt:
    print("interrupted %.3f" % (time.monotonic() - start), flush=True)
"""

    def interrupt(self, what):
        child = subprocess.Popen([sys.executable, "-c", self.SCRIPT, what, BASELINE], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(child.stdout.readline().strip(), "ready")
            time.sleep(1.5)  # inside the launch
            sent = time.monotonic()
            child.send_signal(signal.SIGINT)
            out, err = child.communicate(timeout=120)
            stopped = time.monotonic() - sent
        finally:
            child.kill()
            child.wait()
        self.assertIn("interrupted", out, out + err)
        # The whole run takes many seconds on one thread (137 G MACs); a stop at the next check well under one.
        self.assertLess(stopped, 10.0, out + err)

    def test_ctrl_c_stops_gemm(self):
        self.interrupt("gemm")

    def test_ctrl_c_stops_model(self):
        self.interrupt("model")

    def test_handlers_run_during_the_launch_and_one_that_does_not_raise_lets_it_finish(self):
        script = r"""
import signal, threading, os, time, numpy as np, cdna4jit
seen = []
signal.signal(signal.SIGINT, lambda *args: seen.append(time.monotonic()))
threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
a = np.ones((4096, 2048), np.float32)  # 34 G MACs: seconds on one thread, well past the timer
c = cdna4jit.gemm(a, a.T.copy(), schedule=%r, device=cdna4jit.Device("emulator", threads=1))
end = time.monotonic()
print(int(c[0, 0]), len(seen), seen[0] < end - 0.2)
""" % BASELINE
        run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(run.stdout.split(), ["2048", "1", "True"])


class ByteOrderTest(unittest.TestCase):
    """Big-endian arrays are read as their values."""

    def test_big_endian_operands_give_the_native_result(self):
        a, b = small_integers((40, 64), 1), small_integers((64, 24), 2)
        expected = exact_product(a, b)
        for dtype in (">f4", ">f8"):
            with self.subTest(dtype=dtype):
                c = cdna4jit.gemm(a.astype(dtype), b.astype(dtype), schedule=BASELINE)
                np.testing.assert_array_equal(bits(c), bits(expected))
        c = cdna4jit.gemm(to_bf16_bits(a).astype(">u2"), np.asfortranarray(to_bf16_bits(b).astype(">u2")),
                          schedule=BASELINE)
        np.testing.assert_array_equal(bits(c), bits(expected))
        f16 = os.path.join(SCHEDULES, "baseline_f16_256x256x64_w8.json")
        c = cdna4jit.gemm(a.astype(">f2"), b.astype(">f2"), schedule=f16, out_dtype="float32")
        np.testing.assert_array_equal(bits(c), bits(expected))
        ref = cdna4jit.reference_gemm(a.astype(">f4"), b.astype(">f4"))
        np.testing.assert_array_equal(bits(ref), bits(expected))


class ReferenceChecksTest(unittest.TestCase):
    """reference_gemm checks K and reads uint8 fp4 as one code per element."""

    def test_k_must_agree(self):
        with self.assertRaisesRegex(cdna4jit.Error, "K differs"):
            cdna4jit.reference_gemm(np.ones((8, 16), np.float32), np.ones((32, 8), np.float32))

    def test_fp4_codes_are_one_per_element(self):
        rng = np.random.default_rng(3)
        ca, cb = rng.integers(0, 16, (16, 64), dtype=np.uint8), rng.integers(0, 16, (64, 8), dtype=np.uint8)
        expected = exact_product(FP4_VALUES[ca], FP4_VALUES[cb])
        from_codes = cdna4jit.reference_gemm(ca, cb, type_a="fp4", type_b="fp4")
        from_values = cdna4jit.reference_gemm(FP4_VALUES[ca], FP4_VALUES[cb], type_a="fp4", type_b="fp4")
        np.testing.assert_array_equal(bits(from_codes), bits(expected))
        np.testing.assert_array_equal(bits(from_values), bits(expected))
        with self.assertRaisesRegex(cdna4jit.Error, "element 0 is 16, not a 4-bit fp4 code"):
            cdna4jit.reference_gemm(np.full((16, 64), 16, np.uint8), cb, type_a="fp4", type_b="fp4")


class LaunchChecksTest(unittest.TestCase):
    """Device.launch checks dtypes and shapes against the kernel."""

    def setUp(self):
        self.kernel = cdna4jit.compile(BASELINE, 64, 32, 64, layout="nt")  # A (M, K), B (N, K)
        self.a, self.b = small_integers((64, 64), 4), small_integers((64, 32), 5)
        self.device = cdna4jit.Device("emulator")

    def test_float_values_are_rounded_into_the_kernels_type(self):
        c, _ = self.device.launch(self.kernel, self.a, np.ascontiguousarray(self.b.T))
        np.testing.assert_array_equal(bits(c), bits(exact_product(self.a, self.b)))

    def test_object_arrays_are_refused(self):
        with self.assertRaisesRegex(cdna4jit.Error, "a: dtype object does not hold bf16 elements"):
            self.device.launch(self.kernel, self.a.astype(object), to_bf16_bits(self.b.T))

    def test_shapes_must_be_the_kernels(self):
        with self.assertRaisesRegex(cdna4jit.Error, r"a: expected shape \(M, K\) = \(64, 64\), got \(32, 128\)"):
            self.device.launch(self.kernel, to_bf16_bits(self.a).reshape(32, 128), to_bf16_bits(self.b.T))
        with self.assertRaisesRegex(cdna4jit.Error, r"b: expected shape \(N, K\) = \(32, 64\), got \(64, 32\)"):
            self.device.launch(self.kernel, to_bf16_bits(self.a), to_bf16_bits(self.b))


class RoundOnceTest(unittest.TestCase):
    """float64 values are rounded once, to nearest even, into the element type."""

    def operands(self, value, k=64):
        a = np.zeros((16, k)); a[0, 0] = value
        b = np.zeros((k, 16)); b[0, 0] = 1.0
        return a, b

    def test_bf16(self):
        a, b = self.operands(1 + 2.0 ** -8 + 2.0 ** -30)
        self.assertEqual(cdna4jit.gemm(a, b, schedule=BASELINE, out_dtype="float32")[0, 0], 1.0078125)
        self.assertEqual(cdna4jit.reference_gemm(a, b)[0, 0], 1.0078125)
        a, b = self.operands(1 + 2.0 ** -8)  # a tie stays a tie: to even
        self.assertEqual(cdna4jit.gemm(a, b, schedule=BASELINE)[0, 0], 1.0)

    def test_fp8_and_f16(self):
        a, b = self.operands(1 + 2.0 ** -4 + 2.0 ** -30, k=128)
        self.assertEqual(cdna4jit.reference_gemm(a, b, type_a="fp8", type_b="fp8")[0, 0], 1.125)
        fp8 = os.path.join(SCHEDULES, "baseline_fp8_256x256x128_w8.json")
        self.assertEqual(cdna4jit.gemm(a, b, schedule=fp8, out_dtype="float32")[0, 0], 1.125)
        a, b = self.operands(1 + 2.0 ** -11 + 2.0 ** -40)
        f16 = os.path.join(SCHEDULES, "baseline_f16_256x256x64_w8.json")
        self.assertEqual(cdna4jit.gemm(a, b, schedule=f16, out_dtype="float32")[0, 0], 1 + 2.0 ** -10)


class ModelEpilogueTest(unittest.TestCase):
    """model() with an epilogue, and without the timeline."""

    def test_model_runs_schedules_with_an_epilogue(self):
        s = with_epilogue(BASELINE, c="bf16", bias="n", bias_type="f32", activation="gelu")
        r = cdna4jit.model(s, 512, 512, 512)
        self.assertGreater(r["tflops"], 0)
        self.assertGreater(r["modeled_seconds"], 0)
        scaled = cdna4jit.model(MXFP4, 256, 256, 512)
        self.assertGreater(scaled["tflops"], 0)

    def test_timeline_is_optional(self):
        kept = cdna4jit.model(BASELINE, 256, 256, 4096)
        self.assertIsNotNone(kept["steady_state_mfma_utilization"])
        left_out = cdna4jit.model(BASELINE, 256, 256, 4096, timeline=False)
        self.assertIsNone(left_out["steady_state_mfma_utilization"])
        self.assertEqual(left_out["cycles"], kept["cycles"])


class PythonErrorsTest(unittest.TestCase):
    """What the caller passes is taken as meant, or refused in words."""

    def test_paths_with_braces_bytes_and_pathlib(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "a{1}.json")
            shutil.copy(BASELINE, path)
            self.assertEqual(cdna4jit.load_schedule(path).name, "baseline_256x256x64_w8")
            self.assertEqual(cdna4jit.load_schedule(os.fsencode(path)).name, "baseline_256x256x64_w8")
            self.assertEqual(cdna4jit.load_schedule(pathlib.Path(path)).name, "baseline_256x256x64_w8")
            with self.assertRaises(cdna4jit.ScheduleError) as caught:
                cdna4jit.load_schedule(os.fsencode(os.path.join(d, "missing.json")))
            self.assertNotIn("b'", str(caught.exception))

    def test_device_of_the_wrong_type(self):
        a = np.ones((16, 64), np.float32)
        with self.assertRaisesRegex(cdna4jit.Error, "device: expected 'emulator', 'model', 'hsa' or a cdna4jit.Device, got int"):
            cdna4jit.gemm(a, a.T.copy(), schedule=BASELINE, device=3)

    def test_out_dtype(self):
        a = np.ones((16, 64), np.float32)
        self.assertEqual(cdna4jit.gemm(a, a.T.copy(), schedule=BASELINE, out_dtype=None).dtype, np.float32)
        with self.assertRaises(cdna4jit.Error) as caught:
            cdna4jit.gemm(a, a.T.copy(), schedule=BASELINE, out_dtype=object())
        self.assertIn("out_dtype <object object", str(caught.exception))
        self.assertNotIn("float64", str(caught.exception).split("expected")[0])

    def test_big_integers_and_nan_in_a_dict(self):
        d = cdna4jit.load_schedule(BASELINE).to_dict()
        with self.assertRaises(cdna4jit.ScheduleError) as caught:
            cdna4jit.load_schedule(dict(d, waves=2 ** 63))
        self.assertIn("got 9223372036854775808", str(caught.exception))
        d["tile"]["k"] = float("nan")
        with self.assertRaisesRegex(cdna4jit.ScheduleError, r"^<dict>: tile.k: nan is not a JSON number$"):
            cdna4jit.load_schedule(d)
        d["tile"]["k"] = np.int64(64)
        with self.assertRaisesRegex(cdna4jit.ScheduleError, "tile.k: int64 is not a JSON type"):
            cdna4jit.load_schedule(d)

    def test_fp4_and_fp6_codes_run_from_gemm_with_scales(self):
        rng = np.random.default_rng(7)
        m, n, k = 48, 40, 128
        for path, bits_ in ((MXFP4, 4), (MXFP6, 6)):
            with self.subTest(schedule=os.path.basename(path)):
                a = rng.integers(0, 1 << bits_, (m, k), dtype=np.uint8)
                b = rng.integers(0, 1 << bits_, (k, n), dtype=np.uint8)
                sa = rng.integers(120, 134, (m, k // 32), dtype=np.uint8)
                sb = rng.integers(120, 134, (k // 32, n), dtype=np.uint8)
                c = cdna4jit.gemm(a, b, schedule=path, a_scale=sa, b_scale=sb)
                ref = cdna4jit.reference_gemm(a, b, schedule=path, a_scale=sa, b_scale=sb)
                np.testing.assert_array_equal(bits(c), bits(ref))
                self.assertTrue(np.isfinite(c).all() and (c != 0).any())
                ones = np.full_like(sa, 127), np.full_like(sb, 127)
                plain = cdna4jit.reference_gemm(a, b, type_a="fp%d" % bits_, type_b="fp%d" % bits_)
                np.testing.assert_array_equal(bits(cdna4jit.gemm(a, b, schedule=path, a_scale=ones[0], b_scale=ones[1])),
                                              bits(plain))
        a, b = rng.integers(0, 256, (m, k), dtype=np.uint8) & 0x77, rng.integers(0, 16, (k, n), dtype=np.uint8)
        c = cdna4jit.gemm(a, np.asfortranarray(b), schedule=FP8XFP4)
        np.testing.assert_array_equal(bits(c), bits(cdna4jit.reference_gemm(a, b, type_a="fp8", type_b="fp4")))

    def test_epilogue_from_gemm_matches_the_reference(self):
        rng = np.random.default_rng(8)
        m, n, k = 70, 90, 64
        a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
        for epilogue, extra in (
            (dict(c="bf16", bias="n", bias_type="f32", activation="relu"),
             dict(c=to_bf16_bits(np.round(rng.standard_normal((m, n)) * 8) / 8), bias=rng.standard_normal(n),
                  alpha=0.5, beta=-2.0)),
            (dict(c="f32", bias="m", bias_type="bf16", activation="gelu"),
             dict(c=rng.standard_normal((m, n)).astype(np.float32), bias=rng.standard_normal(m))),
            (dict(c="none", bias="none", activation="silu"), dict(alpha=3.0)),
        ):
            with self.subTest(**epilogue):
                s = with_epilogue(BASELINE, **epilogue)
                c = cdna4jit.gemm(a, b, schedule=s, out_dtype="float32", **extra)
                ref = cdna4jit.reference_gemm(a, b, schedule=s, out_dtype="float32", **extra)
                np.testing.assert_array_equal(bits(c), bits(ref))
        # relu(0.5 * A B - 2 C + bias) against NumPy, loosely (A, B rounded to bf16).
        s = with_epilogue(BASELINE, c="f32", bias="n", bias_type="f32", activation="relu")
        cin, bias = rng.standard_normal((m, n)).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        c = cdna4jit.gemm(a, b, schedule=s, c=cin, bias=bias, alpha=0.5, beta=-2.0)
        np.testing.assert_allclose(c, np.maximum(0.5 * (a @ b) - 2 * cin + bias, 0), rtol=0.05, atol=0.1)

    def test_extras_are_checked_against_the_schedule(self):
        a, b = np.ones((16, 128), np.float32), np.ones((128, 16), np.float32)
        s = with_epilogue(BASELINE, c="f32", bias="m", bias_type="f32")
        cases = [
            (dict(schedule=BASELINE, c=np.ones((16, 16), np.float32)), "has no fused epilogue"),
            (dict(schedule=BASELINE, alpha=2.0), "has no fused epilogue"),
            (dict(schedule=s, bias=np.ones(16)), r"epilogue reads C \(f32\): pass c="),
            (dict(schedule=s, c=np.ones((16, 16))), r"pass bias= as a \(M,\) array of f32"),
            (dict(schedule=s, c=np.ones((16, 8)), bias=np.ones(16)), r"c: expected shape \(M, N\) = \(16, 16\), got \(16, 8\)"),
            (dict(schedule=s, c=np.ones((16, 16)), bias=np.ones(8)), r"bias: expected shape \(M,\) = \(16,\), got \(8,\)"),
            (dict(schedule=s, c=np.ones((16, 16)), bias=np.ones(16), alpha=1e-50), "alpha = 1e-50 underflows fp32"),
            (dict(schedule=s, c=np.ones((16, 16)), bias=np.ones(16), beta=1e39), "beta = 1e\\+39 is beyond fp32's range"),
            (dict(schedule=s, c=np.ones((16, 16)), bias=np.ones(16), alpha="2"), "alpha: expected a number, got str"),
            (dict(schedule=MXFP4), r"is MX-scaled \(v_mfma_scale_\*\): pass a_scale="),
            (dict(schedule=BASELINE, a_scale=np.ones((16, 4), np.uint8)), "takes no scales"),
            (dict(schedule=MXFP4, a_scale=np.ones((16, 4), np.float32), b_scale=np.ones((4, 16), np.uint8)),
             "a_scale: dtype float32 does not hold E8M0 scales"),
            (dict(schedule=MXFP4, a_scale=np.ones((16, 2), np.uint8), b_scale=np.ones((4, 16), np.uint8)),
             r"a_scale: expected shape \(M, K/32\) = \(16, 4\), got \(16, 2\)"),
        ]
        for kwargs, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(cdna4jit.Error, message):
                    cdna4jit.gemm(a, b, **kwargs)
        big = cdna4jit.gemm(a, b, schedule=s, c=np.zeros((16, 16)), bias=np.zeros(16), alpha=3.4028234e38 / 256)
        self.assertEqual(big[0, 0], np.float32(3.4028234e38 / 2))


class DeviceLimitsTest(unittest.TestCase):
    """Device() sets the emulator's time and instruction limits."""

    def test_time_limit(self):
        a = np.ones((2048, 2048), np.float32)  # 8.6 G MACs: about 0.4 s on one thread, eight times the limit
        quick = cdna4jit.Device("emulator", threads=1, time_limit=0.05)
        with self.assertRaisesRegex(cdna4jit.LimitError, "time limit of 0.05 s exceeded"):
            cdna4jit.gemm(a, a, schedule=BASELINE, device=quick)
        self.assertTrue(issubclass(cdna4jit.LimitError, cdna4jit.Error))
        small = np.ones((16, 64), np.float32)
        for limit in (None, 1200.0, float("inf")):
            c = cdna4jit.gemm(small, small.T.copy(), schedule=BASELINE, device=cdna4jit.Device(time_limit=limit))
            self.assertEqual(c[0, 0], 64)
        for bad in (0, -1.0, float("nan")):
            with self.assertRaisesRegex(cdna4jit.Error, "time_limit = .*: expected seconds > 0, or None"):
                cdna4jit.Device(time_limit=bad)

    def test_instruction_budget(self):
        a = np.ones((256, 256), np.float32)
        with self.assertRaisesRegex(cdna4jit.LimitError, "instruction budget of 1000 wave-instructions"):
            cdna4jit.gemm(a, a, schedule=BASELINE, device=cdna4jit.Device(max_instructions=1000))

    def test_trace_memory_bound(self):
        a = np.ones((256, 256), np.float32)
        tight = cdna4jit.Device("model", max_trace_bytes=4096)
        with self.assertRaisesRegex(cdna4jit.LimitError, "4096"):
            cdna4jit.gemm(a, a, schedule=BASELINE, device=tight)


class CompileCacheTest(unittest.TestCase):
    """clear_compile_cache() empties the cache: the next compile of a shape is not a hit."""

    def test_clear(self):
        cdna4jit.compile(BASELINE, 64, 64, 64)
        self.assertTrue(cdna4jit.compile(BASELINE, 64, 64, 64).stats["cached"])
        cdna4jit.clear_compile_cache()
        self.assertFalse(cdna4jit.compile(BASELINE, 64, 64, 64).stats["cached"])


if __name__ == "__main__":
    unittest.main()
