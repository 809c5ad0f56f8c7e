"""How much the machine's load moves instruction counts, beside time
(issue 50; docs/noise.md, "Instructions").

    .venv/bin/python bench/counts_noise.py WORK_DIR [--cases mc_pi_100000_f64]
        [--backends numba,jax_jit_cpu] [--runs 3] [--skip-quiet] [--skip-hogs]
    .venv/bin/python bench/counts_noise.py WORK_DIR --report RUN_DIR...

Two `jitbench run --count instructions` runs of the same cases, one after
the other: first on the machine as it is ("quiet-ish": whatever else runs
here), then with two CPU hogs (`yes`, one per core on a 2-core machine)
running for exactly that run and killed however this script ends. Each run
has --runs timed cold processes and --runs counting processes per case.
For each case and phase it prints, within each run, the spread of the
counting processes' counts and of the timed processes' times as max/min - 1
(a ratio inside one run: nothing is compared across runs), the load at the
run's start and end, and its wall time. Needs build/jitbench (or $JITBENCH)
and valgrind (this machine has no PMU)."""

import argparse
import json
import os
import pathlib
import signal
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
J = os.environ.get("JITBENCH", str(ROOT / "build" / "jitbench"))
# The counting phases and the timed phase each is set beside.
PHASES = [("import", "import_s"), ("setup", "setup_s"), ("first_call", "first_call_s"), ("ttfr", "ttfr_s"),
          ("second_call", "second_call_s"), ("warm_call", None)]


def load():
    return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])


def spread(xs):
    xs = [x for x in xs if x is not None]
    if len(xs) < 2 or min(xs) <= 0:
        return None
    return max(xs) / min(xs) - 1


def run(out, args, hogs):
    procs = []
    try:
        for _ in range(hogs):
            procs.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL, start_new_session=True))
        if hogs:
            time.sleep(2)
        before, t0 = load(), time.monotonic()
        cmd = [J, "run", "--cases", args.cases, "--backends", args.backends, "--cold-runs", str(args.runs),
               "--warm-iters", "2", "--count", "instructions", "--count-runs", str(args.runs), "--jobs", "2",
               "--quiet", "--out-dir", str(out)]
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall, after = time.monotonic() - t0, load()
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    print(f"\n## {'two hogs' if hogs else 'quiet-ish'}: exit {rc.returncode}, {wall:.0f} s, load {before} -> {after}")
    print("$ " + " ".join(cmd))
    if rc.returncode not in (0, 1):
        print(rc.stderr[-2000:])
    return out


def report(out):
    print("| case | phase | count median | count spread | time median (s) | time spread |")
    print("|---|---|---|---|---|---|")
    for f in sorted((out / "cases").glob("*.json")):
        case = json.loads(f.read_text())
        counts = {p["phase"]: p for p in ((case.get("counts") or {}).get("summary") or {}).get("phases", [])}
        cold = [r for r in (case.get("cold") or {}).get("runs", []) if r.get("status") == "ok"]
        for phase, key in PHASES:
            c = counts.get(phase)
            if c is None and phase != "first_call":
                continue
            times = [r.get(key) for r in cold] if key else []
            ts = spread(times)
            tm = sorted(t for t in times if t is not None)
            cs = (c["max"] / c["min"] - 1) if c and c["min"] else None
            print(f"| {case['case']} | {phase} | {c['median'] / 1e6:.2f} M | "
                  f"{'-' if cs is None else f'{100 * cs:.2f}%'} | "
                  f"{f'{statistics.median(tm):.4g}' if tm else '-'} | {'-' if ts is None else f'{100 * ts:.0f}%'} |"
                  if c else f"| {case['case']} | {phase} | not counted | | | |")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("work", type=pathlib.Path)
    p.add_argument("--cases", default="mc_pi_100000_f64")
    p.add_argument("--backends", default="numba,jax_jit_cpu")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--skip-quiet", action="store_true")
    p.add_argument("--skip-hogs", action="store_true")
    p.add_argument("--report", type=pathlib.Path, nargs="+", metavar="RUN_DIR",
                   help="only print the table of these earlier runs' out dirs (a bisect step's too)")
    args = p.parse_args()
    if args.report:
        for d in args.report:
            print(f"\n## {d}")
            report(d)
        return
    args.work.mkdir(parents=True, exist_ok=True)
    for name, hogs, skip in (("quiet", 0, args.skip_quiet), ("hogs", 2, args.skip_hogs)):
        if not skip:
            report(run(args.work / name, args, hogs))


if __name__ == "__main__":
    sys.exit(main())
