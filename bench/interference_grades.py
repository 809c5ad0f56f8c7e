"""Interference grades under three loads (docs/noise.md, "Grades").

Measures one cheap built-in case (numpy matmul_64_f32 by default) four times:
beside an idle shell, beside one CPU hog (`yes > /dev/null`: a shared machine,
load about 2-3 with the worker on 2 cores), beside two, and beside two per CPU
(each hog a session of its own, as independent jobs are). Per condition it
prints the grades of the measured processes (cold and warm; analysis.json's
counts), the CPUs everything but the worker took (median and range over the
processes, from each case file's interference figures) and `uptime` before
and after. The thresholds are src/results/interference.h's; this only reads
what jitbench recorded.

    .venv/bin/python bench/interference_grades.py WORK_DIR [--cold-runs 8] [--case matmul_64_f32] [--json]

WORK_DIR must not exist; each condition's run is kept in it.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
J = os.environ.get("JITBENCH", str(ROOT / "build" / "jitbench"))
# Each hog runs in a session of its own, as an independent job on a shared
# machine does: with the kernel's autogroup scheduling on (Debian's default),
# CPU time is shared between sessions first, so hogs in one session with the
# worker would take less than independent ones.
CONDITIONS = (("idle shell", 0), ("one hog", 1), ("two hogs", 2), ("two hogs per CPU", 2 * (os.cpu_count() or 1)))
SETTLE_S = 2  # the hogs run this long before the first process, so every process runs beside them


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def others_cpus(out):
    """The CPUs everything but the worker took, per measured process (other_cpu_s / wall_s)."""
    values = []
    for f in sorted((out / "cases").glob("*.json")):
        case = json.loads(f.read_text())
        for side in ("cold", "warm"):
            for run in (case.get(side) or {}).get("runs") or []:
                x = run.get("interference")
                if run["status"] == "ok" and x and x["wall_s"] > 0:
                    values.append(x["other_cpu_s"] / x["wall_s"])
    return values


def grades(out):
    """Measured processes per grade, cold and warm together (analysis.json), and the case's grade per side."""
    counts = {"quiet": 0, "busy": 0, "contended": 0, "not reported": 0}
    sides = {}
    for case in json.loads((out / "analysis.json").read_text())["cases"]:
        for side, share in case["interference"].items():
            if "grade" not in share:
                sys.exit(f"interference_grades: {out}/analysis.json has no grades: build jitbench from this tree")
            for g in ("quiet", "busy", "contended"):
                counts[g] += share[g]
            counts["not reported"] += share["runs"] - share["reported"]
            sides[f"{case['case']} {side}"] = share["grade"]
    return counts, sides


def measure(work, name, hogs, args):
    out = work / name.replace(" ", "-")
    before = uptime()
    procs = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL, start_new_session=True) for _ in range(hogs)]
    try:
        time.sleep(SETTLE_S if hogs else 0)
        argv = [J, "run", "--quiet", "--out-dir", str(out), "--backends", "numpy", "--cases", args.case,
                "--cold-runs", str(args.cold_runs), "--warm-iters", "5"]
        proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    finally:
        for p in procs:
            p.kill()
            p.wait()
    after = uptime()
    if proc.returncode != 0:
        sys.exit(f"interference_grades: {name}: jitbench run exited {proc.returncode}: {proc.stderr[-2000:]}")
    counts, sides = grades(out)
    cpus = others_cpus(out)
    return {"condition": name, "hogs": hogs, "out_dir": str(out), "grades": counts, "case_grades": sides,
            "others_cpus": {"median": statistics.median(cpus) if cpus else None,
                            "min": min(cpus) if cpus else None, "max": max(cpus) if cpus else None,
                            "n": len(cpus)},
            "n_cpus": os.cpu_count(), "uptime_before": before, "uptime_after": after}


def table(rows):
    lines = ["| condition | processes: quiet / busy / contended / not reported | case grade (cold, warm) "
             "| others' CPUs: median [range] of N | uptime before | uptime after |", "|---|---|---|---|---|---|"]
    for r in rows:
        g, o = r["grades"], r["others_cpus"]
        cpus = "not reported" if o["median"] is None else \
            f"{o['median']:.2f} [{o['min']:.2f}–{o['max']:.2f}] of {r['n_cpus']}"
        lines.append(f"| {r['condition']} | {g['quiet']} / {g['busy']} / {g['contended']} / {g['not reported']} "
                     f"| {', '.join(r['case_grades'].values())} | {cpus} | `{r['uptime_before']}` "
                     f"| `{r['uptime_after']}` |")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("work")
    p.add_argument("--cold-runs", type=int, default=8)
    p.add_argument("--case", default="matmul_64_f32")
    p.add_argument("--json", action="store_true", help="print the figures as JSON instead of a Markdown table")
    args = p.parse_args()
    work = pathlib.Path(args.work)
    try:
        work.mkdir(parents=True, exist_ok=False)
    except FileExistsError:
        sys.exit(f"interference_grades: {work} exists: name a new directory (each condition's run is kept in it)")
    rows = [measure(work, name, hogs, args) for name, hogs in CONDITIONS]
    print(json.dumps({"case": args.case, "cold_runs": args.cold_runs, "conditions": rows}, indent=2)
          if args.json else table(rows))


if __name__ == "__main__":
    main()
