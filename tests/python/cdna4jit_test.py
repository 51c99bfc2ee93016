"""cdna4jit (the Python package) on the emulator, with Debian's python3 and NumPy.

Small-integer data makes every partial sum exact in fp32, so NumPy's float64
product rounded to float32 is the exact answer any summation order gives: the
kernel must match it bit for bit. Random data is compared bit for bit with the
library's CPU reference (one fp32 FMA chain per element in k order, the
emulator's MFMA policy) and, loosely, with NumPy.
"""
import json
import os
import subprocess
import sys
import unittest

import numpy as np

import cdna4jit

SCHEDULES = os.environ.get("CDNA4_SCHEDULES", os.path.join(os.path.dirname(__file__), "..", "..", "schedules"))


def schedule_path(name):
    return os.path.join(SCHEDULES, name)


def small_integers(shape, seed):
    return np.random.default_rng(seed).integers(-4, 5, size=shape).astype(np.float32)


def bits(array):
    return np.ascontiguousarray(array).view(np.uint8)


class ScheduleTest(unittest.TestCase):
    def test_version_is_the_projects(self):
        self.assertRegex(cdna4jit.__version__, r"^\d+\.\d+\.\d+$")

    def test_load_from_path_text_and_dict(self):
        path = schedule_path("baseline_256x256x64_w8.json")
        s = cdna4jit.load_schedule(path)
        self.assertEqual(s.name, "baseline_256x256x64_w8")
        self.assertEqual(s.tile, (256, 256, 64))
        with open(path) as f:
            text = f.read()
        self.assertEqual(cdna4jit.load_schedule(text).to_json(), s.to_json())
        self.assertEqual(cdna4jit.load_schedule(json.loads(text)).to_dict(), s.to_dict())

    def test_verify_returns_the_verdict_and_the_plan(self):
        report = cdna4jit.verify(schedule_path("tilelang_ns2_128x128x64_w4.json"))
        self.assertTrue(report["accepted"])
        self.assertEqual(report["findings"], [])
        self.assertGreater(len(report["planned"]["ops"]), 0)  # the planner filled in the ops
        buggy = cdna4jit.verify(schedule_path("fixtures/seed001_interleave4_buggy.json"))
        self.assertFalse(buggy["accepted"])
        self.assertIn("war-race", [f["rule"] for f in buggy["findings"]])

    def test_bad_schedules_raise_schedule_error_naming_the_field(self):
        d = cdna4jit.load_schedule(schedule_path("baseline_256x256x64_w8.json")).to_dict()
        d["waves"] = 6
        with self.assertRaisesRegex(cdna4jit.ScheduleError, "waves"):
            cdna4jit.load_schedule(d)
        with self.assertRaises(cdna4jit.ScheduleError) as caught:
            cdna4jit.compile(schedule_path("fixtures/seed001_interleave4_buggy.json"), 256, 256, 256)
        self.assertIn("war-race", str(caught.exception))
        self.assertIn("war-race", [rule for rule, op, message in caught.exception.findings])
        self.assertTrue(issubclass(cdna4jit.ScheduleError, cdna4jit.Error))


class CompileTest(unittest.TestCase):
    def test_kernel_carries_code_object_assembly_and_stats(self):
        k = cdna4jit.compile(schedule_path("baseline_256x256x64_w8.json"), 512, 256, 128)
        self.assertTrue(k.hsaco.startswith(b"\x7fELF"))
        self.assertIn("v_mfma_f32_16x16x32_bf16", k.assembly)
        self.assertEqual(k.grid, (1, 2, 1))
        self.assertEqual(k.block, 512)
        self.assertGreater(k.stats["instructions"], 0)
        self.assertEqual(k.stats["mfma"], k.assembly.count("v_mfma_f32_16x16x32_bf16"))
        self.assertEqual(k.layout, "nt")

    def test_shapes_the_kernel_cannot_take_raise_error(self):
        with self.assertRaisesRegex(cdna4jit.Error, "K must be a multiple of 8"):
            cdna4jit.compile(schedule_path("baseline_256x256x64_w8.json"), 64, 64, 12)
        with self.assertRaisesRegex(cdna4jit.Error, "layout"):
            cdna4jit.compile(schedule_path("baseline_256x256x64_w8.json"), 64, 64, 64, layout="xy")


