#!/usr/bin/env python3
"""jitbench against a bare fresh-process script and against the seed harness,
on the same cases, per phase; and where JAX's one-time set-up lands.

    .venv/bin/python bench/harness_fidelity.py --runs 10 [--seed-harness DIR] [--out DIR]
    .venv/bin/python bench/harness_fidelity.py --whole 3 --seed-harness DIR [--before BIN --before-worker DIR]

DIR of --seed-harness is a checkout of NextStat/nextstat-public-benchmarks
(its suites/ml/suite.py is run as it is, with this interpreter). Fresh
processes of the three harnesses are interleaved round by round, so that a
change in the machine's load hits all of them alike. Prints Markdown tables
(docs/harness-fidelity.md) and writes the raw samples to OUT/samples.json.

Bare-script variants, each a fresh process timing import, setup, first and
second call of a jitted matmul with perf_counter:
  device_put  inputs made in NumPy and moved with jax.device_put (jitbench's order)
  asarray     inputs made with jnp.asarray (a jitted conversion on the way)
  warmup      jitbench's order, with one trivial jitted call before the setup,
              timed on its own: where JAX's one-time dispatch set-up goes

--whole ROUNDS times WHOLE runs instead: the seed's suite.py, this tree's
jitbench and (--before) another build of it, each on numpy and jax_jit_cpu x
matmul 512/1024 f32 with 5 cold processes and 30 warm calls, one after the
other in an order rotated every round, with the load average beside each
round; then each jitbench process's harness buckets (the gap between its wall
and its measured total_s, itemised).
"""

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
PY = sys.executable

BARE = r"""
import json, sys, time
variant, n, dtype = sys.argv[1], int(sys.argv[2]), sys.argv[3]
t0 = time.perf_counter()
import jax
jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_enable_x64", dtype == "float64")
import jax.numpy as jnp
import numpy as np
jax.device_put(1.0).block_until_ready()        # device initialised, as jitbench's import step
t_import = time.perf_counter()
trivial = None
if variant == "warmup":
    t = time.perf_counter()
    jax.jit(lambda x: x + 1.0)(jnp.float32(1.0) if dtype == "float32" else 1.0).block_until_ready()
    trivial = time.perf_counter() - t
    t_import = time.perf_counter()
rng = np.random.default_rng(0)
host = [rng.standard_normal((n, n)).astype(dtype) for _ in range(2)]
if variant == "asarray":
    a, b = (jnp.asarray(x) for x in host)
else:
    a, b = (jax.device_put(x) for x in host)
jax.block_until_ready((a, b))
f = jax.jit(lambda x, y: x @ y)
t_setup = time.perf_counter()
f(a, b).block_until_ready()
t_first = time.perf_counter()
f(a, b).block_until_ready()
t_second = time.perf_counter()
print(json.dumps({"import_s": t_import - t0, "setup_s": t_setup - t_import, "first_call_s": t_first - t_setup,
                  "second_call_s": t_second - t_first, "trivial_jit_s": trivial}))
"""

CASES = [("matmul", 512, "f32"), ("matmul", 1024, "f32")]
DTYPES = {"f32": "float32", "f64": "float64"}


