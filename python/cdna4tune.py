"""cdna4-tune: a search over GEMM schedules (docs/tune.md).

Every candidate is an ordinary schedule made from a base schedule and one value
of each knob of a search space (schedules/spaces/*.json). Candidates go
through the verifier (rejections counted by rule), the survivors through the
timing model at each shape, the best through the emulator with randomized
memory completion and a bit-exact check. Work runs on local processes or on a
Dask cluster; results depend only on the space and the seed.
"""
import argparse
import concurrent.futures
import concurrent.futures.process
import copy
import csv
import hashlib
import itertools
import json
import os
import random
import signal
import sys
import time

import numpy as np

import cdna4jit

SPACE_FIELDS = {"name", "base", "knobs", "exclude", "sample", "seed", "confirm_top", "description"}


class SpaceError(Exception):
    """A search space that cannot be used, with the reason."""


# ---- knobs: name -> (what it changes, how). Each takes the schedule dict and a value.

def _set(field):
    def apply(s, value):
        s[field] = copy.deepcopy(value)
    return apply


def _planned_ops(s, value):
    """num_stages: drop the explicit ops; the planner places them (TileLang's rule) and computes waits."""
    s.pop("ops", None)
    s["num_stages"] = value


def _renumber(ops):
    """Emission order follows the phases (the verifier's phase-order rule); ties keep their old order."""
    for n, op in enumerate(sorted(ops, key=lambda o: (o.get("phase", 0), o.get("order", 0)))):
        op["order"] = n


def _setprio(s, value):
    """keep; drop every s_setprio; or mfma: raise the priority around every MFMA op (1 before, 0 after)."""
    if value == "keep":
        return
    if value not in ("drop", "mfma"):
        raise SpaceError("knob setprio: values are 'keep', 'drop' or 'mfma'")
    ops = [op for op in s.get("ops", []) if op.get("op") != "setprio"]
    if value == "mfma":
        for op in [o for o in ops if o.get("op") == "mfma"]:
            for prio, delta in ((1, -0.5), (0, 0.5)):
                ops.append({"op": "setprio", "prio": prio, "stage": op.get("stage", 0), "phase": op.get("phase", 0),
                            "order": op.get("order", 0) + delta})
    _renumber(ops)
    s["ops"] = ops


def _s2r_lead(s, value):
    """Each S2R op moves to `value` phases before the first MFMA op of its kpack (not before phase 0); null keeps."""
    if value is None:
        return
    ops = s.get("ops", [])
    mfma_phase = {}
    for op in ops:
        if op.get("op") == "mfma":
            k = op.get("kpack", 0)
            mfma_phase[k] = min(mfma_phase.get(k, op.get("phase", 0)), op.get("phase", 0))
    for op in ops:
        if op.get("op") == "s2r" and op.get("kpack", 0) in mfma_phase:
            op["phase"] = max(0, mfma_phase[op.get("kpack", 0)] - int(value))
    _renumber(ops)


def _g2s_spread(s, value):
    """The G2S ops, in emission order, go round-robin to the listed phases; null keeps."""
    if value is None:
        return
    if not isinstance(value, list) or not value or not all(isinstance(p, int) and p >= 0 for p in value):
        raise SpaceError("knob g2s_spread: each value is a non-empty list of phases")
    ops = s.get("ops", [])
    g2s = sorted((op for op in ops if op.get("op") == "g2s"), key=lambda o: o.get("order", 0))
    for i, op in enumerate(g2s):
        op["phase"] = value[i % len(value)]
    _renumber(ops)


def _waits(s, value):
    """plan: remove every vmcnt/lgkmcnt, so the planner relaxes each wait to the weakest safe value."""
    if value == "keep":
        return
    if value != "plan":
        raise SpaceError("knob waits: values are 'keep' or 'plan'")
    for op in s.get("ops", []):
        op.pop("vmcnt", None)
        op.pop("lgkmcnt", None)


def _phase_shift(kind):
    def apply(s, value):
        ops = s.get("ops", [])
        phases = 1 + max((op.get("phase", 0) for op in ops), default=0)
        for op in ops:
            if op.get("op") == kind:
                op["phase"] = (op.get("phase", 0) + int(value)) % phases
        _renumber(ops)
    return apply


