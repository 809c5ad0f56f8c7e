#!/usr/bin/env python3
"""The anatomy processes of one release step, from separately recorded runs,
as the compact file the "of which" rule's stability test replays
(src/compare/anatomy_verdict_test.cc, tests/data/anatomy/steps/).

    .venv/bin/python bench/anatomy_step_data.py --case retrace_raw_4096_f32 \\
        --base jax-0.7.2 --new jax-0.8.0 --out tests/data/anatomy/steps/FILE.json RUN_DIR...

Each RUN_DIR is a `jitbench run --env BASE --env NEW --anatomy` of the case;
the file keeps, per run and side, every ok anatomy process's items (wall time
per path, and the thread group of another thread's item), without their
intervals, and leaves out the items under --min-ms in every process (they
cannot hold a share of a change of hundreds of milliseconds; their count is
recorded).
"""

import argparse
import json
import pathlib


def processes(case_file):
    case = json.loads(case_file.read_text())
    out = []
    for run in case["anatomy"]["runs"]:
        if run["status"] != "ok":
            continue
        items = {}
        for it in run["worker"]["anatomy"]["items"]:
            key = tuple(it["path"])
            s, thread = items.get(key, (0.0, it.get("thread", "")))
            items[key] = (s + it["s"], thread)
        out.append(items)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", type=pathlib.Path)
    p.add_argument("--case", required=True)
    p.add_argument("--base", required=True)
    p.add_argument("--new", required=True)
    p.add_argument("--min-ms", type=float, default=1.0)
    p.add_argument("--out", type=pathlib.Path, required=True)
    args = p.parse_args()
    runs = []
    for run in args.runs:
        prefix = run / "cases" / f"jax_jit_cpu_{args.case}__env-"
        runs.append({side: processes(pathlib.Path(f"{prefix}{side}.json")) for side in (args.base, args.new)})
    everything = [procs for run in runs for procs in run.values()]
    longest = {}
    for procs in everything:
        for items in procs:
            for path, (s, thread) in items.items():
                longest[path] = (max(longest.get(path, (0.0, ""))[0], s), thread)
    kept = sorted(path for path, (s, _) in longest.items() if s * 1e3 >= args.min_ms)
    index = {path: i for i, path in enumerate(kept)}
    doc = {"case": args.case, "base": args.base, "new": args.new,
           "recorded": [str(r) for r in args.runs],
           "left_out": {"items": len(longest) - len(kept), "rule": f"under {args.min_ms:g} ms in every process"},
           "paths": [list(p) for p in kept], "threads": [longest[p][1] for p in kept],
           "runs": [{side: [[round(items.get(path, (0.0, ""))[0], 9) for path in kept] for items in procs]
                     for side, procs in run.items()} for run in runs]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"{args.out}: {len(kept)} items kept, {len(longest) - len(kept)} left out, {len(runs)} runs")


if __name__ == "__main__":
    main()
