"""A hostile user's pass over cdna4-tune, beyond the cases the hardening tests name: each case runs the command and
must end cleanly (the expected exit status, no traceback, a one-line reason when refused, nothing written outside
the output directory). Prints each case and the tally; exits 1 if any case did not end cleanly.

    PYTHONPATH=build/python CDNA4_TUNE=build/cdna4-tune /usr/bin/python3 tests/python/cdna4tune_adversarial.py
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from cdna4tune_hardening_test import children, limit_memory, running

TOOL = os.environ["CDNA4_TUNE"]
SCHEDULES = os.environ.get("CDNA4_SCHEDULES", os.path.join(os.path.dirname(__file__), "..", "..", "schedules"))
BASE = os.path.abspath(os.path.join(SCHEDULES, "baseline_256x256x64_w8.json"))
KNOBS = {"lds_buffers": [1, 2], "waits": ["keep", "plan"], "group_m": [None, 4]}


class Pass:
    def __init__(self, root):
        self.root, self.cases, self.failed = root, 0, []

    def path(self, *parts):
        return os.path.join(self.root, *parts)

    def space(self, raw=None, file="space.json", **fields):
        space = {"name": "adv", "base": BASE, "knobs": KNOBS, "confirm_top": 1}
        space.update(fields)
        with open(self.path(file), "w") as f:
            f.write(raw if raw is not None else json.dumps(space))
        return self.path(file)

    def run(self, what, args, status=2, reason="", check=None, timeout=120):
        """One case: the command's exit status, a one-line reason when it is 2, and `check()` if given."""
        self.cases += 1
        start = time.time()
        proc = subprocess.Popen([TOOL, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=self.path("cwd"), preexec_fn=limit_memory, start_new_session=True)
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # with whatever it started
            proc.communicate()
            return self.verdict(what, f"no end within {timeout} s")
        r = subprocess.CompletedProcess(proc.args, proc.returncode, "", stderr)
        problems = []
        if r.returncode != status:
            problems.append(f"exit {r.returncode}, expected {status}")
        if "Traceback" in r.stderr or "Error:" in r.stderr.split("cdna4-tune:")[0]:
            problems.append("a traceback")
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        if status == 2 and (len(lines) != 1 or reason not in lines[0]):
            problems.append(f"not one line naming '{reason}'")
        elif reason not in r.stderr:
            problems.append(f"no word of '{reason}'")
        if check:
            try:
                problems += [p for p in [check()] if p]
            except OSError as e:
                problems.append(f"its check could not read an output ({e})")
        if os.listdir(self.path("cwd")):
            problems.append(f"wrote into the working directory: {os.listdir(self.path('cwd'))}")
            shutil.rmtree(self.path("cwd"))
            os.makedirs(self.path("cwd"))
        detail = "; ".join(problems) or f"{time.time() - start:.1f} s"
        self.verdict(what, detail if problems else None, (lines or [""])[-1][:110] if not problems else detail)
        if problems:
            print("    stderr:", r.stderr.strip()[-600:])

    def verdict(self, what, problem, note=""):
        print(f"{'clean ' if not problem else 'NOT CLEAN'} {what}: {note or problem}")
        if problem:
            self.failed.append(what)


def cases(p):
    out = p.path("out")
    ok = p.space(file="ok.json")
    shape = ["--shapes", "512x512x512", "--quiet", "-j", "1"]
    # -- the space file itself
    p.run("space is a JSON array", [p.space(raw="[1, 2]")], reason="a space is a JSON object")
    p.run("space is a bare string", [p.space(raw='"x"')], reason="a space is a JSON object")
    p.run("space has a UTF-8 byte order mark", [p.space(raw="\ufeff{}")], reason="not JSON")
    p.run("space is not UTF-8", [p.path("latin1.json")], reason="not UTF-8")
    p.run("space nested 100000 deep", [p.space(raw="[" * 100000 + "]" * 100000)], reason="space.json")
    p.run("seed with 5000 digits", [p.space(raw='{"name": "a", "base": "b", "knobs": {}, "seed": ' + "9" * 5000
                                            + "}")], reason="space.json")
    p.run("space path is empty", [""], reason="No such file")
    p.run("space path is a FIFO", [p.path("fifo")], reason="not a regular file", timeout=30)
    p.run("space path is a link to /dev/zero", [p.path("zero-link")], reason="not a regular file", timeout=30)
    # -- fields
    p.run("knob value 2^40 LDS slots", [p.space(knobs={"lds_buffers": [2**40]})], reason="knob 'lds_buffers'")
    p.run("knob list is an object", [p.space(knobs={"waits": {"keep": 1}})], reason="non-empty list")
    p.run("exclude names a knob of no space", [p.space(exclude=[{"tiles": 1}])], reason="'exclude'")
    p.run("exclude holds a number", [p.space(exclude=[3])], reason="'exclude'")
    p.run("name with a non-ASCII letter", [p.space(name="caf\u00e9")], reason="no path separators")
    p.run("name of 1000 characters", [p.space(name="n" * 1000)], reason="no path separators")
    p.run("name with a newline", [p.space(name="a\nb")], reason="no path separators")
    p.run("sample 1e2 (a float)", [p.space(sample=1e2)], reason="'sample' is an integer")
    p.run("seed 2^64", [p.space(seed=2**64)], reason="'seed' is an integer")
    p.run("base path missing", [p.space(base="missing.json")], reason="No such file")
    p.run("base is a JSON list file", [p.space(base=p.path("list.json"))], reason="a schedule is a JSON object")
    p.run("2^17 candidates and no sample", [p.space(knobs={"lds_buffers": list(range(1, 2**17 + 1))})],
          reason="set 'sample'")
    p.run("a sample the exclusions starve", [p.space(knobs={"lds_buffers": list(range(1, 2**17 + 1)),
                                                            "waits": ["keep", "plan"]},
                                                     exclude=[{"waits": "keep"}, {"waits": "plan"}], sample=10)],
          reason="draws found only")
    p.run("sample larger than the space", [p.space(sample=1000), "-o", p.path("big-sample"), *shape], status=0)
    p.run("base without a list of ops (knobs cannot apply)",
          [p.space(base={**json.load(open(BASE)), "ops": 5}, knobs={"s2r_lead": [1]}), "-o", p.path("noops"), *shape],
          status=0, check=lambda: None if '"invalid": 1' in open(p.path("noops", "results.json")).read()
          else "the candidate is not counted invalid")
    # -- options
    p.run("-o is empty", [ok, "-o", "", *shape], reason="-o")
    p.run("--write-candidates is empty", [ok, "--write-candidates", ""], reason="--write-candidates")
    p.run("--scheduler-timeout 0", [ok, "--scheduler-timeout", "0", "-o", out], reason="--scheduler-timeout")
    p.run("--scheduler-timeout inf", [ok, "--scheduler-timeout", "inf", "-o", out], reason="--scheduler-timeout")
    p.run("--confirm-top 10^6", [ok, "--confirm-top", "1000000", "-o", out], reason="--confirm-top")
    p.run("-j abc", [ok, "-j", "abc"], reason="invalid int value")
    p.run("an unknown option", [ok, "--bogus", "8x8x8"], reason="unrecognized arguments")
    p.run("--shapes with a trailing comma", [ok, "--shapes", "512x512x512,", "-o", out], reason="not MxNxK")
    p.run("--shapes 2^31", [ok, "--shapes", f"{2**31}x512x512", "-o", out], reason="sizes are from 1")
    p.run("--scheduler with a path", [ok, "--scheduler", "tcp://h:1/x", "-o", out], reason="expected tcp://HOST:PORT")
    # -- the output directory's contents
    for name, reason in (("candidates.jsonl", "not a regular file"), ("search.json", "damaged"),
                         ("tune.lock", "not a lock file")):
        d = p.path(f"dir-{name}")
        os.makedirs(os.path.join(d, name))
        p.run(f"{name} is a directory", [ok, "-o", d, *shape], reason=reason)
    d = p.path("zero-results")
    os.makedirs(d)
    os.symlink("/dev/zero", os.path.join(d, "candidates.jsonl"))
    p.run("candidates.jsonl links to /dev/zero", [ok, "-o", d, *shape], reason="not a regular file", timeout=30)
    d = p.path("garbage-lock")
    os.makedirs(d)
    with open(os.path.join(d, "tune.lock"), "w") as f:
        f.write("not a pid\n")
    p.run("tune.lock holds garbage", [ok, "-o", d, *shape], status=0)
    d = p.path("reused-pid-lock")
    os.makedirs(d)
    with open(os.path.join(d, "tune.lock"), "w") as f:  # a running process, but not the one that took the lock
        f.write(f"{os.getpid()} {socket.gethostname()} 1\n")
    p.run("tune.lock of a pid now used by another process", [ok, "-o", d, *shape], status=0,
          check=lambda: None if not os.path.exists(os.path.join(d, "tune.lock")) else "the lock was not released",
          reason="now another process")
    d = p.path("foreign-lock")
    os.makedirs(d)
    with open(os.path.join(d, "tune.lock"), "w") as f:
        f.write(f"{os.getpid()} another-host\n")
    p.run("tune.lock of a run on another host", [ok, "-o", d, *shape], reason="on another-host")
    d = p.path("results-dir")
    os.makedirs(os.path.join(d, "results.json"))
    p.run("results.json is a directory", [ok, "-o", d, *shape], reason="results.json")
    # -- links cannot carry outputs elsewhere: a rename replaces the link, not what it points to
    outside = p.path("outside.txt")
    with open(outside, "w") as f:
        f.write("keep")
    cands = p.path("link-cands")
    os.makedirs(cands)
    os.symlink(outside, os.path.join(cands, "adv_00002.json"))
    p.run("a candidate file name is a link outside", [ok, "--write-candidates", cands], status=0,
          check=lambda: None if open(outside).read() == "keep" else "wrote through the link")
    d = p.path("link-results")
    os.makedirs(d)
    os.symlink(outside, os.path.join(d, "results.json"))
    p.run("results.json is a link outside", [ok, "-o", d, *shape], status=0,
          check=lambda: None if open(outside).read() == "keep" else "wrote through the link")


def signal_cases(p):
    """SIGHUP (a closed terminal) stops the command and its workers like SIGTERM."""
    p.cases += 1
    out = p.path("hup")
    proc = subprocess.Popen([TOOL, p.space(), "--shapes", "4096x4096x4096", "-o", out, "-j", "2", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=p.path("cwd"))
    deadline = time.time() + 60
    workers = []
    while time.time() < deadline and len(workers) < 2:
        workers = children(proc.pid)
        time.sleep(0.1)
    time.sleep(0.5)
    proc.send_signal(signal.SIGHUP)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:  # live workers hold its pipes open
        proc.kill()
        err = "no end within 60 s"
    time.sleep(1)
    alive = [w for w in workers if running(w)]
    for w in alive:
        os.kill(w, signal.SIGKILL)
    problem = None if proc.returncode == 128 + signal.SIGHUP and workers and not alive and "Traceback" not in err \
        else f"exit {proc.returncode}, workers {workers}, alive after {alive}: {err[-300:]}"
    p.verdict("SIGHUP with two workers", problem, "exit 129, workers gone")


def main():
    root = tempfile.mkdtemp()
    p = Pass(root)
    try:
        os.makedirs(p.path("cwd"))
        os.mkfifo(p.path("fifo"))
        os.symlink("/dev/zero", p.path("zero-link"))
        with open(p.path("latin1.json"), "wb") as f:
            f.write(b'{"name": "caf\xe9"}')
        with open(p.path("list.json"), "w") as f:
            f.write("[]")
        cases(p)
        signal_cases(p)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{p.cases} cases, {p.cases - len(p.failed)} clean" + (f"; not clean: {p.failed}" if p.failed else ""))
    return 1 if p.failed else 0


if __name__ == "__main__":
    sys.exit(main())