def _group_m(s, value):
    if value is None:
        s.pop("workgroup_order", None)
    else:
        s["workgroup_order"] = {"xcds": 8, "group_m": int(value)}


KNOBS = {
    "mfma": (_set("mfma"), "MFMA instruction (its shape sets the register tiling)"),
    "wave_grid": (_set("wave_grid"), "waves along M and N, e.g. {\"m\": 2, \"n\": 4}"),
    "tile": (_set("tile"), "workgroup tile {\"m\", \"n\", \"k\"} (explicit ops must still cover it)"),
    "lds_buffers": (_set("lds_buffers"), "LDS slots per operand"),
    "pingpong_groups": (_set("pingpong_groups"), "wave groups that take turns at the MFMA pipes (1 or 2)"),
    "num_stages": (_planned_ops, "drop explicit ops: the planner places them in this many stages"),
    "setprio": (_setprio, "'keep' or 'drop' the s_setprio ops, or 'mfma': priority 1 around every MFMA op"),
    "waits": (_waits, "'keep' the schedule's waits or 'plan' (relax each to the weakest safe value)"),
    "g2s_phase_shift": (_phase_shift("g2s"), "move every G2S op this many phases later (mod the phase count)"),
    "s2r_phase_shift": (_phase_shift("s2r"), "move every S2R op this many phases later (mod the phase count)"),
    "s2r_lead": (_s2r_lead, "each S2R op this many phases before the first MFMA op of its kpack"),
    "g2s_spread": (_g2s_spread, "the G2S ops round-robin over a list of phases"),
    "group_m": (_group_m, "workgroup order: XCD remap with this group_m (null: row order)"),
}


def load_space(path):
    try:
        with open(path) as f:
            space = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise SpaceError(f"{path}: {e}")
    if not isinstance(space, dict):
        raise SpaceError(f"{path}: a space is a JSON object")
    unknown = set(space) - SPACE_FIELDS
    if unknown:
        raise SpaceError(f"{path}: unknown field(s) {sorted(unknown)}; fields are {sorted(SPACE_FIELDS)}")
    for field in ("name", "base", "knobs"):
        if field not in space:
            raise SpaceError(f"{path}: '{field}' is required")
    if not isinstance(space["knobs"], dict) or not space["knobs"]:
        raise SpaceError(f"{path}: 'knobs' maps knob names to lists of values")
    for name, values in space["knobs"].items():
        if name not in KNOBS:
            raise SpaceError(f"{path}: unknown knob '{name}'; knobs are {sorted(KNOBS)}")
        if not isinstance(values, list) or not values:
            raise SpaceError(f"{path}: knob '{name}' needs a non-empty list of values")
    for rule in space.get("exclude", []):
        if not isinstance(rule, dict) or set(rule) - set(space["knobs"]):
            raise SpaceError(f"{path}: each 'exclude' entry is an object of knob values of this space")
    base = space["base"]
    if isinstance(base, str):
        base_path = base if os.path.isabs(base) else os.path.join(os.path.dirname(os.path.abspath(path)), base)
        try:
            with open(base_path) as f:
                space["base"] = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            raise SpaceError(f"{path}: base schedule {base}: {e}")
    if "sample" in space and (not isinstance(space["sample"], int) or space["sample"] < 1):
        raise SpaceError(f"{path}: 'sample' is a positive number of candidates")
    return space


def candidates(space):
    """[(id, {knob: value})]: the whole product (ids in product order) minus exclusions, or a seeded sample of it."""
    names = list(space["knobs"])
    out = []
    for index, values in enumerate(itertools.product(*(space["knobs"][n] for n in names))):
        assignment = dict(zip(names, values))
        if any(all(assignment[k] == v for k, v in rule.items()) for rule in space.get("exclude", [])):
            continue
        out.append((index, assignment))
    if "sample" in space and space["sample"] < len(out):
        chosen = random.Random(space.get("seed", 0)).sample(range(len(out)), space["sample"])
        out = [out[i] for i in sorted(chosen)]
    return out


def schedule_of(space, cid, assignment):
    s = copy.deepcopy(space["base"])
    for name, value in assignment.items():
        KNOBS[name][0](s, value)
    s["name"] = f"{space['name']}_{cid:05d}"
    return s


