"""Interleaving against a machine that gets busy halfway (docs/noise.md, "Interleaving").

Two identical pinned environments (the same numpy wheel, built by uv from
.deps/wheels with no index) measure one case each, twice: one environment
after the other (--no-interleave) and interleaved (the default). Halfway
through each run's cold processes (counted from the logs it writes), CPU hogs,
one per core, start and run until the run ends (at most --hog-seconds). Prints
a Markdown table: per mode, each environment's median cold TTFR and their ratio.

    .venv/bin/python bench/interleave_hog.py WORK_DIR [--cold-runs 10] [--case matmul_256_f32]
"""
import argparse
import json
import multiprocessing
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
J = os.environ.get("JITBENCH", str(ROOT / "build" / "jitbench"))


def hog(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def cold_logs(out):
    return len(list(out.glob("logs/*/cold-*.log")))


def measure(work, mode, args, wheel_version):
    out = work / mode
    envs = [a for name in ("same1", "same2") for a in ("--env", f"{name}:numpy=={wheel_version}")]
    argv = [J, "run", "--quiet", "--out-dir", str(out), "--backends", "numpy", "--cases", args.case,
            "--cold-runs", str(args.cold_runs), "--warm-iters", "1", *envs,
            "--find-links", str(ROOT / ".deps" / "wheels"), "--no-index"]
    if mode == "sequential":
        argv.append("--no-interleave")
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    hogs, half = [], args.cold_runs  # half of 2 x cold_runs
    while proc.poll() is None:
        if not hogs and cold_logs(out) > half:
            hogs = [multiprocessing.Process(target=hog, args=(args.hog_seconds,)) for _ in range(os.cpu_count() or 2)]
            for h in hogs:
                h.start()
        time.sleep(0.05)
    for h in hogs:
        h.terminate()
        h.join()
    if proc.returncode != 0:
        sys.exit(f"interleave_hog: {mode}: jitbench run exited {proc.returncode}: {proc.stderr.read()[-2000:]}")
    medians = {}
    for f in sorted((out / "cases").glob("*.json")):
        case = json.loads(f.read_text())
        medians[case["case"]] = statistics.median(r["ttfr_s"] for r in case["cold"]["runs"] if r["status"] == "ok")
    return medians, bool(hogs)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("work")
    p.add_argument("--cold-runs", type=int, default=10)
    p.add_argument("--case", default="matmul_256_f32")
    p.add_argument("--hog-seconds", type=float, default=120)
    args = p.parse_args()
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=False)
    wheel = next((ROOT / ".deps" / "wheels").glob("numpy-*.whl"))
    version = wheel.name.split("-")[1]
    print(f"| mode | {' | '.join(['env same1 median cold TTFR', 'env same2 median cold TTFR'])} | same2/same1 | hog started |")
    print("|---|---|---|---|---|")
    for mode in ("sequential", "interleaved"):
        medians, hogged = measure(work, mode, args, version)
        (m1, m2) = [medians[k] for k in sorted(medians)]
        print(f"| {mode} | {m1 * 1e3:.1f} ms | {m2 * 1e3:.1f} ms | {m2 / m1:.2f} | {'yes' if hogged else 'no'} |")


if __name__ == "__main__":
    main()
