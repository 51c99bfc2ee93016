"""cdna4-tune: a search over GEMM schedules (docs/tune.md).

Every candidate is an ordinary schedule made from a base schedule and one value
of each knob of a search space (schedules/spaces/*.json). Candidates go
through the verifier (rejections counted by rule), the survivors through the
timing model at each shape, the best through the emulator with randomized
memory completion and a bit-exact check. Work runs on local processes or on a
Dask cluster; results depend only on the space and the seed.
"""
import argparse
import concurrent.futures.process
import copy
import csv
import hashlib
import html
import io
import itertools
import json
import math
import os
import random
import re
import sys
import time

import numpy as np

import cdna4jit
from cdna4tune_files import DirectoryLock, FileProblem, make_directory, read_json, read_jsonl, write_atomic
from cdna4tune_workers import SchedulerProblem, Terminated, max_workers, parse_scheduler, run_all, stop_on_signals

SPACE_FIELDS = {"name", "base", "knobs", "exclude", "sample", "seed", "confirm_top", "description"}
SPACE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")  # part of file names: no separator, outputs stay in their directory
MAX_CANDIDATES = 100_000  # an exhaustive search or a sample: the candidates are listed in memory
MAX_INT = 2**31 - 1
MAX_SEED = 2**63 - 1
MAX_SHAPE = 2**31 - 1
VERDICTS = ("accepted", "rejected", "invalid", "not lowered")


class SpaceError(Exception):
    """A search space, a shape or an option that cannot be used, with the reason (exit status 2)."""


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


# ---- what a knob's value may be (the schema's item types): value -> None, or what it should have been

def _is_int(v, lo):
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= MAX_INT


def _integer(lo, null=False):
    def check(v):
        return None if (null and v is None) or _is_int(v, lo) else \
            f"an integer from {lo} to {MAX_INT}" + (" or null" if null else "")
    return check


def _one_of(*allowed):
    return lambda v: None if isinstance(v, str) and v in allowed else " or ".join(repr(a) for a in allowed)


def _of_type(kind, what):
    return lambda v: None if isinstance(v, kind) else what


def _phases_or_null(v):
    ok = v is None or (isinstance(v, list) and v and all(_is_int(p, 0) for p in v))
    return None if ok else "a non-empty list of phases (integers from 0) or null"


KNOBS = {  # name: (apply, what it changes, which values it takes)
    "mfma": (_set("mfma"), "MFMA instruction (its shape sets the register tiling)", _of_type(str, "a mnemonic")),
    "wave_grid": (_set("wave_grid"), "waves along M and N, e.g. {\"m\": 2, \"n\": 4}",
                  _of_type(dict, "an object {\"m\", \"n\"}")),
    "tile": (_set("tile"), "workgroup tile {\"m\", \"n\", \"k\"} (explicit ops must still cover it)",
             _of_type(dict, "an object {\"m\", \"n\", \"k\"}")),
    "lds_buffers": (_set("lds_buffers"), "LDS slots per operand", _integer(1)),
    "pingpong_groups": (_set("pingpong_groups"), "wave groups that take turns at the MFMA pipes (1 or 2)",
                        lambda v: None if _is_int(v, 1) and v <= 2 else "1 or 2"),
    "num_stages": (_planned_ops, "drop explicit ops: the planner places them in this many stages", _integer(1)),
    "setprio": (_setprio, "'keep' or 'drop' the s_setprio ops, or 'mfma': priority 1 around every MFMA op",
                _one_of("keep", "drop", "mfma")),
    "waits": (_waits, "'keep' the schedule's waits or 'plan' (relax each to the weakest safe value)",
              _one_of("keep", "plan")),
    "g2s_phase_shift": (_phase_shift("g2s"), "move every G2S op this many phases later (mod the phase count)",
                        _integer(0)),
    "s2r_phase_shift": (_phase_shift("s2r"), "move every S2R op this many phases later (mod the phase count)",
                        _integer(0)),
    "s2r_lead": (_s2r_lead, "each S2R op this many phases before the first MFMA op of its kpack",
                 _integer(0, null=True)),
    "g2s_spread": (_g2s_spread, "the G2S ops round-robin over a list of phases", _phases_or_null),
    "group_m": (_group_m, "workgroup order: XCD remap with this group_m (null: row order)", _integer(1, null=True)),
}