# ---- one candidate's work (runs in a worker: plain data in, plain data out)

def evaluate(task):
    """Verify, then model at every shape. task: {id, schedule, shapes}."""
    result = {"id": task["id"], "name": task["schedule"]["name"], "assignment": task["assignment"]}
    try:
        report = cdna4jit.verify(task["schedule"])
    except cdna4jit.Error as e:
        result.update(verdict="invalid", rules=["invalid"], message=str(e).splitlines()[0])
        return result
    if not report["accepted"]:
        rules = sorted({f["rule"] for f in report["findings"]})
        result.update(verdict="rejected", rules=rules, message=report["findings"][0]["message"])
        return result
    result.update(verdict="accepted", rules=[], shapes={})
    for shape in task["shapes"]:
        m, n, k = shape
        key = f"{m}x{n}x{k}"
        try:
            r = cdna4jit.model(report["planned"], m, n, k)
        except cdna4jit.Error as e:
            result.update(verdict="not lowered", message=str(e).splitlines()[0])
            return result
        stalls = {k2: v for k2, v in r["stalls"].items() if k2 != "issued"}
        top = max(stalls, key=stalls.get)
        result["shapes"][key] = {
            "tflops": round(r["tflops"], 3),
            "mfma_utilization": round(r["modeled_mfma_utilization"], 5),
            "steady_state_mfma_utilization": (None if r["steady_state_mfma_utilization"] is None
                                              else round(r["steady_state_mfma_utilization"], 5)),
            "top_stall": f"{top} {100 * stalls[top]:.0f}%",
            "bound": r["modeled_bound"],
            "compile_ms": round(r["compile"]["total_ms"], 3),
        }
    return result


def confirm(task):
    """Emulator, randomized completion (task's seed), every output bit against the CPU reference."""
    s = task["schedule"]
    tm, tn, tk = s["tile"]["m"], s["tile"]["n"], s["tile"]["k"]
    m, n, k = 2 * tm + 1, 2 * tn - 1, 4 * tk  # ragged edges on both output dimensions
    rng = np.random.default_rng(task["seed"])
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    layout = s.get("layout", "nt")
    a_arg = np.asfortranarray(a) if layout[0] == "t" else a
    b_arg = np.asfortranarray(b) if layout[1] == "t" else b
    types = s.get("types", {})
    if types.get("a", "bf16") not in ("bf16", "f16", "fp8", "bf8") or types.get("b", "bf16") not in (
            "bf16", "f16", "fp8", "bf8"):
        return {"id": task["id"], "confirmed": "skipped (the check covers bf16, f16, fp8 and bf8 inputs)"}
    try:
        device = cdna4jit.Device("emulator", seed=task["seed"])
        c = cdna4jit.gemm(a_arg, b_arg, schedule=s, device=device, out_dtype="float32")
        ref = cdna4jit.reference_gemm(a, b, type_a=types.get("a", "bf16"), type_b=types.get("b", "bf16"))
    except cdna4jit.Error as e:
        return {"id": task["id"], "confirmed": "error: " + str(e).splitlines()[0]}
    same = np.array_equal(c.view(np.uint32), ref.view(np.uint32))
    return {"id": task["id"], "confirmed": "bit-exact" if same else "MISMATCH",
            "confirm_shape": f"{m}x{n}x{k}"}


# ---- running: local processes or a Dask cluster, resumable from the output directory

class Progress:
    def __init__(self, total, what, stream=sys.stderr):
        self.total, self.what, self.stream = total, what, stream
        self.done, self.start, self.best = 0, time.time(), None

    def update(self, done_now, best=None):
        self.done += done_now
        if best is not None:
            self.best = best
        elapsed = max(time.time() - self.start, 1e-9)
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        best = f", best {self.best}" if self.best else ""
        self.stream.write(f"\r{self.what} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total}, "
                          f"{self.done / elapsed:.2f}/s{best}   ")
        self.stream.flush()

    def finish(self):
        self.stream.write("\n")
        self.stream.flush()