def bare(script, variant, n, dtype):
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    out = subprocess.run([PY, script, variant, str(n), DTYPES[dtype]], capture_output=True, text=True, env=env,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def jitbench_round(out, backends, runs_per_round):
    shutil.rmtree(out, ignore_errors=True)
    cases = ",".join(f"{w}_{n}_{d}" for w, n, d in CASES)
    subprocess.run([str(ROOT / "build" / "jitbench"), "run", "--backends", backends, "--cases", cases,
                    "--cold-runs", str(runs_per_round), "--warm-iters", "30", "--ceilings", "off", "--quiet",
                    "--out-dir", str(out)], check=True, stdin=subprocess.DEVNULL)
    rows = {}
    for c in json.loads((out / "index.json").read_text())["cases"]:
        case = json.loads((out / c["path"]).read_text())
        rows[c["case"]] = [{k: r[k] for k in ("import_s", "setup_s", "first_call_s", "second_call_s", "ttfr_s")}
                           for r in case["cold"]["runs"] if r["status"] == "ok"]
    return rows


def seed_round(seed_dir, out, backends, runs_per_round):
    shutil.rmtree(out, ignore_errors=True)
    cases = ",".join(f"{w}_{n}_{d}" for w, n, d in CASES)
    subprocess.run([PY, str(seed_dir / "suites" / "ml" / "suite.py"), "--out-dir", str(out), "--cold-runs",
                    str(runs_per_round), "--warm-iters", "30", "--cases", cases, "--backends", backends],
                   check=True, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    rows = {}
    for path in (out / "cases").glob("*.json"):
        if path.name.startswith("."):
            continue  # the seed's per-process scratch files
        case = json.loads(path.read_text())
        rows[case["case"]] = [{"import_s": r["import_s"], "setup_s": 0.0, "first_call_s": r["first_call_s"],
                               "second_call_s": r["second_call_s"], "ttfr_s": r["import_s"] + r["first_call_s"]}
                              for r in case["timing"]["cold"]["runs"] if r["status"] == "ok"]
    return rows


WHOLE_CASES = "matmul_512_f32,matmul_1024_f32"
BUCKETS = ("interpreter_start_s", "harness_import_s", "harness_observe_s", "harness_verify_s", "harness_report_s",
           "harness_exit_s")


def timed(argv, env=None):
    """Wall seconds of one whole harness run (a fresh command, as a user starts it).
    A non-zero exit (a case that failed: jitbench exits 2) is timed all the same."""
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t0


def jitbench_whole(binary, worker_dir, out, cold, warm):
    """One whole `jitbench run` of the four cases; its wall and, per process,
    the harness's own buckets (case files' buckets) and the worker's wall."""
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, JITBENCH_WORKER_DIR=str(worker_dir))
    wall = timed([str(binary), "run", "--backends", "numpy,jax_jit_cpu", "--cases", WHOLE_CASES, "--cold-runs",
                  str(cold), "--warm-iters", str(warm), "--ceilings", "off", "--quiet", "--out-dir", str(out)], env)
    procs = []
    for c in json.loads((out / "index.json").read_text())["cases"]:
        case = json.loads((out / c["path"]).read_text())
        for r in case["cold"]["runs"] + case["warm"]["runs"] + ([case["crosscheck"]] if case.get("crosscheck") else []):
            procs.append({"case": c["case"], "mode": r["mode"], "wall_s": r["wall_s"], "total_s": r["total_s"] or 0.0,
                          "status": r["status"], "buckets": r.get("buckets") or {}})
    return {"wall_s": wall, "procs": procs}


def seed_whole(seed_dir, out, cold, warm):
    shutil.rmtree(out, ignore_errors=True)
    wall = timed([PY, str(seed_dir / "suites" / "ml" / "suite.py"), "--out-dir", str(out), "--cold-runs", str(cold),
                  "--warm-iters", str(warm), "--cases", WHOLE_CASES, "--backends", "numpy,jax_jit_cpu"])
    return {"wall_s": wall}


def whole_runs(args):
    """--whole: whole runs of each harness on the four cases, interleaved round
    by round (the order rotated each round), then the per-process gap."""
    harnesses = [("seed", lambda o: seed_whole(args.seed_harness, o, args.cold, args.warm))]
    for name, binary, worker in (("before", args.before, args.before_worker), ("after", ROOT / "build" / "jitbench",
                                                                              ROOT / "worker")):
        if binary:
            harnesses.append((name, lambda o, b=binary, w=worker: jitbench_whole(b, w, o, args.cold, args.warm)))
    rounds = []
    for i in range(args.whole):
        order = harnesses[i % len(harnesses):] + harnesses[:i % len(harnesses)]
        one = {"load_before": os.getloadavg()}
        for name, run in order:
            one[name] = run(args.out / f"whole-{name}-{i}")
        one["load_after"] = os.getloadavg()
        one["order"] = [n for n, _ in order]
        rounds.append(one)
        print(f"round {i + 1}/{args.whole}: " + ", ".join(f"{n} {one[n]['wall_s']:.1f} s" for n, _ in order)
              + f" (load {one['load_before'][0]:.1f} -> {one['load_after'][0]:.1f})", file=sys.stderr)
    (args.out / "whole.json").write_text(json.dumps(rounds, indent=1))
    print_whole(rounds, args.out / "whole.json")


def print_whole(rounds, path):
    """The side-by-side walls, each jitbench run's wall split into its worker
    processes by kind and the rest (jitbench itself: the probe, the artifacts),
    and each kind of process's buckets."""
    names = [n for n in ("before", "after") if n in rounds[0]]
    print("| round | order | load (1 min) before → after | seed wall | " +
          " | ".join(f"jitbench {n} wall | {n} / seed" for n in names) + " |")
    print("|---|---|---|---|" + "---|---|" * len(names))
    for i, r in enumerate(rounds):
        cells = " | ".join(f"{r[n]['wall_s']:.1f} s | {r[n]['wall_s'] / r['seed']['wall_s']:.2f}×" for n in names)
        print(f"| {i + 1} | {' → '.join(r['order'])} | {r['load_before'][0]:.1f} → {r['load_after'][0]:.1f} | "
              f"{r['seed']['wall_s']:.1f} s | {cells} |")
    print("\nEach jitbench run's wall, s: its worker processes by kind (count) and the rest (jitbench itself: "
          "the environment probe, planning, the artifacts):\n")
    print("| round | jitbench | wall | cold | warm | ahead-of-time cross-check | rest |")
    print("|---|---|---|---|---|---|---|")
    for i, r in enumerate(rounds):
        for n in names:
            by = {}
            for p in r[n]["procs"]:
                k = by.setdefault(p["mode"], [0, 0.0])
                k[0], k[1] = k[0] + 1, k[1] + p["wall_s"]
            rest = r[n]["wall_s"] - sum(v[1] for v in by.values())
            cell = lambda m: f"{by[m][1]:.1f} ({by[m][0]})" if m in by else "—"
            print(f"| {i + 1} | {n} | {r[n]['wall_s']:.1f} | {cell('cold')} | {cell('warm')} | {cell('aot')} | "
                  f"{rest:.1f} |")
    print("\nPer process (median over the rounds' processes of that kind), ms:\n")
    print("| jitbench | case | process | n | wall | measured (total_s) | " +
          " | ".join(b.removesuffix("_s").replace("_", " ") for b in BUCKETS) + " | harness gap |")
    print("|---|---|---|---|---|---|" + "---|" * len(BUCKETS) + "---|")
    for n in names:
        groups = {}
        for r in rounds:
            for p in r[n]["procs"]:
                groups.setdefault((p["case"], p["mode"]), []).append(p)
        for (case, mode), ps in sorted(groups.items()):
            med = lambda f: statistics.median(f(p) for p in ps) * 1e3
            bs = " | ".join(f"{med(lambda p, b=b: p['buckets'].get(b, 0.0)):.1f}" for b in BUCKETS)
            print(f"| {n} | `{case}` | {mode} | {len(ps)} | {med(lambda p: p['wall_s']):.1f} | "
                  f"{med(lambda p: p['total_s']):.1f} | {bs} | {med(lambda p: p['wall_s'] - p['total_s']):.1f} |")
    print(f"\nraw rounds in {path}")


def ms(xs):
    if not xs:
        return "—"
    return f"{statistics.median(xs) * 1e3:.1f} [{min(xs) * 1e3:.1f}–{max(xs) * 1e3:.1f}]"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10, help="fresh processes per harness and case")
    ap.add_argument("--seed-harness", type=pathlib.Path, help="checkout of NextStat/nextstat-public-benchmarks")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path(tempfile.mkdtemp(prefix="fidelity-")))
    ap.add_argument("--whole", type=int, default=0, metavar="ROUNDS",
                    help="time whole runs instead (4 cases, --cold cold + --warm warm), interleaved with the seed")
    ap.add_argument("--cold", type=int, default=5)
    ap.add_argument("--warm", type=int, default=30)
    ap.add_argument("--before", type=pathlib.Path, help="--whole: another jitbench binary to time beside this tree's")
    ap.add_argument("--before-worker", type=pathlib.Path, help="--whole: the worker directory of --before")
    ap.add_argument("--tables-from", type=pathlib.Path, metavar="WHOLE_JSON",
                    help="print --whole's tables again from its whole.json")
    args = ap.parse_args()
    if args.tables_from:
        return print_whole(json.loads(args.tables_from.read_text()), args.tables_from)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.whole:
        if not args.seed_harness:
            ap.error("--whole needs --seed-harness DIR")
        return whole_runs(args)
    script = args.out / "bare.py"
    script.write_text(BARE)

    samples = {}  # harness -> case -> [run]
    add = lambda harness, case, runs: samples.setdefault(harness, {}).setdefault(case, []).extend(runs)
    for i in range(args.runs):
        # One round: one fresh process of each variant and harness per case.
        for w, n, d in CASES:
            for variant in ("device_put", "asarray", "warmup"):
                add(f"bare:{variant}", f"jax_jit_cpu_{w}_{n}_{d}", [bare(script, variant, n, d)])
        for case, runs in jitbench_round(args.out / f"jitbench-{i}", "numpy,jax_jit_cpu", 1).items():
            add("jitbench", case, runs)
        if args.seed_harness:
            for case, runs in seed_round(args.seed_harness, args.out / f"seed-{i}", "numpy,jax_jit_cpu", 1).items():
                add("seed", case, runs)
        print(f"round {i + 1}/{args.runs} done", file=sys.stderr)
    (args.out / "samples.json").write_text(json.dumps(samples, indent=1))

    print("| case | harness | import | setup | first call | second call | TTFR | trivial jitted call |")
    print("|---|---|---|---|---|---|---|---|")
    for case in sorted({c for h in samples.values() for c in h}):
        for harness in sorted(samples):
            runs = samples[harness].get(case)
            if not runs:
                continue
            col = lambda k: ms([r[k] for r in runs if r.get(k) is not None])
            ttfr = [r.get("ttfr_s") or r["import_s"] + r["setup_s"] + r["first_call_s"] for r in runs]
            print(f"| `{case}` | {harness} | {col('import_s')} | {col('setup_s')} | {col('first_call_s')} | "
                  f"{col('second_call_s')} | {ms(ttfr)} | {col('trivial_jit_s')} |")
    print(f"\nms: median [min–max] over {args.runs} fresh processes each; raw samples in {args.out / 'samples.json'}")


if __name__ == "__main__":
    main()