class GemmTest(unittest.TestCase):
    def test_small_integers_match_numpy_bit_for_bit(self):
        a, b = small_integers((70, 64), 1), small_integers((64, 90), 2)
        c = cdna4jit.gemm(a, b, schedule=schedule_path("baseline_256x256x64_w8.json"))
        self.assertEqual(c.dtype, np.float32)
        self.assertEqual(c.shape, (70, 90))
        expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        np.testing.assert_array_equal(bits(c), bits(expected))

    def test_fortran_order_is_read_as_the_transposed_layout(self):
        a, b = small_integers((48, 40), 3), small_integers((40, 72), 4)
        expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        s = schedule_path("tilelang_ns2_128x128x64_w4.json")
        for fa in (False, True):
            for fb in (False, True):
                aa = np.asfortranarray(a) if fa else a
                bb = np.asfortranarray(b) if fb else b
                with self.subTest(a_fortran=fa, b_fortran=fb):
                    np.testing.assert_array_equal(bits(cdna4jit.gemm(aa, bb, schedule=s)), bits(expected))
        with self.assertRaisesRegex(cdna4jit.Error, "contiguous"):
            cdna4jit.gemm(a[:, ::2], b[::2, :], schedule=s)

    def test_random_data_matches_the_reference_in_every_output_type(self):
        rng = np.random.default_rng(5)
        a = rng.standard_normal((130, 96)).astype(np.float32)
        b = rng.standard_normal((96, 70)).astype(np.float32)
        device = cdna4jit.Device("emulator", seed=3)
        s = cdna4jit.load_schedule(schedule_path("baseline_256x256x64_w8.json"))
        for out in ("float32", "bfloat16", "float16", np.float32):
            with self.subTest(out_dtype=str(out)):
                c = cdna4jit.gemm(a, b, schedule=s, device=device, out_dtype=out)
                ref = cdna4jit.reference_gemm(a, b, out_dtype=out)
                self.assertEqual(c.dtype, ref.dtype)
                np.testing.assert_array_equal(bits(c), bits(ref))
        # bf16 bit patterns in, and the result is a GEMM (inputs rounded to bf16).
        a16 = (a.view(np.uint32) + 0x7FFF + ((a.view(np.uint32) >> 16) & 1)) >> 16
        c16 = cdna4jit.gemm(a16.astype(np.uint16), b, schedule=s)
        np.testing.assert_array_equal(bits(c16), bits(cdna4jit.gemm(a, b, schedule=s)))
        np.testing.assert_allclose(c16, a @ b, rtol=0.05, atol=0.5)

    def test_fp8_schedule_takes_float32_values(self):
        a, b = small_integers((64, 128), 6), small_integers((128, 48), 7)
        c = cdna4jit.gemm(a, b, schedule=schedule_path("baseline_fp8_256x256x128_w8.json"), out_dtype="bfloat16")
        expected = cdna4jit.reference_gemm(a, b, type_a="fp8", type_b="fp8", out_dtype="bfloat16")
        self.assertEqual(c.dtype, np.uint16)
        np.testing.assert_array_equal(c, expected)

    def test_mismatched_operands_raise_error(self):
        s = schedule_path("baseline_256x256x64_w8.json")
        with self.assertRaisesRegex(cdna4jit.Error, "K differs"):
            cdna4jit.gemm(np.zeros((8, 16), np.float32), np.zeros((8, 8), np.float32), schedule=s)
        with self.assertRaisesRegex(cdna4jit.Error, "dtype int32"):
            cdna4jit.gemm(np.zeros((8, 16), np.int32), np.zeros((16, 8), np.float32), schedule=s)
        with self.assertRaisesRegex(cdna4jit.Error, "out_dtype"):
            cdna4jit.gemm(np.zeros((8, 16), np.float32), np.zeros((16, 8), np.float32), schedule=s, out_dtype="int8")


