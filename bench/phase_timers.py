#!/usr/bin/env python3
"""Do jitbench's cache phases measure what they name? numba's cache_load and
target_init, and TensorFlow's cache_write, against the same quantities timed
independently of jitbench.

    .venv/bin/python bench/phase_timers.py [--runs 5] [--out DIR]

1. jitbench run --cache-policy warm_cache for numba and tensorflow, matmul 512
   f32, --runs cold runs each.
2. numba, independently: --runs fresh processes of a bare script that loads the
   same kind of cached function (njit(cache=True), a primed NUMBA_CACHE_DIR) and
   times numba's context refresh and the cache's own _load_overload apart, with
   nothing of jitbench imported.
3. TensorFlow: its own scoped timer for writing the cache entry, read from the
   priming run's log ("Serializing and saving cache entry: ... time: ... (N us)"),
   against the priming run's cache_write phase.
Prints one Markdown table (docs/results-cache-modes.md quotes it).
"""

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

BARE_NUMBA = r"""
import json, os, sys, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numba
from numba.core import base
log = {}
original = base.BaseContext.refresh
def refresh(self):
    t = time.perf_counter()
    try:
        return original(self)
    finally:
        log.setdefault("refresh", 0.0)
        log["refresh"] += time.perf_counter() - t
base.BaseContext.refresh = refresh
import kernel
cache = kernel.f._cache
load = cache._load_overload
def timed_load(*a):
    t = time.perf_counter()
    try:
        return load(*a)
    finally:
        log["load"] = time.perf_counter() - t
cache._load_overload = timed_load
import numpy as np
a = np.ones((512, 512), np.float32)
t = time.perf_counter()
kernel.f(a, a)
log["first_call"] = time.perf_counter() - t
log["hits"] = sum(kernel.f.stats.cache_hits.values())
print(json.dumps(log))
"""

KERNEL = """
import numba

@numba.njit(cache=True)
def f(a, b):
    return a @ b
"""


def median_ms(xs):
    return f"{statistics.median(xs) * 1e3:.2f} ms [{min(xs) * 1e3:.2f}–{max(xs) * 1e3:.2f}]" if xs else "—"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path(tempfile.mkdtemp(prefix="phase-timers-")))
    args = ap.parse_args()
    out = args.out / "run"
    subprocess.run([str(ROOT / "build" / "jitbench"), "run", "--backends", "numba,tensorflow", "--cases",
                    "matmul_512_f32", "--cache-policy", "warm_cache", "--cold-runs", str(args.runs),
                    "--warm-iters", "3", "--ceilings", "off", "--quiet", "--out-dir", str(out)],
                   check=True, stdin=subprocess.DEVNULL)
    case = lambda b: json.loads((out / "cases" / f"{b}_matmul_512_f32__warm_cache.json").read_text())
    phase = lambda c, name: [r["first_call_breakdown"]["phases"].get(name, 0.0) for r in c["cold"]["runs"]
                             if r["status"] == "ok"]

    nb = case("numba")
    bare_dir = args.out / "bare"
    bare_dir.mkdir(parents=True, exist_ok=True)
    (bare_dir / "kernel.py").write_text(KERNEL)
    (bare_dir / "bare.py").write_text(BARE_NUMBA)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(bare_dir / "cache"))
    run = lambda: json.loads(subprocess.run([sys.executable, str(bare_dir / "bare.py")], env=env, check=True,
                                            capture_output=True, text=True).stdout.strip().splitlines()[-1])
    run()  # primes the cache (a miss)
    bare = [run() for _ in range(args.runs)]
    assert all(b["hits"] == 1 for b in bare), "the bare script did not load from the cache"

    tf = case("tensorflow")
    log = (out / tf["priming"]["log"]).read_text(errors="replace")
    own = [int(m.group(1)) / 1e6 for m in re.finditer(r"Serializing and saving cache entry:.* time: [^()]*\((\d+) us\)", log)]
    recorded = tf["priming"]["first_call_breakdown"]["phases"].get("cache_write")

    print("| quantity | jitbench (phase) | independent | n |")
    print("|---|---|---|---|")
    print(f"| numba target initialisation (context refresh) | {median_ms(phase(nb, 'target_init'))} | "
          f"{median_ms([b['refresh'] for b in bare])} (bare script) | {args.runs} |")
    print(f"| numba cache load | {median_ms(phase(nb, 'cache_load'))} | {median_ms([b['load'] for b in bare])} "
          f"(bare script, `_load_overload`) | {args.runs} |")
    print(f"| TensorFlow cache write (priming run) | {recorded * 1e3:.3f} ms | "
          f"{', '.join(f'{x * 1e3:.3f} ms' for x in own)} (TensorFlow's own timer, same process) | 1 |")
    print(f"\nms: median [min–max]; runs in {args.out}")


if __name__ == "__main__":
    main()