def _read_json(path, what=""):
    try:
        return read_json(path)
    except FileProblem as e:
        raise SpaceError(f"{what}{e}")


def _count(space, field, path, lo, hi):
    v = space[field]
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise SpaceError(f"{path}: '{field}' is an integer from {lo} to {hi}, not {json.dumps(v)}")


def load_space(path):
    space = _read_json(path)
    if not isinstance(space, dict):
        raise SpaceError(f"{path}: a space is a JSON object")
    unknown = set(space) - SPACE_FIELDS
    if unknown:
        raise SpaceError(f"{path}: unknown field(s) {sorted(unknown)}; fields are {sorted(SPACE_FIELDS)}")
    for field in ("name", "base", "knobs"):
        if field not in space:
            raise SpaceError(f"{path}: '{field}' is required")
    name = space["name"]
    if not isinstance(name, str) or not SPACE_NAME.match(name) or name in (".", ".."):
        raise SpaceError(f"{path}: 'name' {json.dumps(name)}: a name is 1 to 100 of A-Z a-z 0-9 _ . - (it names "
                         f"files in the output directory: no path separators, no '..')")
    if "description" in space and not isinstance(space["description"], str):
        raise SpaceError(f"{path}: 'description' is text")
    if not isinstance(space["knobs"], dict) or not space["knobs"]:
        raise SpaceError(f"{path}: 'knobs' maps knob names to lists of values")
    for knob, values in space["knobs"].items():
        if knob not in KNOBS:
            raise SpaceError(f"{path}: unknown knob '{knob}'; knobs are {sorted(KNOBS)}")
        if not isinstance(values, list) or not values:
            raise SpaceError(f"{path}: knob '{knob}' needs a non-empty list of values")
        for v in values:
            expected = KNOBS[knob][2](v)
            if expected:
                raise SpaceError(f"{path}: knob '{knob}': value {json.dumps(v)} is not {expected}")
    exclude = space.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(r, dict) and not set(r) - set(space["knobs"])
                                                for r in exclude):
        raise SpaceError(f"{path}: 'exclude' is a list of objects of knob values of this space")
    for field, lo, hi in (("sample", 1, MAX_CANDIDATES), ("seed", 0, MAX_SEED), ("confirm_top", 0, MAX_CANDIDATES)):
        if field in space:
            _count(space, field, path, lo, hi)
    base = space["base"]
    if isinstance(base, str):
        base_path = os.path.join(os.path.dirname(os.path.abspath(path)), base)  # an absolute base stays as it is
        space["base"] = _read_json(base_path, f"{path}: base schedule: ")
        if not isinstance(space["base"], dict):
            raise SpaceError(f"{path}: base schedule {base}: a schedule is a JSON object")
    elif not isinstance(base, dict):
        raise SpaceError(f"{path}: 'base' is a schedule file's path or a schedule object, not {json.dumps(base)}")
    return space


def _excluded(space, assignment):
    return any(all(assignment[k] == v for k, v in rule.items()) for rule in space.get("exclude", []))


def space_size(space):
    return math.prod(len(values) for values in space["knobs"].values())


def assignment_of(space, index):
    """The knob values of candidate `index`: its digits in the mixed radix of the knob lists, the last knob
    fastest (itertools.product's order)."""
    assignment = {}
    for name in reversed(list(space["knobs"])):
        index, digit = divmod(index, len(space["knobs"][name]))
        assignment[name] = space["knobs"][name][digit]
    return {name: assignment[name] for name in space["knobs"]}


