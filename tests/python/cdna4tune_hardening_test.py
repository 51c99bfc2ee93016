"""cdna4-tune under hostile input, signals and concurrency: outputs stay in their directory, reads are bounded,
samples are drawn without listing the product, one run per directory, outputs are replaced whole, workers end
with the command, and every bad input ends with exit status 2 and one line of reason."""
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import cdna4tune
from cdna4tune_test import SCHEDULES, write_space, without_timings

TOOL = os.environ.get("CDNA4_TUNE")
BASE = os.path.abspath(os.path.join(SCHEDULES, "baseline_256x256x64_w8.json"))
SLOW = "4096x4096x4096"  # several seconds per candidate on the model


def limit_memory():
    """Children get 2 GiB of address space: an unbounded read or product ends in MemoryError, not the OOM killer."""
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def tool(*args, timeout=120, cwd=None):
    assert TOOL and os.access(TOOL, os.X_OK), "CDNA4_TUNE must name the built cdna4-tune"
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=timeout, preexec_fn=limit_memory,
                          cwd=cwd)


def children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return out


def running(pid):
    """Alive and not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(condition, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


class ToolCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.started = []

    def tearDown(self):
        for pid in self.started:  # what a failing check left running
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)

    def space(self, **fields):
        return write_space(self.dir, **fields)

    def assert_refused(self, r, reason):
        """Exit status 2, one line naming the reason, no traceback."""
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn(reason, lines[0])

    def start(self, *args):
        proc = subprocess.Popen([TOOL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=limit_memory)
        self.started.append(proc.pid)
        return proc


class EscapeAndBoundsTest(ToolCase):
    """Outputs stay in their directory; reads are bounded; a huge space is sampled without listing it."""

    def test_space_names_cannot_leave_the_output_directory(self):
        work = os.path.join(self.dir, "a", "b")
        os.makedirs(work)
        for name in ("../../escaped", "/tmp/cdna4tune-absolute", "..", "x/y", "a\\b", ""):
            space = write_space(work, name=name)
            r = tool(space, "--write-candidates", os.path.join(work, "cands"), cwd=work)
            self.assert_refused(r, "no path separators")
            r = tool(space, "--shapes", "512x512x512", "--quiet", cwd=work)  # the default -o is tune-<name>
            self.assert_refused(r, "no path separators")
        self.assertEqual(sorted(os.listdir(self.dir)), ["a"])
        self.assertEqual(sorted(os.listdir(work)), ["space.json"])
        self.assertFalse(os.path.exists("/tmp/cdna4tune-absolute_00002.json"))

    def test_base_and_space_are_read_bounded(self):
        fifo = os.path.join(self.dir, "fifo")
        os.mkfifo(fifo)
        big = os.path.join(self.dir, "big.json")
        with open(big, "wb") as f:
            f.truncate(64 << 20)  # sparse: 64 MiB of zero bytes
        for base, reason in ((fifo, "not a regular file"), ("/dev/zero", "not a regular file"),
                             (self.dir, "not a regular file"), (big, "bytes, more than")):
            start = time.time()
            r = tool(self.space(base=base), "--write-candidates", os.path.join(self.dir, "c"), timeout=30)
            self.assert_refused(r, reason)
            self.assertLess(time.time() - start, 20)
        for space in (fifo, "/dev/zero", big, self.dir):
            self.assert_refused(tool(space, "--quiet", timeout=30), "")

    def test_a_sample_of_a_huge_space_is_drawn_without_listing_it(self):
        knobs = {name: list(range(1, 11)) for name in ("lds_buffers", "num_stages", "g2s_phase_shift",
                                                       "s2r_phase_shift", "group_m")}
        knobs["wave_grid"] = [{"m": i} for i in range(10)]
        knobs.update(s2r_lead=list(range(10)), g2s_spread=[[p] for p in range(10)], mfma=[str(i) for i in range(10)],
                     waits=["keep", "plan"] * 5, setprio=["keep", "drop"] * 5, tile=[{"m": i} for i in range(10)])
        path = self.space(knobs=knobs, exclude=[{"waits": "plan"}], sample=5, seed=3)
        code = ("import cdna4tune, json, sys; s = cdna4tune.load_space(sys.argv[1]); "
                "print(json.dumps([c for c, _ in cdna4tune.candidates(s)]))")
        start = time.time()
        r = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, timeout=60,
                           preexec_fn=limit_memory)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(time.time() - start, 30)
        ids = json.loads(r.stdout)
        self.assertEqual(len(set(ids)), 5)
        self.assertTrue(all(0 <= i < 10**12 for i in ids))
        space = cdna4tune.load_space(path)
        self.assertEqual(cdna4tune.space_size(space), 10**12)
        self.assertEqual([c for c, _ in cdna4tune.candidates(space)], ids)  # seeded
        for cid, assignment in cdna4tune.candidates(space):
            self.assertEqual(assignment["waits"], "keep")  # the exclusions hold
            self.assertEqual(assignment, cdna4tune.assignment_of(space, cid))
        del space["sample"]
        with self.assertRaisesRegex(cdna4tune.SpaceError, "set 'sample'"):
            cdna4tune.candidates(space)

    def test_ids_are_indices_into_the_product(self):
        import itertools
        space = cdna4tune.load_space(self.space(knobs={"lds_buffers": [1, 2, 3], "waits": ["keep", "plan"],
                                                       "group_m": [None, 4, 8, 16]}, exclude=[]))
        product = [dict(zip(space["knobs"], v)) for v in itertools.product(*space["knobs"].values())]
        self.assertEqual([cdna4tune.assignment_of(space, i) for i in range(24)], product)


class ProcessTest(ToolCase):
    """Workers end with the command; one run per output directory."""

    def start_slow(self, out, workers):
        proc = self.start(self.space(), "--shapes", SLOW, "-o", out, "-j", str(workers), "--quiet")
        self.assertTrue(wait_until(lambda: os.path.exists(os.path.join(out, "search.json")), 60), "no search started")
        return proc

    def check_workers_end_with(self, sig):
        out = os.path.join(self.dir, "out")
        proc = self.start_slow(out, 2)
        self.assertTrue(wait_until(lambda: len(children(proc.pid)) >= 2, 30), "no worker processes")
        workers = children(proc.pid)
        self.started += workers
        time.sleep(0.5)
        proc.send_signal(sig)
        proc.communicate(timeout=30)
        self.assertTrue(wait_until(lambda: not any(running(w) for w in workers), 10),
                        f"workers {[w for w in workers if running(w)]} outlived cdna4-tune")
        return proc

    def test_workers_die_with_a_killed_command(self):
        self.check_workers_end_with(signal.SIGKILL)

    def test_workers_stop_on_sigterm(self):
        proc = self.check_workers_end_with(signal.SIGTERM)
        self.assertEqual(proc.returncode, 128 + signal.SIGTERM)

    def test_workers_have_their_own_process_group(self):
        out = os.path.join(self.dir, "out")
        proc = self.start_slow(out, 2)
        self.assertTrue(wait_until(lambda: len(children(proc.pid)) >= 2, 30), "no worker processes")
        time.sleep(0.5)
        self.started += children(proc.pid)
        for w in children(proc.pid):
            self.assertNotEqual(os.getpgid(w), os.getpgid(proc.pid))
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)

    def test_a_second_run_in_the_same_directory_is_refused(self):
        out = os.path.join(self.dir, "out")
        first = self.start_slow(out, 1)  # one process: no workers
        start = time.time()
        second = tool(self.space(), "--shapes", SLOW, "-o", out, "-j", "1", "--quiet", timeout=30)
        self.assert_refused(second, f"in use by another cdna4-tune (pid {first.pid})")
        self.assertLess(time.time() - start, 20)
        first.kill()
        first.communicate()
        with open(os.path.join(out, cdna4tune.DirectoryLock.NAME)) as f:
            self.assertEqual(int(f.read().split()[0]), first.pid)  # left behind by kill -9
        with cdna4tune.DirectoryLock(out):  # the dead owner's lock is taken over
            pass
        self.assertFalse(os.path.exists(os.path.join(out, cdna4tune.DirectoryLock.NAME)))

    def test_a_stale_lock_is_taken_over(self):
        out = os.path.join(self.dir, "out")
        os.makedirs(out)
        gone = subprocess.Popen(["true"])
        gone.wait()
        with open(os.path.join(out, cdna4tune.DirectoryLock.NAME), "w") as f:
            f.write(f"{gone.pid} {socket.gethostname()}\n")
        r = tool(self.space(), "--shapes", "512x512x512", "-o", out, "-j", "1", "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"took over the stale lock of {out} (pid {gone.pid}, no longer running)", r.stderr)


class DaskTest(ToolCase):
    """A Dask scheduler that cannot serve fails clearly and in bounded time."""

    def test_a_closed_port_fails_fast(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        start = time.time()
        r = tool(self.space(), "--shapes", "512x512x512", "-o", os.path.join(self.dir, "o"), "--scheduler",
                 f"tcp://127.0.0.1:{port}", "--quiet", timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("cannot connect", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertLess(time.time() - start, 15)

    def test_a_scheduler_without_workers_times_out(self):
        from distributed import LocalCluster
        with LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                          dashboard_address=None) as cluster:
            start = time.time()
            r = tool(self.space(), "--shapes", "512x512x512", "-o", os.path.join(self.dir, "o"), "--scheduler",
                     cluster.scheduler_address, "--scheduler-timeout", "3", "--quiet", timeout=60)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("no worker joined the scheduler within 3 s", r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertLess(time.time() - start, 30)


class OutputTest(ToolCase):
    """Outputs are replaced whole; a damaged search.json or bad results lines are reported, not fatal."""

    def run_search(self, out):
        r = tool(self.space(), "--shapes", "512x512x512", "-o", out, "-j", "1", "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def test_outputs_are_renamed_into_place(self):
        out = os.path.join(self.dir, "out")
        self.run_search(out)
        names = ["results.json", "results.csv", "tflops.svg", "best_512x512x512.json"]
        before = {}
        for name in names:
            os.link(os.path.join(out, name), os.path.join(self.dir, name + ".old"))
            before[name] = os.stat(os.path.join(out, name)).st_ino
        self.run_search(out)  # resumes: nothing to evaluate, every output written again
        for name in names:
            self.assertNotEqual(os.stat(os.path.join(out, name)).st_ino, before[name], name)
        self.assertEqual([n for n in os.listdir(out) if n.endswith(".tmp")], [])
        cands = os.path.join(self.dir, "cands")
        os.makedirs(cands)
        old = os.path.join(cands, "tiny_00002.json")
        with open(old, "w") as f:
            f.write("old")
        os.link(old, os.path.join(self.dir, "kept"))
        r = tool(self.space(), "--write-candidates", cands)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.dir, "kept")) as f:
            self.assertEqual(f.read(), "old")

    def test_a_damaged_search_json_is_reported(self):
        out = os.path.join(self.dir, "out")
        self.run_search(out)
        for text in ("", "{", "[1]", "\xff"):
            with open(os.path.join(out, "search.json"), "w") as f:
                f.write(text)
            r = tool(self.space(), "--shapes", "512x512x512", "-o", out, "-j", "1", "--quiet")
            self.assert_refused(r, "search.json")

    def test_bad_result_lines_are_skipped_with_a_warning(self):
        full = os.path.join(self.dir, "full")
        self.run_search(full)
        out = os.path.join(self.dir, "out")
        shutil.copytree(full, out)
        with open(os.path.join(out, "candidates.jsonl"), "rb") as f:
            lines = f.read().splitlines(keepends=True)
        bad = [b"\xff\xfe garbage\n", b'{"id": "x"}\n', b"[1, 2]\n", b'{"id": 3}\n', b"null\n", b"NaN\n",
               b'{"id": 999, "verdict": "accepted"}\n', b'{"id": true, "verdict": "accepted"}\n',
               lines[2].replace(b'"tflops"', b'"tflops_"'), lines[2].replace(b'"top_stall"', b'"top_stal"'),
               lines[2].replace(b'"rules": []', b'"rules": [1]'), lines[0].replace(b'"message"', b'"massage"')]
        self.assertFalse({lines[0], lines[2]} & set(bad))  # each damaged form differs from the line it came from
        with open(os.path.join(out, "candidates.jsonl"), "wb") as f:
            f.writelines(bad + lines[1:2] + lines[3:])  # the first and third candidates only in damaged forms
        with open(os.path.join(out, "confirmed.jsonl"), "ab") as f:
            f.write(b'{"id": 2}\n{"confirmed": "bit-exact"}\n')
        r = tool(self.space(), "--shapes", "512x512x512", "-o", out, "-j", "1", "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        for number in range(1, len(bad) + 1):
            self.assertIn(f"candidates.jsonl line {number}: ", r.stderr)
        self.assertIn("confirmed.jsonl line", r.stderr)
        self.assertEqual(without_timings(out), without_timings(full))

    def test_svg_text_is_escaped(self):
        svg = cdna4tune.svg_plot([], ["1x1x1"], "a<b&c")
        self.assertIn("a&lt;b&amp;c", svg)
        self.assertNotIn("a<b", svg)


class TimelineTest(ToolCase):
    """--no-timeline models without the per-instruction timeline (memory flat in K)."""

    def test_the_model_is_asked_for_no_timeline(self):
        import cdna4jit
        real, calls = cdna4jit.model, []

        def model(schedule, m, n, k, **options):
            """model(schedule, m, n, k, *, timeline: bool = True)"""
            calls.append(options)
            return real(schedule, m, n, k)
        cdna4tune.cdna4jit.model = model
        try:
            out = os.path.join(self.dir, "lean")
            cdna4tune.tune(self.space(), [(512, 512, 512)], out, workers=1, progress=False, timeline=False)
            self.assertEqual(calls, [{"timeline": False}] * 4)  # the four accepted candidates
            calls.clear()
            cdna4tune.tune(self.space(), [(512, 512, 512)], os.path.join(self.dir, "full"), workers=1,
                           progress=False)
            self.assertEqual(calls, [{}] * 4)
            with self.assertRaisesRegex(cdna4tune.SpaceError, "another search"):  # not mixed with a full one
                cdna4tune.tune(self.space(), [(512, 512, 512)], out, workers=1, progress=False)
            model.__doc__ = "model(schedule, m, n, k)"
            with self.assertRaisesRegex(cdna4tune.SpaceError, "no timeline option"):
                cdna4tune.tune(self.space(), [(512, 512, 512)], out, workers=1, progress=False, timeline=False)
        finally:
            cdna4tune.cdna4jit.model = real


class BadInputTest(ToolCase):
    """Exit status 2 and one line of reason, never a traceback; also when no candidate lowers at the shapes."""

    def test_bad_output_directories(self):
        a_file = os.path.join(self.dir, "file")
        with open(a_file, "w") as f:
            f.write("x")
        space = self.space()
        for out, reason in ((a_file, "not a directory"), (os.path.join(a_file, "sub"), "Not a directory"),
                            ("/proc/cdna4-tune-out", "")):
            self.assert_refused(tool(space, "--shapes", "512x512x512", "-o", out, "--quiet"), reason)
            self.assert_refused(tool(space, "--write-candidates", out), reason)

    def test_bad_space_fields(self):
        cases = [({"base": 3}, "'base' is a schedule file's path or a schedule object"),
                 ({"base": [1]}, "'base' is a schedule file's path or a schedule object"),
                 ({"seed": "x"}, "'seed' is an integer"), ({"seed": 1.5}, "'seed' is an integer"),
                 ({"seed": -1}, "'seed' is an integer"),
                 ({"confirm_top": "3"}, "'confirm_top' is an integer"),
                 ({"confirm_top": -3}, "'confirm_top' is an integer"),
                 ({"sample": True}, "'sample' is an integer"), ({"sample": 0}, "'sample' is an integer"),
                 ({"knobs": {"group_m": ["abc"]}}, "knob 'group_m': value \"abc\""),
                 ({"knobs": {"g2s_phase_shift": ["abc"]}}, "knob 'g2s_phase_shift'"),
                 ({"knobs": {"s2r_lead": [1.5]}}, "knob 's2r_lead'"),
                 ({"knobs": {"lds_buffers": [True]}}, "knob 'lds_buffers'"),
                 ({"knobs": {"waits": [None]}}, "knob 'waits'"),
                 ({"knobs": {"pingpong_groups": [3]}}, "knob 'pingpong_groups': value 3 is not 1 or 2"),
                 ({"exclude": {"waits": "plan"}}, "'exclude' is a list"),
                 ({"description": 5}, "'description' is text")]
        for fields, reason in cases:
            with self.subTest(fields=fields):
                self.assert_refused(tool(self.space(**fields), "--write-candidates", os.path.join(self.dir, "c")),
                                    reason)
        for text, reason in (("1e400", "out of range"), ("NaN", "NaN is not a JSON number"),
                             ("-Infinity", "-Infinity is not a JSON number")):
            path = self.space()
            with open(path) as f:
                space = f.read()
            with open(path, "w") as f:
                f.write(space.replace('"lds_buffers": [1, 2]', f'"lds_buffers": [1, {text}]'))
            self.assert_refused(tool(path, "--quiet"), reason)

    def test_bad_options(self):
        space = self.space()
        out = os.path.join(self.dir, "o")
        limit = 4 * os.cpu_count()
        for args, reason in ((["-j", "-1"], f"from 1 to {limit}"), (["-j", "0"], f"from 1 to {limit}"),
                             (["-j", str(limit + 1)], f"from 1 to {limit}"),
                             (["--confirm-top", "-3"], "--confirm-top -3"),
                             (["--scheduler", "bogus"], "expected tcp://HOST:PORT"),
                             (["--scheduler", "tcp://localhost:99999"], "expected tcp://HOST:PORT"),
                             (["--scheduler-timeout", "nan"], "--scheduler-timeout"),
                             (["--shapes", "0x1x1"], "sizes are from 1"),
                             (["--shapes", f"{10**30}x8x8"], "sizes are from 1")):
            with self.subTest(args=args):
                self.assert_refused(tool(space, "-o", out, "--quiet", *args), reason)
        self.assertFalse(os.path.exists(out))

    def test_shapes_no_candidate_lowers_are_refused(self):
        r = tool(self.space(), "--shapes", "8x8x4", "-o", os.path.join(self.dir, "o"), "-j", "1", "--quiet")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("no candidate could be lowered at 8x8x4", r.stderr)
        self.assertIn("K must be a multiple of 8", r.stderr)
        self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
