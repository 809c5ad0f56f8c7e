#!/usr/bin/env python3
"""Does jitbench's compile anatomy agree with a bare profiler run?

    .venv/bin/python bench/anatomy_fidelity.py --env jax-0.7.2 --env jax-0.8.0 [--rounds 5] \\
        [--n 4096 --dtype f32] [--out FILE.json]
    .venv/bin/python bench/anatomy_fidelity.py --tables-from FILE.json

In each of jitbench's pinned environments (`jitbench envs list`: built by a
`run --env`), fresh processes, interleaved round by round (the order of the
two variants turns every round, so a change in the machine's load lands on
both):
  bare      a script of its own: import jax, build the workload's inputs the
            way the workload does (seeded NumPy, device_put), and trace the
            first call with jax.profiler (create_perfetto_trace, the Python
            tracer off, as jitbench does), then the second call; nothing of
            jitbench is imported
  jitbench  jitbench's anatomy process: the worker in --mode anatomy with the
            environment jitbench gives it (PYTHONPATH, an empty compile
            cache directory of its own, PYTHONSAFEPATH)
Per XLA/JAX event name, the thread time inside the first call (every
thread's events; jitbench's items summed by the event they came from: its
thread time where the item ran on another thread, its wall time on the
dispatching thread plus what the phase's edge clipped off it), the first
call, and the load (/proc/loadavg) before and after each round. Prints, per environment, the medians of both and their ratio for
every event the bare trace shows above 5% of its compile (backend_compile
[_and_load]), marked where jitbench's differs by more than 20%.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
JITBENCH = ROOT / "build" / "jitbench"
WORKER = ROOT / "worker"
COMPILE_EVENTS = ("backend_compile_and_load", "backend_compile")
JIT = "PjitFunction("

BARE = r"""
import gzip, glob, json, math, shutil, sys, tempfile, time
workload, n, dtype, seed = sys.argv[1], int(sys.argv[2]), sys.argv[3], 0
import jax
import jax.numpy as jnp
import numpy as np
jax.device_put(1.0).block_until_ready()
t = np.float32 if dtype == "f32" else np.float64
rng = np.random.default_rng(seed)
# retrace_raw, as worker/jitbench_worker/workloads/retrace.py draws its stream and calls its kernel
lo = max(1, n // 4); span = max(1, n - lo + 1)
xs = [jax.device_put(rng.standard_normal(lo + ((k * 2654435761 + seed * 97) % span)).astype(t)) for k in range(24)]
kernel = jax.jit(lambda x: jnp.sum(jnp.tanh(x) ** 2))
call = lambda: sum(kernel(x) for x in xs)
where = tempfile.mkdtemp(prefix="bare-trace-")
opts = jax.profiler.ProfileOptions()
opts.python_tracer_level = 0
jax.profiler.start_trace(where, create_perfetto_trace=True, profiler_options=opts)
t0 = time.perf_counter()
call().block_until_ready()
t1 = time.perf_counter()
call().block_until_ready()
jax.profiler.stop_trace()
with gzip.open(sorted(glob.glob(f"{where}/**/perfetto_trace.json.gz", recursive=True))[-1], "rt") as f:
    raw = json.load(f)
shutil.rmtree(where, ignore_errors=True)
raw = raw["traceEvents"] if isinstance(raw, dict) else raw
events = [(e["ts"] / 1e6, (e["ts"] + e["dur"]) / 1e6, e["name"]) for e in raw
          if e.get("ph") == "X" and "dur" in e and not str(e.get("name", "")).startswith("$")]
# The first call on the profiler's clock: from the first jit dispatch, as long as perf_counter timed it
# (jitbench aligns the two clocks the same way).
start = min(e[0] for e in events if e[2].startswith("PjitFunction("))
per = {}
for a, b, name in events:
    if a >= start and b <= start + (t1 - t0) and not name.startswith("PjitFunction("):
        per[name] = per.get(name, 0.0) + (b - a)
print(json.dumps({"first_call_s": t1 - t0, "per_event_s": per, "jax": jax.__version__}))
"""


def environments(names):
    """{name: interpreter} of jitbench's pinned environments by name."""
    listed = json.loads(subprocess.run([str(JITBENCH), "envs", "list", "--json"], check=True, capture_output=True,
                                       text=True).stdout)
    found = {n: pathlib.Path(e["dir"]) / "bin" / "python" for e in listed["environments"] for n in e["names"]}
    missing = [n for n in names if n not in found]
    if missing:
        sys.exit(f"no pinned environment named {', '.join(missing)}: build it with "
                 f"`build/jitbench run --env NAME:REQ;REQ ...` first (docs/environments.md)")
    return {n: found[n] for n in names}


def bare(python, args):
    out = subprocess.run([str(python), "-c", BARE, args.workload, str(args.n), args.dtype], check=True,
                         capture_output=True, text=True, cwd=tempfile.gettempdir(), timeout=900)
    return json.loads(out.stdout.strip().splitlines()[-1])


def jitbench_anatomy(python, args):
    """One anatomy process of the worker, with the environment jitbench gives it."""
    with tempfile.TemporaryDirectory(prefix="fidelity-cache-") as cache, tempfile.TemporaryFile() as channel:
        env = {k: v for k, v in os.environ.items() if not (k.startswith("JAX_") and "CACHE" in k)}
        env.update(PYTHONPATH=str(WORKER), PYTHONUNBUFFERED="1", PYTHONSAFEPATH="1", JITBENCH_CACHE_DIR=cache,
                   JITBENCH_CACHE_POLICY="cold_cache")
        subprocess.run([str(python), "-m", "jitbench_worker", "run", "--fd", str(channel.fileno()), "--mode", "anatomy",
                        "--backend", "jax_jit_cpu", "--workload", args.workload, "--n", str(args.n),
                        "--dtype", args.dtype], check=True, env=env, pass_fds=(channel.fileno(),),
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       cwd=tempfile.gettempdir(), timeout=900)
        channel.seek(0)
        messages = [json.loads(line) for line in channel.read().decode().splitlines() if line.strip()]
    result = next(m for m in messages if m.get("type") == "result")
    per = {}
    for it in result["anatomy"]["items"]:
        source = it["source"]
        if not source.startswith("jax.profiler event "):
            continue
        name = source[len("jax.profiler event "):]
        # The event's own time: its item's thread time, or its wall time on the dispatching thread with what
        # the phase's edge cut off it put back (clipped_s: JAX's lower_sharding_computation starts before the span).
        per[name] = per.get(name, 0.0) + it.get("thread_s", it["s"]) + it.get("clipped_s", 0.0)
    return {"first_call_s": result["first_call_s"], "per_event_s": per,
            "outside_phases": result["anatomy"].get("outside_phases")}


def uptime():
    return pathlib.Path("/proc/loadavg").read_text().split()[0]


def measure(args):
    pythons = environments(args.env)
    rounds = []
    for r in range(args.rounds):
        row = {"round": r + 1, "load_before": uptime(), "runs": {}}
        for i, (name, python) in enumerate(pythons.items()):
            order = ["bare", "jitbench"] if (r + i) % 2 == 0 else ["jitbench", "bare"]
            row["runs"][name] = {variant: (bare if variant == "bare" else jitbench_anatomy)(python, args)
                                 for variant in order}
            row["runs"][name]["order"] = order
        row["load_after"] = uptime()
        rounds.append(row)
        print(f"round {r + 1}/{args.rounds}: load {row['load_before']} -> {row['load_after']}", file=sys.stderr)
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True)
    return {"workload": f"{args.workload} {args.n} {args.dtype}", "commit": commit.stdout.strip(),
            "environments": list(pythons), "rounds": rounds}