class DeviceTest(unittest.TestCase):
    def test_launch_takes_operands_in_the_kernels_layout(self):
        a, b = small_integers((64, 64), 8), small_integers((64, 64), 9)
        k = cdna4jit.compile(schedule_path("baseline_256x256x64_w8.json"), 64, 64, 64, layout="nt")
        to_bf16 = lambda x: (x.view(np.uint32) >> 16).astype(np.uint16)  # small integers are exact in bf16
        device = cdna4jit.Device("emulator")
        self.assertEqual(device.name, "emulator")
        c, stats = device.launch(k, to_bf16(a), to_bf16(np.ascontiguousarray(b.T)))  # nt: B as N x K
        np.testing.assert_array_equal(c, (a.astype(np.float64) @ b).astype(np.float32))
        self.assertEqual(stats["races"], [])
        self.assertGreater(stats["instructions"], 0)

    def test_mfma_policy_chooses_the_arithmetic_and_the_reference_follows(self):
        rng = np.random.default_rng(12)
        a = rng.standard_normal((64, 96)).astype(np.float32)
        b = rng.standard_normal((96, 48)).astype(np.float32)
        s = schedule_path("baseline_256x256x64_w8.json")
        fused = cdna4jit.Device("emulator", mfma_policy="cdna3-fused-groups")
        c = cdna4jit.gemm(a, b, schedule=s, device=fused)
        ref = cdna4jit.reference_gemm(a, b, mfma_policy="cdna3-fused-groups")
        np.testing.assert_array_equal(c.view(np.uint32), ref.view(np.uint32))
        chained = cdna4jit.reference_gemm(a, b)
        self.assertTrue((ref.view(np.uint32) != chained.view(np.uint32)).any())
        with self.assertRaisesRegex(cdna4jit.Error, "fp32-fma-chain-k-order or cdna3-fused-groups"):
            cdna4jit.Device("emulator", mfma_policy="exact")

    def test_timed_mode_gives_the_same_bits(self):
        a, b = small_integers((256, 64), 12), small_integers((64, 256), 13)
        s = schedule_path("baseline_256x256x64_w8.json")
        timed = cdna4jit.gemm(a, b, schedule=s, device=cdna4jit.Device("emulator", timed=True))
        np.testing.assert_array_equal(timed, (a.astype(np.float64) @ b).astype(np.float32))
        with self.assertRaises(TypeError):
            cdna4jit.Device("emulator", timed="yes")

    def test_model_device_reports_modeled_time(self):
        a, b = small_integers((256, 64), 10), small_integers((64, 256), 11)
        k = cdna4jit.compile(schedule_path("baseline_256x256x64_w8.json"), 256, 256, 64, layout="nn")
        to_bf16 = lambda x: (x.view(np.uint32) >> 16).astype(np.uint16)
        c, stats = cdna4jit.Device("model", instant=True).launch(k, to_bf16(a), to_bf16(b))
        np.testing.assert_array_equal(c, (a.astype(np.float64) @ b).astype(np.float32))
        self.assertGreater(stats["modeled_seconds"], 0)


class ExampleTest(unittest.TestCase):
    def test_compare_schedules_example_runs_and_agrees(self):
        script = os.path.join(os.path.dirname(__file__), "..", "..", "python", "examples", "compare_schedules.py")
        run = subprocess.run([sys.executable, script, "128", "96", "64"], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("outputs identical bit for bit", run.stdout)
        self.assertEqual(run.stdout.count(" ms ("), 2)


if __name__ == "__main__":
    unittest.main()
