"""cdna4jit.attention on the emulator, with Debian's python3 and NumPy.

Every result is compared bit for bit with the library's policy reference
(cdna4jit.reference_attention, the blocked online softmax the kernel follows)
and with a float64 attention written here in NumPy, within docs/attention.md's
tolerance as cdna4jit.attention_tolerance gives it (tools/attention_check.hpp,
the bound cdna4-attn --check and the C++ tests apply), per element of O and LSE.
"""
import os
import unittest

import numpy as np

import cdna4jit

SCHEDULES = os.environ.get("CDNA4_SCHEDULES", os.path.join(os.path.dirname(__file__), "..", "..", "schedules"))


def bf16_bits(x):
    """float32 values -> bf16 bit patterns (uint16), round to nearest even (no NaNs here)."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def attention_f64(q, k, v, causal, scale):
    """q [B, Nq, H, D], k, v [B, Nk, Hkv, D] float64 -> O [B, Nq, H, D], LSE [B, H, Nq] (bottom-right causal)."""
    b, nq, h, d = q.shape
    nk, hkv = k.shape[1], k.shape[2]
    group = h // hkv
    kk = np.repeat(k, group, axis=2)  # key/value head h // group
    vv = np.repeat(v, group, axis=2)
    s = np.einsum("bihd,bjhd->bhij", q, kk) * scale
    if causal:
        visible = np.arange(nk)[None, :] <= np.arange(nq)[:, None] + nk - nq
        s = np.where(visible[None, None], s, -np.inf)
    top = s.max(axis=-1, keepdims=True)
    seen = np.isfinite(top)
    e = np.where(seen, np.exp(s - np.where(seen, top, 0)), 0)
    total = e.sum(axis=-1, keepdims=True)
    p = np.where(total > 0, e / np.where(total > 0, total, 1), 0)
    o = np.einsum("bhij,bjhd->bihd", p, vv)
    with np.errstate(divide="ignore"):
        lse = np.where(seen[..., 0], top[..., 0] + np.log(np.where(total[..., 0] > 0, total[..., 0], 1)), -np.inf)
    return o, lse


def tensors(b, nq, nk, h, hkv, d, seed):
    rng = np.random.default_rng(seed)
    return [bf16_bits(rng.standard_normal(shape).astype(np.float32))
            for shape in ((b, nq, h, d), (b, nk, hkv, d), (b, nk, hkv, d))]


class AttentionTest(unittest.TestCase):
    def check(self, q, k, v, causal=False, scale=None, **kw):
        """Runs attention on q, k, v (uint16 bits), checks it against both references; returns (o, lse)."""
        o, lse = cdna4jit.attention(q, k, v, causal=causal, scale=scale, return_lse=True, **kw)
        want_o, want_lse = cdna4jit.reference_attention(q, k, v, causal=causal, scale=scale, return_lse=True,
                                                        schedule=kw.get("schedule"))
        self.assertEqual(o.dtype, np.float32)
        self.assertEqual(o.shape, q.shape)
        self.assertEqual(lse.shape, (q.shape[0], q.shape[2], q.shape[1]))
        np.testing.assert_array_equal(o.view(np.uint32), want_o.view(np.uint32))
        np.testing.assert_array_equal(lse.view(np.uint32), want_lse.view(np.uint32))
        d = q.shape[3]
        s = np.float64(np.float32(1 / np.sqrt(d)) if scale is None else np.float32(scale))
        o64, lse64 = attention_f64(bf16_values(q), bf16_values(k), bf16_values(v), causal, s)
        o_tol, lse_tol = cdna4jit.attention_tolerance(q, k, v, causal=causal, scale=scale)
        self.assertEqual(o_tol.shape, o.shape)
        self.assertEqual(lse_tol.shape, lse.shape)
        self.assertTrue(np.all(np.abs(o - o64) <= o_tol))
        finite = np.isfinite(lse64)
        np.testing.assert_array_equal(lse[~finite], lse64[~finite])  # -inf where a row sees no key
        self.assertTrue(np.all(np.abs(lse[finite] - lse64[finite]) <= lse_tol[finite]))
        return o, lse

    def test_shapes_of_every_kind(self):
        cases = [
            (1, 1, 1, 2, 2, 64, False),     # one query, one key
            (1, 1, 300, 8, 1, 128, False),  # MQA
            (2, 63, 65, 8, 1, 128, True),   # GQA 8:1, causal Nq < Nk, a batch
            (1, 65, 63, 2, 2, 64, True),    # causal Nq > Nk: two rows see nothing
            (1, 127, 127, 2, 1, 64, False),
        ]
        for i, (b, nq, nk, h, hkv, d, causal) in enumerate(cases):
            with self.subTest(shape=(b, nq, nk, h, hkv, d), causal=causal):
                o, lse = self.check(*tensors(b, nq, nk, h, hkv, d, i), causal=causal)
                if causal and nq > nk:
                    self.assertTrue(np.all(lse[:, :, : nq - nk] == -np.inf))
                    self.assertTrue(np.all(o[:, : nq - nk] == 0))

    def test_tolerance_refuses_wrong_results(self):
        q, k, v = tensors(2, 63, 65, 8, 1, 128, 3)
        o64, lse64 = attention_f64(bf16_values(q), bf16_values(k), bf16_values(v), True, np.float64(np.float32(128 ** -0.5)))
        o_tol, lse_tol = cdna4jit.attention_tolerance(q, k, v, causal=True)
        o, lse = cdna4jit.reference_attention(q, k, v, causal=True, return_lse=True)
        self.assertTrue(np.all(np.abs(o - o64) <= o_tol))
        self.assertTrue(np.any(np.abs(0.99 * o - o64) > o_tol))
        # Key 0 dropped (the bottom-right causal mask keeps the other keys of each row).
        o_dropped, lse_dropped = cdna4jit.reference_attention(q, k[:, 1:], v[:, 1:], causal=True, return_lse=True)
        self.assertTrue(np.any(np.abs(o_dropped - o64) > o_tol))
        self.assertTrue(np.any(np.abs(lse_dropped - lse64) > lse_tol))

    def test_float32_is_rounded_once_to_bf16(self):
        rng = np.random.default_rng(7)
        q, k, v = (rng.standard_normal(s).astype(np.float32) for s in ((1, 40, 2, 64), (1, 50, 2, 64), (1, 50, 2, 64)))
        o = cdna4jit.attention(q, k, v, scale=0.25)
        o_bits = cdna4jit.attention(bf16_bits(q), bf16_bits(k), bf16_bits(v), scale=0.25)
        np.testing.assert_array_equal(o.view(np.uint32), o_bits.view(np.uint32))
        self.check(bf16_bits(q), bf16_bits(k), bf16_bits(v), scale=0.25)

    def test_strided_views_read_in_place_or_copied(self):
        q, k, v = tensors(2, 70, 90, 4, 2, 128, 11)
        packed = cdna4jit.attention(q, k, v, causal=True)
        # BHSD storage seen as [B, S, H, D]: strides the kernel takes as they are.
        bhsd = [np.ascontiguousarray(x.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3) for x in (q, k, v)]
        self.assertFalse(bhsd[0].flags.c_contiguous)
        np.testing.assert_array_equal(cdna4jit.attention(*bhsd, causal=True).view(np.uint32), packed.view(np.uint32))
        # Every other row of a larger buffer, and reversed keys (negative strides: copied).
        wide = np.zeros((2, 140, 4, 128), np.uint16)
        wide[:, ::2] = q
        np.testing.assert_array_equal(cdna4jit.attention(wide[:, ::2], k, v, causal=True).view(np.uint32),
                                      packed.view(np.uint32))
        flipped = cdna4jit.attention(q, k[:, ::-1], v[:, ::-1])
        expected = cdna4jit.reference_attention(q, np.ascontiguousarray(k[:, ::-1]), np.ascontiguousarray(v[:, ::-1]))
        np.testing.assert_array_equal(flipped.view(np.uint32), expected.view(np.uint32))
        self.check(*bhsd, causal=True)

    def test_schedule_argument_and_devices(self):
        q, k, v = tensors(1, 33, 40, 2, 1, 64, 5)
        path = os.path.join(SCHEDULES, "attention", "attn_fwd_d64.json")
        with open(path) as f:
            text = f.read()
        default = cdna4jit.attention(q, k, v)
        for schedule in (path, text):
            np.testing.assert_array_equal(cdna4jit.attention(q, k, v, schedule=schedule).view(np.uint32),
                                          default.view(np.uint32))
        on_device = cdna4jit.attention(q, k, v, device=cdna4jit.Device("emulator", timed=True))
        np.testing.assert_array_equal(on_device.view(np.uint32), default.view(np.uint32))
        o = cdna4jit.attention(q, k, v, return_lse=False)
        self.assertIsInstance(o, np.ndarray)

    def test_bad_input_raises_error_in_words(self):
        q, k, v = tensors(1, 16, 16, 4, 2, 64, 3)
        cases = [
            ((q[..., :32], k[..., :32], v[..., :32]), {}, "D must be 64 or 128, got 32"),
            ((q[:, :, :3], k, v), {}, r"H \(3\) must be a multiple of Hkv \(2\)"),
            ((q, k, v[:, :8]), {}, "k and v must have one shape"),
            ((q[:, :, :, :32], k, v), {}, "must agree on B"),
            ((q[0], k, v), {}, r"q: expected a 4-dimensional array \[B, Nq, H, D\], got shape \(16, 4, 64\)"),
            ((q.astype(np.int32), k, v), {}, "q: dtype int32 does not hold bf16 elements"),
            ((q, k, v), {"causal": 1}, "causal: expected True or False, got int"),
            ((q, k, v), {"scale": -1.0}, "the softmax scale must be finite and positive"),
            ((q, k, v), {"scale": "big"}, "scale: expected a number, got str"),
            ((q, k, v), {"device": "gpu"}, "gpu"),
            ((q, k, v), {"schedule": os.path.join(SCHEDULES, "baseline_256x256x64_w8.json")}, "GEMM schedule"),
        ]
        for args, kw, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(cdna4jit.Error, message):
                    cdna4jit.attention(*args, **kw)


if __name__ == "__main__":
    unittest.main()