def med(xs):
    return statistics.median(xs) if xs else None


def ms(s):
    return "—" if s is None else f"{s * 1e3:.1f}"


def tables(doc):
    out = [f"Workload {doc['workload']}, {len(doc['rounds'])} rounds; load average (1 min) "
           f"{min(float(r['load_before']) for r in doc['rounds']):.2f}–"
           f"{max(float(r['load_after']) for r in doc['rounds']):.2f}.", ""]
    for env in doc["environments"]:
        runs = [r["runs"][env] for r in doc["rounds"]]
        bare_compile = med([sum(x["bare"]["per_event_s"].get(e, 0.0) for e in COMPILE_EVENTS) for x in runs])
        names = {n for x in runs for n in x["bare"]["per_event_s"]}
        rows = []
        for name in names:
            b = med([x["bare"]["per_event_s"].get(name, 0.0) for x in runs])
            if b < 0.05 * bare_compile:
                continue
            j = med([x["jitbench"]["per_event_s"].get(name, 0.0) for x in runs])
            ratio = j / b if b else None
            rows.append((b, name, j, ratio))
        out += [f"**{env}** (first call and thread time per event, ms, medians of {len(runs)} processes each)", "",
                "| event | bare | jitbench | jitbench / bare | within 20% |", "|---|---|---|---|---|"]
        fb, fj = med([x["bare"]["first_call_s"] for x in runs]), med([x["jitbench"]["first_call_s"] for x in runs])
        out.append(f"| first call (perf_counter) | {ms(fb)} | {ms(fj)} | ×{fj / fb:.2f} | "
                   f"{'yes' if abs(fj / fb - 1) <= 0.2 else '**no**'} |")
        for b, name, j, ratio in sorted(rows, reverse=True):
            if not j:  # the execution's events: outside every phase in jitbench's tree (its outside_phases)
                out.append(f"| `{name}` | {ms(b)} | — (outside every phase) | — | — |")
                continue
            within = "yes" if abs(ratio - 1) <= 0.2 else "**no**"
            out.append(f"| `{name}` | {ms(b)} | {ms(j)} | ×{ratio:.2f} | {within} |")
        out.append("")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--env", action="append", default=[], help="a pinned environment's name (repeatable)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--workload", default="retrace_raw", choices=["retrace_raw"])
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--dtype", default="f32", choices=["f32", "f64"])
    p.add_argument("--out", type=pathlib.Path)
    p.add_argument("--tables-from", type=pathlib.Path)
    args = p.parse_args()
    if args.tables_from:
        print(tables(json.loads(args.tables_from.read_text())))
        return
    if not args.env:
        p.error("name at least one --env (or --tables-from FILE)")
    doc = measure(args)
    if args.out:  # per event name, the names of at least 1 ms (the tables show those above 5% of the compile)
        for row in doc["rounds"]:
            for runs in row["runs"].values():
                for variant in ("bare", "jitbench"):
                    per = runs[variant]["per_event_s"]
                    runs[variant]["per_event_s"] = {k: v for k, v in per.items() if v >= 1e-3}
        args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(tables(doc))


if __name__ == "__main__":
    main()
