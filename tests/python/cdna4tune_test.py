"""cdna4tune (cdna4-tune's search) with Debian's python3: the generator, the
verifier's filtering, determinism, resuming, and a Dask cluster of two worker
processes on the loopback interface giving the local run's results."""
import csv
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import cdna4tune

SCHEDULES = os.environ.get("CDNA4_SCHEDULES", os.path.join(os.path.dirname(__file__), "..", "..", "schedules"))
SHAPES = [(512, 512, 512)]


def write_space(directory, **fields):
    space = {"name": "tiny", "base": os.path.abspath(os.path.join(SCHEDULES, "baseline_256x256x64_w8.json")),
             "knobs": {"lds_buffers": [1, 2], "waits": ["keep", "plan"], "group_m": [None, 4]},
             "exclude": [{"lds_buffers": 1, "waits": "keep"}], "confirm_top": 1}
    space.update(fields)
    path = os.path.join(directory, "space.json")
    with open(path, "w") as f:
        json.dump(space, f)
    return path


def without_timings(out_dir):
    """results.json with the measured compile times removed: everything else is determined by space and seed."""
    with open(os.path.join(out_dir, "results.json")) as f:
        results = json.load(f)
    for r in results["candidates"]:
        for s in r.get("shapes", {}).values():
            s.pop("compile_ms")
    return results


class GeneratorTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_exhaustive_count_with_exclusions(self):
        space = cdna4tune.load_space(write_space(self.dir))
        cands = cdna4tune.candidates(space)
        # 2 x 2 x 2 = 8, minus the two with lds_buffers 1 and waits keep.
        self.assertEqual(len(cands), 6)
        self.assertEqual([cid for cid, _ in cands], [2, 3, 4, 5, 6, 7])
        self.assertEqual(cands[0][1], {"lds_buffers": 1, "waits": "plan", "group_m": None})

    def test_sample_is_a_seeded_subset(self):
        big = {"lds_buffers": [2, 3], "waits": ["keep", "plan"], "group_m": [None, 2, 4, 8], "setprio": ["keep", "drop"]}
        a = cdna4tune.candidates(cdna4tune.load_space(write_space(self.dir, knobs=big, exclude=[], sample=5, seed=7)))
        b = cdna4tune.candidates(cdna4tune.load_space(write_space(self.dir, knobs=big, exclude=[], sample=5, seed=7)))
        c = cdna4tune.candidates(cdna4tune.load_space(write_space(self.dir, knobs=big, exclude=[], sample=5, seed=8)))
        self.assertEqual(len(a), 5)
        self.assertEqual(a, b)
        self.assertNotEqual([x for x, _ in a], [x for x, _ in c])
        self.assertTrue(all(0 <= cid < 32 for cid, _ in a))

    def test_candidates_written_as_schedule_files(self):
        import cdna4jit
        paths = cdna4tune.write_candidates(write_space(self.dir), os.path.join(self.dir, "cands"))
        self.assertEqual([os.path.basename(p) for p in paths], [f"tiny_{i:05d}.json" for i in range(2, 8)])
        for path in paths:
            self.assertEqual(cdna4jit.load_schedule(path).name, os.path.basename(path)[:-5])

    def test_bad_spaces_are_refused_with_the_reason(self):
        with self.assertRaisesRegex(cdna4tune.SpaceError, "unknown knob 'tiles'"):
            cdna4tune.load_space(write_space(self.dir, knobs={"tiles": [1]}))
        with self.assertRaisesRegex(cdna4tune.SpaceError, "non-empty list"):
            cdna4tune.load_space(write_space(self.dir, knobs={"waits": []}))
        with self.assertRaisesRegex(cdna4tune.SpaceError, "unknown field"):
            cdna4tune.load_space(write_space(self.dir, knbos={}))
        with self.assertRaisesRegex(cdna4tune.SpaceError, "not MxNxK"):
            cdna4tune.parse_shapes("4096x4096")

    def test_candidates_are_ordinary_schedules(self):
        space = cdna4tune.load_space(write_space(self.dir))
        s = cdna4tune.schedule_of(space, 6, {"lds_buffers": 2, "waits": "plan", "group_m": 4})
        self.assertEqual(s["name"], "tiny_00006")
        self.assertEqual(s["workgroup_order"], {"xcds": 8, "group_m": 4})
        self.assertFalse(any("vmcnt" in op or "lgkmcnt" in op for op in s["ops"]))
        self.assertIn("vmcnt", json.dumps(space["base"]))  # the base is untouched