def _run_all(fn, tasks, workers, scheduler, on_result):
    if not tasks:
        return
    if scheduler:
        from distributed import Client, as_completed
        with Client(scheduler) as client:
            futures = client.map(fn, tasks, pure=False)
            for future in as_completed(futures):
                on_result(future.result())
        return
    if workers == 1:
        for t in tasks:
            on_result(fn(t))
        return
    # Workers ignore Ctrl-C: the parent stops, drops what has not started and keeps what finished.
    pool = concurrent.futures.ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
    try:
        futures = [pool.submit(fn, t) for t in tasks]
        for future in concurrent.futures.as_completed(futures):
            on_result(future.result())
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_stage(fn, todo, total, path, done, what, workers, scheduler, progress, status=None):
    """Runs `todo` (the `total` tasks of a stage less those in `done`), each result appended to the JSON-lines file
    at `path` and added to `done` as it finishes; `status(result)` is the progress bar's text."""
    bar = Progress(total, what) if progress else None
    if bar:
        bar.done = total - len(todo)
    with open(path, "a") as out:
        def record(r):
            done[r["id"]] = r
            out.write(json.dumps(r, sort_keys=True) + "\n")
            out.flush()
            if bar:
                bar.update(1, status(r) if status else None)
        _run_all(fn, todo, workers, scheduler, record)
    if bar:
        bar.finish()


def _read_jsonl(path):
    """The records of a results file; a last line cut by an interruption is dropped from the file and redone."""
    out = {}
    if os.path.exists(path):
        with open(path, "rb+") as f:
            data = f.read()
            if data and not data.endswith(b"\n"):
                f.truncate(data.rfind(b"\n") + 1)
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        r = json.loads(line)
                        out[r["id"]] = r
                    except (json.JSONDecodeError, KeyError):
                        pass
    return out