def candidates(space):
    """[(id, {knob: value})]: the whole product (ids in product order) minus exclusions, or a seeded sample of it.
    A space larger than MAX_CANDIDATES is never listed: its sample is drawn as uniform indices into the product."""
    total = space_size(space)
    if total <= MAX_CANDIDATES:
        names = list(space["knobs"])
        out = []
        for index, values in enumerate(itertools.product(*(space["knobs"][n] for n in names))):
            assignment = dict(zip(names, values))
            if not _excluded(space, assignment):
                out.append((index, assignment))
        if "sample" in space and space["sample"] < len(out):
            chosen = random.Random(space.get("seed", 0)).sample(range(len(out)), space["sample"])
            out = [out[i] for i in sorted(chosen)]
        return out
    if "sample" not in space:
        raise SpaceError(f"space '{space['name']}' has {total} candidates, more than the {MAX_CANDIDATES} a search "
                         f"evaluates: set 'sample'")
    rng, seen, out = random.Random(space.get("seed", 0)), set(), []
    draws = 0
    while len(out) < space["sample"]:
        draws += 1
        if draws > 20 * space["sample"] + 10_000:
            raise SpaceError(f"space '{space['name']}': {draws - 1} draws found only {len(out)} candidates the "
                             f"'exclude' rules keep; lower 'sample' or exclude less")
        index = rng.randrange(total)
        if index in seen:
            continue
        seen.add(index)
        assignment = assignment_of(space, index)
        if not _excluded(space, assignment):
            out.append((index, assignment))
    return sorted(out, key=lambda c: c[0])


def schedule_of(space, cid, assignment):
    s = copy.deepcopy(space["base"])
    for name, value in assignment.items():
        try:
            KNOBS[name][0](s, value)
        except (SpaceError, TypeError, AttributeError, KeyError, ValueError, OverflowError) as e:
            raise SpaceError(f"knob {name} = {json.dumps(value)} does not apply to the base schedule "
                             f"({type(e).__name__}: {e})")
    s["name"] = f"{space['name']}_{cid:05d}"
    return s


def _search_part(space):
    """What a worker needs of the space to make a candidate's schedule (shared, not copied, by every task)."""
    return {"name": space["name"], "base": space["base"]}


# ---- one candidate's work (runs in a worker: plain data in, plain data out)

def _first_line(e):
    return (str(e).splitlines() or [type(e).__name__])[0]


def evaluate(task):
    """Verify, then model at every shape. task: {id, assignment, space (name, base), shapes}."""
    result = {"id": task["id"], "name": f"{task['space']['name']}_{task['id']:05d}", "assignment": task["assignment"]}
    try:
        report = cdna4jit.verify(schedule_of(task["space"], task["id"], task["assignment"]))
    except (cdna4jit.Error, SpaceError, TypeError, ValueError, OverflowError) as e:
        result.update(verdict="invalid", rules=["invalid"], message=_first_line(e))
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
            # Without the timeline the model's memory stays flat however long K is; the steady state needs it.
            lean = {} if task.get("timeline", True) else {"timeline": False}
            r = cdna4jit.model(report["planned"], m, n, k, **lean)
        except (cdna4jit.Error, TypeError, ValueError, OverflowError) as e:
            result.update(verdict="not lowered", message=f"{key}: {_first_line(e)}")
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
    s = schedule_of(task["space"], task["id"], task["assignment"])
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
    except (cdna4jit.Error, TypeError, ValueError, OverflowError) as e:
        return {"id": task["id"], "confirmed": "error: " + _first_line(e)}
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


def _run_stage(fn, todo, total, path, done, what, options, status=None):
    """Runs `todo` (the `total` tasks of a stage less those in `done`), each result appended to the JSON-lines file
    at `path` and added to `done` as it finishes; `status(result)` is the progress bar's text."""
    bar = Progress(total, what) if options["progress"] else None
    if bar:
        bar.done = total - len(todo)
    with open(path, "a") as out:
        def record(r):
            done[r["id"]] = r
            out.write(json.dumps(r, sort_keys=True) + "\n")
            out.flush()
            if bar:
                bar.update(1, status(r) if status else None)
        run_all(fn, todo, options["workers"], options["scheduler"], record, options["scheduler_timeout"])
    if bar:
        bar.finish()


def _is_number(v, null=False):
    return (null and v is None) or (isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v))