def load(name):
    with open(os.path.join(SCHEDULES, name)) as f:
        return json.load(f)


def emission(s):
    return sorted(s["ops"], key=lambda o: o["order"])


class KnobTest(unittest.TestCase):
    """The op-moving knobs keep a schedule the parser takes: unique orders, phases never decreasing."""

    def check_orders(self, s):
        ops = emission(s)
        self.assertEqual([o["order"] for o in ops], list(range(len(ops))))
        self.assertEqual([o["phase"] for o in ops], sorted(o["phase"] for o in ops))

    def test_setprio_around_every_mfma(self):
        s = load("prefetch2_256x256x64_w8.json")
        cdna4tune.KNOBS["setprio"][0](s, "mfma")
        self.check_orders(s)
        ops = emission(s)
        for i, op in enumerate(ops):
            if op["op"] == "mfma":
                self.assertEqual((ops[i - 1]["op"], ops[i - 1]["prio"]), ("setprio", 1))
                self.assertEqual((ops[i + 1]["op"], ops[i + 1]["prio"]), ("setprio", 0))
        self.assertEqual(sum(o["op"] == "setprio" for o in ops), 2 * sum(o["op"] == "mfma" for o in ops))

    def test_s2r_lead_and_g2s_spread(self):
        s = load("pingpong_256x256x64_w8.json")
        cdna4tune.KNOBS["s2r_lead"][0](s, 1)
        mfma_phase = {o["kpack"]: o["phase"] for o in s["ops"] if o["op"] == "mfma"}
        for o in s["ops"]:
            if o["op"] == "s2r":
                self.assertEqual(o["phase"], mfma_phase[o["kpack"]] - 1)
        cdna4tune.KNOBS["g2s_spread"][0](s, [0, 4])
        g2s = [o for o in emission(s) if o["op"] == "g2s"]
        self.assertEqual(sorted(o["phase"] for o in g2s), [0, 0, 0, 0, 4, 4, 4, 4])
        self.check_orders(s)
        before = load("pingpong_256x256x64_w8.json")
        for knob in ("s2r_lead", "g2s_spread"):
            cdna4tune.KNOBS[knob][0](before, None)  # null keeps the base
        self.assertEqual(before, load("pingpong_256x256x64_w8.json"))
        with self.assertRaisesRegex(cdna4tune.SpaceError, "list of phases"):
            cdna4tune.KNOBS["g2s_spread"][0](load("pingpong_256x256x64_w8.json"), [])


class SearchTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.space = write_space(self.dir)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def run_search(self, name, **kw):
        out = os.path.join(self.dir, name)
        return out, cdna4tune.tune(self.space, SHAPES, out, progress=False, **kw)

    def test_verifier_filters_model_ranks_emulator_confirms(self):
        out, summary = self.run_search("local", workers=2)
        counts = summary["counts"]
        # One LDS slot with the planner's waits: the next tile's G2S overwrites a slot still being read.
        self.assertEqual((counts["candidates"], counts["accepted"], counts["rejected"]), (6, 4, 2))
        self.assertEqual(counts["rejections_by_rule"], {"war-race": 2})
        self.assertEqual(counts["confirmed_bit_exact"], 1)
        with open(os.path.join(out, "results.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 6)
        accepted = [r for r in rows if r["verdict"] == "accepted"]
        self.assertTrue(all(float(r["tflops_512x512x512"]) > 0 for r in accepted))
        best = summary["best"]["512x512x512"]
        self.assertEqual(best["tflops"], max(float(r["tflops_512x512x512"]) for r in accepted))
        with open(best["file"]) as f:
            self.assertEqual(json.load(f)["name"], best["name"])
        with open(os.path.join(out, "tflops.svg")) as f:
            self.assertEqual(f.read().count("<circle"), 4)

    def test_same_seed_same_results(self):
        a, _ = self.run_search("one", workers=1)
        b, _ = self.run_search("two", workers=2)
        self.assertEqual(without_timings(a), without_timings(b))

    def test_resume_after_an_interruption(self):
        full, _ = self.run_search("full", workers=1)
        cut = os.path.join(self.dir, "cut")
        shutil.copytree(full, cut)
        # Interrupted after three candidates, the fourth line half written, before the emulator check.
        with open(os.path.join(cut, "candidates.jsonl")) as f:
            lines = f.readlines()
        with open(os.path.join(cut, "candidates.jsonl"), "w") as f:
            f.writelines(lines[:3] + [lines[3][:20]])
        for name in ("confirmed.jsonl", "results.json", "results.csv"):
            os.remove(os.path.join(cut, name))
        cdna4tune.tune(self.space, SHAPES, cut, workers=1, progress=False)
        self.assertEqual(without_timings(cut), without_timings(full))
        with open(os.path.join(cut, "candidates.jsonl")) as f:
            done = [json.loads(line)["id"] for line in f if line.strip().endswith("}")]
        self.assertEqual(sorted(done), [2, 3, 4, 5, 6, 7])  # the first three were not redone
        self.assertEqual(done[:3], [json.loads(line)["id"] for line in lines[:3]])

    def test_resume_after_ctrl_c(self):
        """A real interruption: SIGINT to the command line after its first result, then the same command again."""
        tool = os.environ.get("CDNA4_TUNE")
        self.assertTrue(tool and os.access(tool, os.X_OK), "CDNA4_TUNE must name the built cdna4-tune")
        full, _ = self.run_search("reference", workers=1)
        out = os.path.join(self.dir, "interrupted")
        cmd = [tool, self.space, "--shapes", "512x512x512", "-o", out, "-j", "1", "--quiet"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        results = os.path.join(out, "candidates.jsonl")
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None:
            if os.path.exists(results) and os.path.getsize(results) > 0:
                proc.send_signal(signal.SIGINT)
                break
            time.sleep(0.005)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        self.assertIn("run the same command again to resume", err)
        with open(results) as f:
            self.assertLess(len(f.readlines()), 6)
        again = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(without_timings(out), without_timings(full))

    def test_another_search_in_the_same_directory_is_refused(self):
        out, _ = self.run_search("first", workers=1)
        with self.assertRaisesRegex(cdna4tune.SpaceError, "another search"):
            cdna4tune.tune(self.space, [(1024, 1024, 1024)], out, workers=1, progress=False)

    def test_dask_cluster_gives_the_local_results(self):
        from distributed import LocalCluster  # Debian python3-distributed (tools/install-deps.sh)
        local, _ = self.run_search("local", workers=2)
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                          dashboard_address=None) as cluster:
            dask, _ = self.run_search("dask", scheduler=cluster.scheduler_address)
        self.assertEqual(without_timings(local), without_timings(dask))

    def test_command_line(self):
        tool = os.environ.get("CDNA4_TUNE")
        self.assertTrue(tool and os.access(tool, os.X_OK), "CDNA4_TUNE must name the built cdna4-tune")
        out = os.path.join(self.dir, "cli")
        r = subprocess.run([tool, self.space, "--shapes", "512x512x512", "-o", out, "-j", "2"], capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("6 candidates: 4 accepted, 2 rejected by the verifier {'war-race': 2}", r.stdout)
        self.assertIn("verify + model [", r.stderr)  # the progress bar
        bad = subprocess.run([tool, self.space, "--shapes", "512x512"], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("not MxNxK", bad.stderr)


if __name__ == "__main__":
    unittest.main()