def _fingerprint(space, shapes):
    text = json.dumps({"space": space, "shapes": shapes}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def score(result, shape_keys):
    """Mean modeled TFLOP/s over the shapes (0 for candidates that were not modeled)."""
    if result.get("verdict") != "accepted":
        return 0.0
    return sum(result["shapes"][k]["tflops"] for k in shape_keys) / len(shape_keys)


def rank_key(result, shape_keys):
    """Best first: mean modeled TFLOP/s, then (where the model's power ceiling makes kernels tie) the mean
    steady-state MFMA utilization, then the lower id."""
    steady = [result["shapes"][k].get("steady_state_mfma_utilization") or 0 for k in shape_keys] \
        if result.get("verdict") == "accepted" else [0]
    return (-round(score(result, shape_keys), 1), -sum(steady) / len(steady), result["id"])


def write_candidates(space_path, directory):
    """Every candidate of the space as an ordinary schedule file, <name>_<id>.json; returns the paths."""
    space = load_space(space_path)
    os.makedirs(directory, exist_ok=True)
    paths = []
    for cid, assignment in candidates(space):
        s = schedule_of(space, cid, assignment)
        path = os.path.join(directory, s["name"] + ".json")
        with open(path, "w") as f:
            json.dump(s, f, indent=1)
        paths.append(path)
    return paths


def tune(space_path, shapes, out_dir, workers=None, scheduler=None, confirm_top=None, progress=True):
    space = load_space(space_path)
    workers = workers or os.cpu_count() or 1
    shape_keys = [f"{m}x{n}x{k}" for m, n, k in shapes]
    os.makedirs(out_dir, exist_ok=True)
    meta_path = os.path.join(out_dir, "search.json")
    fingerprint = _fingerprint(space, shapes)
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            if json.load(f).get("fingerprint") != fingerprint:
                raise SpaceError(f"{out_dir} holds another search (space or shapes differ); use a new directory")
    else:
        with open(meta_path, "w") as f:
            json.dump({"space": os.path.abspath(space_path), "shapes": shape_keys, "fingerprint": fingerprint}, f,
                      indent=1)

    cands = candidates(space)
    results_path = os.path.join(out_dir, "candidates.jsonl")
    results = _read_jsonl(results_path)
    todo = [{"id": cid, "assignment": a, "schedule": schedule_of(space, cid, a), "shapes": shapes}
            for cid, a in cands if cid not in results]
    best = max(results.values(), key=lambda x: score(x, shape_keys), default=None)

    def best_so_far(r):
        nonlocal best
        if best is None or score(r, shape_keys) > score(best, shape_keys):
            best = r
        return f"mean {score(best, shape_keys):.1f} TFLOP/s modeled ({best['name']})" if score(best, shape_keys) else None

    _run_stage(evaluate, todo, len(cands), results_path, results, "verify + model", workers, scheduler, progress,
               best_so_far)

    accepted = sorted((r for r in results.values() if r["verdict"] == "accepted"),
                      key=lambda r: rank_key(r, shape_keys))
    top = min(confirm_top if confirm_top is not None else space.get("confirm_top", 3), len(accepted))
    confirm_path = os.path.join(out_dir, "confirmed.jsonl")
    confirmed = _read_jsonl(confirm_path)
    by_id = {cid: a for cid, a in cands}
    todo = [{"id": r["id"], "schedule": schedule_of(space, r["id"], by_id[r["id"]]), "seed": space.get("seed", 0)}
            for r in accepted[:top] if r["id"] not in confirmed]
    _run_stage(confirm, todo, top, confirm_path, confirmed, "emulator check", workers, scheduler, progress)
    for r in results.values():
        if r["id"] in confirmed:
            r["confirmed"] = confirmed[r["id"]]["confirmed"]
    return write_outputs(space, cands, results, shape_keys, out_dir)


# ---- outputs

def write_outputs(space, cands, results, shape_keys, out_dir):
    rows = [results[cid] for cid, _ in cands if cid in results]
    counts = {"candidates": len(cands), "accepted": 0, "rejected": 0, "invalid": 0, "not lowered": 0,
              "rejections_by_rule": {}, "confirmed_bit_exact": 0}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        for rule in r.get("rules", []):
            counts["rejections_by_rule"][rule] = counts["rejections_by_rule"].get(rule, 0) + 1
        counts["confirmed_bit_exact"] += r.get("confirmed") == "bit-exact"
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"space": space["name"], "shapes": shape_keys, "counts": counts, "candidates": rows}, f, indent=1,
                  sort_keys=True)
    with open(os.path.join(out_dir, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        header = ["id", "name", "verdict", "rules"] + [knob for knob in space["knobs"]]
        for k in shape_keys:
            header += [f"tflops_{k}", f"mfma_util_{k}", f"steady_mfma_util_{k}", f"top_stall_{k}", f"compile_ms_{k}"]
        w.writerow(header + ["confirmed"])
        for r in rows:
            line = [r["id"], r["name"], r["verdict"], " ".join(r.get("rules", []))]
            line += [v if isinstance(v, str) else json.dumps(v) for v in (r["assignment"][k] for k in space["knobs"])]
            for k in shape_keys:
                s = r.get("shapes", {}).get(k)
                line += ([s["tflops"], s["mfma_utilization"], s["steady_state_mfma_utilization"], s["top_stall"],
                          s["compile_ms"]] if s else [""] * 5)
            w.writerow(line + [r.get("confirmed", "")])
    best = {}
    for k in shape_keys:
        ok = [r for r in rows if r["verdict"] == "accepted" and r.get("confirmed") == "bit-exact"]
        if ok:
            winner = min(ok, key=lambda r: rank_key(r, [k]))
            s = schedule_of(space, winner["id"], winner["assignment"])
            path = os.path.join(out_dir, f"best_{k}.json")
            with open(path, "w") as f:
                json.dump(s, f, indent=1)
            best[k] = {"id": winner["id"], "name": winner["name"], "tflops": winner["shapes"][k]["tflops"],
                       "steady": winner["shapes"][k]["steady_state_mfma_utilization"], "file": path}
    with open(os.path.join(out_dir, "tflops.svg"), "w") as f:
        f.write(svg_plot(rows, shape_keys, space["name"]))
    return {"counts": counts, "best": best}


def svg_plot(rows, shape_keys, title):
    """Modeled TFLOP/s per accepted candidate (x: candidate id), one series per shape."""
    points = [(r["id"], k, r["shapes"][k]["tflops"]) for r in rows if r["verdict"] == "accepted" for k in shape_keys]
    w, h, left, bottom, top_margin = 720, 360, 60, 40, 30
    if not points:
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}"><text x="20" y="40">'
                f'{title}: no accepted candidate</text></svg>\n')
    ids = [p[0] for p in points]
    lo_id, hi_id = min(ids), max(ids)
    hi_y = max(p[2] for p in points) * 1.1
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]

    def x(cid):
        return left + (w - left - 20) * ((cid - lo_id) / max(hi_id - lo_id, 1))

    def y(v):
        return h - bottom - (h - bottom - top_margin) * v / hi_y

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
           f'font-size="11">',
           f'<text x="{left}" y="18">{title}: modeled TFLOP/s per candidate (timing model, not measured)</text>',
           f'<line x1="{left}" y1="{h - bottom}" x2="{w - 10}" y2="{h - bottom}" stroke="black"/>',
           f'<line x1="{left}" y1="{top_margin}" x2="{left}" y2="{h - bottom}" stroke="black"/>',
           f'<text x="{left}" y="{h - 10}">candidate {lo_id}</text>',
           f'<text x="{w - 110}" y="{h - 10}">candidate {hi_id}</text>']
    for frac in (0, 0.5, 1):
        v = hi_y / 1.1 * frac
        out.append(f'<text x="4" y="{y(v) + 4:.1f}">{v:.0f}</text>')
    for i, k in enumerate(shape_keys):
        color = colors[i % len(colors)]
        out.append(f'<text x="{w - 200}" y="{top_margin + 14 * i}" fill="{color}">{k}</text>')
        for cid, key, v in points:
            if key == k:
                out.append(f'<circle cx="{x(cid):.1f}" cy="{y(v):.1f}" r="3" fill="{color}"/>')
    out.append("</svg>\n")
    return "\n".join(out)