def _is_id(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _figures_ok(figures):
    """One shape's modeled figures as evaluate() writes them."""
    return isinstance(figures, dict) and all(_is_number(figures.get(f)) for f in
                                             ("tflops", "mfma_utilization", "compile_ms")) \
        and _is_number(figures.get("steady_state_mfma_utilization"), null=True) \
        and isinstance(figures.get("top_stall"), str)


def _candidate_check(cands, shape_keys):
    """The reason a candidates.jsonl record cannot be used by this search, or None."""
    by_id = dict(cands)

    def check(r):
        if not _is_id(r.get("id")) or r["id"] not in by_id:
            return "no candidate of this search has that id"
        if r.get("assignment") != by_id[r["id"]] or r.get("verdict") not in VERDICTS:
            return "not a result of this search (knob values or verdict differ)"
        rules = r.get("rules", [])
        if not isinstance(r.get("name"), str) or not isinstance(rules, list) or \
                not all(isinstance(rule, str) for rule in rules):
            return "name or rules missing"
        if r["verdict"] in ("not lowered", "invalid", "rejected") and not isinstance(r.get("message"), str):
            return "a verdict without its message"
        shapes = r.get("shapes", {})
        needed = shape_keys if r["verdict"] == "accepted" else [k for k in shape_keys if k in shapes]
        if not isinstance(shapes, dict) or not all(_figures_ok(shapes.get(k)) for k in needed):
            return "modeled figures missing or damaged"
        return None
    return check


def _confirmed_check(ids):
    def check(r):
        if not _is_id(r.get("id")) or r["id"] not in ids:
            return "no candidate of this search has that id"
        return None if isinstance(r.get("confirmed"), str) else "'confirmed' missing"
    return check


def _fingerprint(space, shapes, timeline=True):
    text = json.dumps({"space": space, "shapes": shapes, **({} if timeline else {"timeline": False})},
                      sort_keys=True)
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
    cands = candidates(space)
    make_directory(directory, "--write-candidates")
    paths = []
    for cid, assignment in cands:
        try:
            s = schedule_of(space, cid, assignment)
        except SpaceError as e:
            raise SpaceError(f"candidate {cid}: {e}")
        path = os.path.join(directory, s["name"] + ".json")  # the name has no separator (load_space)
        write_atomic(path, json.dumps(s, indent=1))
        paths.append(path)
    return paths


def _start_or_resume(space_path, space, shapes, shape_keys, out_dir, timeline):
    """search.json: written (atomically) for a new search, compared with this one for a resumed search."""
    meta_path = os.path.join(out_dir, "search.json")
    fingerprint = _fingerprint(space, shapes, timeline)
    if os.path.lexists(meta_path):
        try:
            meta = read_json(meta_path)
            if not isinstance(meta, dict) or not isinstance(meta.get("fingerprint"), str):
                raise FileProblem(f"{meta_path}: no fingerprint")
        except FileProblem as e:
            raise SpaceError(f"{e}: damaged; delete it to start this search over in {out_dir}")
        if meta["fingerprint"] != fingerprint:
            raise SpaceError(f"{out_dir} holds another search (space or shapes differ); use a new directory")
    else:
        write_atomic(meta_path, json.dumps({"space": os.path.abspath(space_path), "shapes": shape_keys,
                                            "fingerprint": fingerprint}, indent=1))


def tune(space_path, shapes, out_dir, workers=None, scheduler=None, confirm_top=None, progress=True,
         scheduler_timeout=60.0, timeline=True):
    space = load_space(space_path)
    if not timeline and "timeline" not in (cdna4jit.model.__doc__ or ""):
        raise SpaceError("this cdna4jit module's model() always keeps the timeline (no timeline option)")
    options = {"workers": workers or os.cpu_count() or 1, "scheduler": scheduler, "progress": progress,
               "scheduler_timeout": scheduler_timeout, "timeline": timeline}
    cands = candidates(space)
    make_directory(out_dir, "-o")
    with DirectoryLock(out_dir):
        return _search(space_path, space, cands, shapes, out_dir, confirm_top, options)


def _search(space_path, space, cands, shapes, out_dir, confirm_top, options):
    shape_keys = [f"{m}x{n}x{k}" for m, n, k in shapes]
    _start_or_resume(space_path, space, shapes, shape_keys, out_dir, options["timeline"])
    part = _search_part(space)
    results_path = os.path.join(out_dir, "candidates.jsonl")
    results = read_jsonl(results_path, _candidate_check(cands, shape_keys))
    todo = [{"id": cid, "assignment": a, "space": part, "shapes": shapes, "timeline": options["timeline"]}
            for cid, a in cands if cid not in results]
    best = max(results.values(), key=lambda x: score(x, shape_keys), default=None)

    def best_so_far(r):
        nonlocal best
        if best is None or score(r, shape_keys) > score(best, shape_keys):
            best = r
        return f"mean {score(best, shape_keys):.1f} TFLOP/s modeled ({best['name']})" if score(best, shape_keys) else None

    _run_stage(evaluate, todo, len(cands), results_path, results, "verify + model", options, best_so_far)

    accepted = sorted((r for r in results.values() if r["verdict"] == "accepted"),
                      key=lambda r: rank_key(r, shape_keys))
    top = min(confirm_top if confirm_top is not None else space.get("confirm_top", 3), len(accepted))
    confirm_path = os.path.join(out_dir, "confirmed.jsonl")
    confirmed = read_jsonl(confirm_path, _confirmed_check({cid for cid, _ in cands}))
    by_id = dict(cands)
    todo = [{"id": r["id"], "assignment": by_id[r["id"]], "space": part, "seed": space.get("seed", 0)}
            for r in accepted[:top] if r["id"] not in confirmed]
    _run_stage(confirm, todo, top, confirm_path, confirmed, "emulator check", options)
    for r in results.values():
        if r["id"] in confirmed:
            r["confirmed"] = confirmed[r["id"]]["confirmed"]
    return write_outputs(space, cands, results, shape_keys, out_dir)


# ---- outputs (each written whole beside its place, then renamed over it)

def write_outputs(space, cands, results, shape_keys, out_dir):
    rows = [results[cid] for cid, _ in cands if cid in results]
    counts = {"candidates": len(cands), "accepted": 0, "rejected": 0, "invalid": 0, "not lowered": 0,
              "rejections_by_rule": {}, "confirmed_bit_exact": 0}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        for rule in r.get("rules", []):
            counts["rejections_by_rule"][rule] = counts["rejections_by_rule"].get(rule, 0) + 1
        counts["confirmed_bit_exact"] += r.get("confirmed") == "bit-exact"
    write_atomic(os.path.join(out_dir, "results.json"),
                 json.dumps({"space": space["name"], "shapes": shape_keys, "counts": counts, "candidates": rows},
                            indent=1, sort_keys=True))
    table = io.StringIO()
    w = csv.writer(table)
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
    write_atomic(os.path.join(out_dir, "results.csv"), table.getvalue())
    best = {}
    for k in shape_keys:
        ok = [r for r in rows if r["verdict"] == "accepted" and r.get("confirmed") == "bit-exact"]
        if ok:
            winner = min(ok, key=lambda r: rank_key(r, [k]))
            s = schedule_of(space, winner["id"], winner["assignment"])
            path = os.path.join(out_dir, f"best_{k}.json")
            write_atomic(path, json.dumps(s, indent=1))
            best[k] = {"id": winner["id"], "name": winner["name"], "tflops": winner["shapes"][k]["tflops"],
                       "steady": winner["shapes"][k]["steady_state_mfma_utilization"], "file": path}
    write_atomic(os.path.join(out_dir, "tflops.svg"), svg_plot(rows, shape_keys, space["name"]))
    not_lowered = [r["message"] for r in rows if r["verdict"] == "not lowered"]
    return {"counts": counts, "best": best, "not_lowered": not_lowered[:1]}


def svg_plot(rows, shape_keys, title):
    """Modeled TFLOP/s per accepted candidate (x: candidate id), one series per shape."""
    points = [(r["id"], k, r["shapes"][k]["tflops"]) for r in rows if r["verdict"] == "accepted" for k in shape_keys]
    title = html.escape(title)
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
        out.append(f'<text x="{w - 200}" y="{top_margin + 14 * i}" fill="{color}">{html.escape(k)}</text>')
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
        if min(m, n, k) < 1 or max(m, n, k) > MAX_SHAPE:
            raise SpaceError(f"--shapes: '{part}': sizes are from 1 to {MAX_SHAPE}")
        shapes.append((m, n, k))
    return shapes


def _check_options(args):
    limit = max_workers()
    if args.workers is not None and not 1 <= args.workers <= limit:
        raise SpaceError(f"-j {args.workers}: local worker processes are from 1 to {limit} (4 per core); "
                         f"leave -j out for one per core")
    if args.confirm_top is not None and not 0 <= args.confirm_top <= MAX_CANDIDATES:
        raise SpaceError(f"--confirm-top {args.confirm_top}: from 0 to {MAX_CANDIDATES}")
    if not (math.isfinite(args.scheduler_timeout) and 0 < args.scheduler_timeout <= 86400):
        raise SpaceError(f"--scheduler-timeout {args.scheduler_timeout}: seconds, more than 0 and at most 86400")
    if args.scheduler:
        try:
            parse_scheduler(args.scheduler)
        except SchedulerProblem as e:
            raise SpaceError(str(e))


class _Arguments(argparse.ArgumentParser):
    def error(self, message):  # one line, as for every other bad input
        self.exit(2, f"cdna4-tune: {message} (cdna4-tune --help)\n")


def main(argv=None):
    p = _Arguments(prog="cdna4-tune", description=__doc__.splitlines()[0])
    p.add_argument("space", help="search space JSON (docs/tune.md)")
    p.add_argument("--shapes", default="4096x4096x4096", help="comma-separated MxNxK (default 4096x4096x4096)")
    p.add_argument("-o", "--out", default=None, help="output directory (default: tune-<space name>); rerun to resume")
    p.add_argument("-j", "--workers", type=int, default=None,
                   help="local worker processes, 1 to 4 per core (default: one per core)")
    p.add_argument("--scheduler", default=None, help="tcp://HOST:PORT of a Dask scheduler: run there instead")
    p.add_argument("--scheduler-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="how long to wait for the Dask scheduler and its first worker (default 60)")
    p.add_argument("--confirm-top", type=int, default=None, help="emulator-check this many best (default: space's, 3)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--no-timeline", action="store_true",
                   help="model without the per-instruction timeline: memory stays flat for long K, but no steady-state "
                        "MFMA utilization (ranking by modeled TFLOP/s alone)")
    p.add_argument("--write-candidates", metavar="DIR", default=None,
                   help="only write every candidate as a schedule file into DIR, and stop")
    args = p.parse_args(argv)
    out = None
    stop_on_signals()
    try:
        _check_options(args)
        space = load_space(args.space)
        if args.write_candidates is not None:
            paths = write_candidates(args.space, args.write_candidates)
            print(f"{len(paths)} candidate schedules written to {args.write_candidates}")
            return 0
        shapes = parse_shapes(args.shapes)
        out = args.out if args.out is not None else f"tune-{space['name']}"
        summary = tune(args.space, shapes, out, args.workers, args.scheduler, args.confirm_top,
                       progress=not args.quiet, scheduler_timeout=args.scheduler_timeout,
                       timeline=not args.no_timeline)
    except (SpaceError, FileProblem) as e:
        print(f"cdna4-tune: {e}", file=sys.stderr)
        return 2
    except SchedulerProblem as e:
        print(f"\ncdna4-tune: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # the disk filled, a file vanished under the run, ...
        print(f"\ncdna4-tune: {e}; what finished is in {out}: run the same command again to resume", file=sys.stderr)
        return 1
    except KeyboardInterrupt as e:
        print(f"\ncdna4-tune: {'stopped by ' + str(e) if isinstance(e, Terminated) else 'interrupted'}; what "
              f"finished is in {out}: run the same command again to resume", file=sys.stderr)
        return 128 + e.signum if isinstance(e, Terminated) else 130
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
    if c["accepted"] == 0 and c["not lowered"]:
        print(f"cdna4-tune: no candidate could be lowered at {args.shapes} (bad shape?); the first: "
              f"{summary['not_lowered'][0]}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
