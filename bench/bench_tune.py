#!/usr/bin/python3
"""cdna4-tune's throughput: candidates per second per core through verify + the
timing model at 4096^3 (local processes), and a Dask cluster's speed-up with 2
worker processes over 1 on this machine. Figures are host times of our tools;
the TFLOP/s the search ranks by are modeled.

  PYTHONPATH=build/python /usr/bin/python3 bench/bench_tune.py [--candidates N]
"""
import argparse
import json
import os
import shutil
import tempfile
import time

import cdna4tune

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def space_file(directory, count):
    space = {"name": "bench", "base": os.path.join(ROOT, "schedules", "pingpong_256x256x64_w8.json"),
             "knobs": {"g2s_phase_shift": [0, 2, 4, 6], "s2r_phase_shift": [0, 2], "setprio": ["keep", "drop"],
                       "waits": ["keep", "plan"]},
             "sample": count, "seed": 3, "confirm_top": 0}
    path = os.path.join(directory, "space.json")
    with open(path, "w") as f:
        json.dump(space, f)
    return path


def timed(space, out, **kw):
    t0 = time.perf_counter()
    summary = cdna4tune.tune(space, [(4096, 4096, 4096)], out, progress=False, **kw)
    return time.perf_counter() - t0, summary["counts"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--candidates", type=int, default=8)
    args = p.parse_args()
    work = tempfile.mkdtemp()
    try:
        space = space_file(work, args.candidates)
        cores = os.cpu_count() or 1
        print(f"{args.candidates} candidates around pingpong_256x256x64_w8 at 4096^3, verify + model "
              f"(modeled TFLOP/s), {cores} cores")
        one, counts = timed(space, os.path.join(work, "local1"), workers=1)
        print(f"local, 1 process : {one:7.2f} s  {args.candidates / one:6.2f} candidates/s per core  "
              f"({counts['accepted']} accepted, {counts['rejected']} rejected)")
        all_cores, _ = timed(space, os.path.join(work, "localN"), workers=cores)
        print(f"local, {cores} processes: {all_cores:7.2f} s  {args.candidates / all_cores:6.2f} candidates/s  "
              f"speed-up {one / all_cores:.2f}x")
        from distributed import LocalCluster
        for workers in (1, 2):
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                              dashboard_address=None) as cluster:
                t, _ = timed(space, os.path.join(work, f"dask{workers}"), scheduler=cluster.scheduler_address)
            if workers == 1:
                dask_one = t
            print(f"Dask, {workers} worker(s): {t:7.2f} s  {args.candidates / t:6.2f} candidates/s"
                  + (f"  speed-up {dask_one / t:.2f}x over 1 worker" if workers == 2 else ""))
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
