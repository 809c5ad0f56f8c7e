#!/usr/bin/env python3
"""What do jitbench's jax.monitoring listeners cost the measured first call?

    .venv/bin/python bench/listener_cost.py [--runs 20] [--n 512] [--out FILE]

Fresh processes, interleaved round by round (a change in the machine's load
hits every variant alike), each timing one jitted N x N float32 matmul's first
call with perf_counter, after the same imports (jitbench's worker package
included in every variant):
  none       no listener registered
  empty      two listeners that do nothing (the cost of JAX calling them)
  jitbench   the JAX adapter's own listeners (JaxAdapter._hook) recording into
             an active Recorder, as in a measured run
Prints a Markdown table (docs/harness-fidelity.md quotes it): the median first
call of each variant with its interquartile range, the listeners' own time
(each listener call timed inside the process, so it does not rest on a
difference of two noisy medians), and how many events fired.
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PY = sys.executable

SCRIPT = r"""
import json, sys, time
sys.path.insert(0, sys.argv[3])
variant, n = sys.argv[1], int(sys.argv[2])
import jax
jax.config.update("jax_platforms", "cpu")
import jax.numpy as jnp
import numpy as np
from jitbench_worker.backends.jax_ import JaxAdapter
from jitbench_worker.backends.base import Recorder
jax.device_put(1.0).block_until_ready()
spent, fired = [0.0], [0]
def timed(listener):
    def call(*args, **kw):
        t = time.perf_counter()
        listener(*args, **kw)
        spent[0] += time.perf_counter() - t
        fired[0] += 1
    return call
rec = Recorder()
if variant == "empty":
    jax.monitoring.register_event_duration_secs_listener(timed(lambda event, duration, **kw: None))
    jax.monitoring.register_event_listener(timed(lambda event, **kw: None))
elif variant == "jitbench":
    adapter = JaxAdapter("cpu")
    adapter.jax = jax
    adapter._cache = {"persistent": False}
    register = (jax.monitoring.register_event_duration_secs_listener, jax.monitoring.register_event_listener)
    jax.monitoring.register_event_duration_secs_listener = lambda f: register[0](timed(f))
    jax.monitoring.register_event_listener = lambda f: register[1](timed(f))
    adapter._hook(rec)
rng = np.random.default_rng(0)
a, b = (jax.device_put(rng.standard_normal((n, n)).astype(np.float32)) for _ in range(2))
jax.block_until_ready((a, b))
f = jax.jit(lambda x, y: x @ y)
rec.start()
t0 = time.perf_counter()
f(a, b).block_until_ready()
t1 = time.perf_counter()
rec.stop()
print(json.dumps({"first_call_s": t1 - t0, "listener_s": spent[0], "events": fired[0]}))
"""

VARIANTS = ("none", "empty", "jitbench")


def one(variant, n):
    out = subprocess.run([PY, "-c", SCRIPT, variant, str(n), str(ROOT / "worker")], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def quartiles(xs):
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--out", default=None, help="write the raw samples here (JSON)")
    args = ap.parse_args()
    samples = {v: [] for v in VARIANTS}
    for r in range(args.runs):
        order = VARIANTS[r % 3:] + VARIANTS[:r % 3]  # each variant first in a third of the rounds
        for v in order:
            samples[v].append(one(v, args.n))
        print(f"round {r + 1}/{args.runs}", file=sys.stderr)
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(samples, indent=1))
    print(f"| variant (matmul {args.n} f32, n = {args.runs} processes each) | first call: median [IQR] | "
          "listeners' own time: median (max) | events per first call |")
    print("|---|---|---|---|")
    for v in VARIANTS:
        lo, med, hi = (x * 1e3 for x in quartiles([s["first_call_s"] for s in samples[v]]))
        own = [s["listener_s"] * 1e3 for s in samples[v]]
        events = sorted({s["events"] for s in samples[v]})
        print(f"| {v} | {med:.1f} ms [{lo:.1f}–{hi:.1f}] | {statistics.median(own):.3f} ms ({max(own):.3f}) | "
              f"{', '.join(map(str, events))} |")


if __name__ == "__main__":
    main()