def parse_shapes(text):
    shapes = []
    for part in text.split(","):
        try:
            m, n, k = (int(v) for v in part.lower().split("x"))
        except ValueError:
            raise SpaceError(f"--shapes: '{part}' is not MxNxK")
        if min(m, n, k) < 1:
            raise SpaceError(f"--shapes: '{part}': sizes must be positive")
        shapes.append((m, n, k))
    return shapes


def main(argv=None):
    p = argparse.ArgumentParser(prog="cdna4-tune", description=__doc__.splitlines()[0])
    p.add_argument("space", help="search space JSON (docs/tune.md)")
    p.add_argument("--shapes", default="4096x4096x4096", help="comma-separated MxNxK (default 4096x4096x4096)")
    p.add_argument("-o", "--out", default=None, help="output directory (default: tune-<space name>); rerun to resume")
    p.add_argument("-j", "--workers", type=int, default=None, help="local worker processes (default: all cores)")
    p.add_argument("--scheduler", default=None, help="tcp://HOST:PORT of a Dask scheduler: run there instead")
    p.add_argument("--confirm-top", type=int, default=None, help="emulator-check this many best (default: space's, 3)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--write-candidates", metavar="DIR", default=None,
                   help="only write every candidate as a schedule file into DIR, and stop")
    args = p.parse_args(argv)
    out = None
    try:
        space = load_space(args.space)
        if args.write_candidates:
            paths = write_candidates(args.space, args.write_candidates)
            print(f"{len(paths)} candidate schedules written to {args.write_candidates}")
            return 0
        out = args.out or f"tune-{space['name']}"
        summary = tune(args.space, parse_shapes(args.shapes), out, args.workers, args.scheduler, args.confirm_top,
                       progress=not args.quiet)
    except SpaceError as e:
        print(f"cdna4-tune: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ncdna4-tune: interrupted; what finished is in {out}: run the same command again to resume",
              file=sys.stderr)
        return 130
    except concurrent.futures.process.BrokenProcessPool:
        print(f"\ncdna4-tune: a worker process died (interrupted?); what finished is in {out}: run the same command "
              f"again to resume", file=sys.stderr)
        return 130
    c = summary["counts"]
    print(f"{c['candidates']} candidates: {c['accepted']} accepted, {c['rejected']} rejected by the verifier "
          f"{c['rejections_by_rule']}, {c['invalid']} invalid, {c['not lowered']} not lowered; "
          f"{c['confirmed_bit_exact']} confirmed bit-exact on the emulator")
    for k, b in summary["best"].items():
        steady = f", steady-state MFMA {100 * b['steady']:.1f}%" if b["steady"] else ""
        print(f"best at {k}: {b['name']} {b['tflops']:.1f} TFLOP/s{steady} (modeled) -> {b['file']}")
    print(f"results: {out}/results.csv, results.json, tflops.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
