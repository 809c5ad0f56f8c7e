"""The Markdown report of bench/sampling.sh: wall time and intervals reached per
run and per case. The interval is the one jitbench's --target-ci promises: the
distribution-free 95% interval of the median (order statistics), as a +-% of
the median, as each case file's `sampling` record holds it (jitbench.case.v4),
whichever way the case was sampled (a fixed count of 5 gives none: [min, max],
computed here, covers 93.75%)."""

import json
import pathlib
import statistics
import sys

RUNS = [("fixed", "fixed 5 cold + 1 warm process"), ("ci10", "--target-ci 10"), ("ci5", "--target-ci 5"),
        ("fixedN", "fixed, as many as ci5's neediest case")]


def half_width(case, side, xs):
    """(+-% of the 95% interval, as the case file records it, or None; +-% of [min, max])"""
    if len(xs) < 2:
        return None, None
    med = statistics.median(xs)
    span = max(med - min(xs), max(xs) - med) / med * 100
    return case["sampling"][side]["half_width_pct"], span


def sides(case):
    cold = [r["ttfr_s"] for r in case["cold"]["runs"] if r["status"] == "ok"]
    warm = case["warm"]["process_medians_s"]
    return {"cold": cold, "warm": warm}


def fmt(w):
    return "—" if w is None else f"±{w:.1f}%"


def main(work):
    work = pathlib.Path(work)
    walls = dict(line.split() for line in (work / "wall.txt").read_text().splitlines())
    runs = {}
    for name, _ in RUNS:
        d = work / name / "cases"
        if d.is_dir() and name in walls:
            runs[name] = {c["case"]: c for c in (json.loads(p.read_text()) for p in sorted(d.glob("*.json")))}
    print("| Run | Wall time | Processes | Ok cases | Cold: within ±5% / ±10% | Warm: within ±5% / ±10% "
          "| Widest cold | Widest warm |")
    print("|---|---|---|---|---|---|---|---|")
    for name, label in RUNS:
        if name not in runs:
            continue
        ok = [c for c in runs[name].values() if c["status"] == "ok"]
        procs = sum(len(c["cold"]["runs"]) + len(c["warm"]["runs"]) for c in runs[name].values())
        row = [label, f"{float(walls[name]):.0f} s", str(procs), str(len(ok))]
        widest = []
        for side in ("cold", "warm"):
            ws = [half_width(c, side, sides(c)[side])[0] for c in ok]
            within = lambda t: sum(1 for w in ws if w is not None and w <= t)
            row.append(f"{within(5)} / {within(10)} of {len(ok)}")
            known = [w for w in ws if w is not None]
            widest.append(fmt(max(known)) if len(known) == len(ws) and known else "none (too few samples)")
        print("| " + " | ".join(row + widest) + " |")
    if "ci5" in runs and "fixedN" in runs:
        print(f"\nWall time of --target-ci 5 against fixed counts that give every case at least its interval: "
              f"{float(walls['ci5']) / float(walls['fixedN']):.2f}×.")
    for name in ("ci10", "ci5"):
        if name not in runs or f"fixed_for_{name}" in runs:
            continue
        # Not measured: what fixed counts that give every case this run's
        # interval would take, from this run's own process wall times.
        ok = [c for c in runs[name].values() if c["status"] == "ok"]
        nc = max(len(sides(c)["cold"]) for c in ok)
        nw = max(len(c["warm"]["runs"]) for c in ok)
        est = sum(nc * statistics.median(r["wall_s"] for r in c["cold"]["runs"]) +
                  nw * statistics.median(r["wall_s"] for r in c["warm"]["runs"]) for c in ok)
        print(f"\nFixed counts that give every ok case of {name} at least its interval: {nc} cold + {nw} warm "
              f"processes per case; estimated from {name}'s own process wall times (median per case, ok cases only, "
              f"not measured): {est:.0f} s, so {name} takes {float(walls[name]) / est:.2f}× of it.")
    if "ci10" in runs and "fixed" in runs:
        print(f"Wall time of --target-ci 10 against the fixed default: "
              f"{float(walls['ci10']) / float(walls['fixed']):.2f}×.")
    print("\nPer case: samples (why sampling stopped) and the 95% interval, cold TTFR / warm per-process medians "
          "([min, max] for fixed 5 runs, which has no 95% interval):\n")
    names = [n for n, _ in RUNS if n in runs]
    print("| Case | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for cid in sorted(runs[names[0]]):
        cells = []
        for n in names:
            c = runs[n].get(cid)
            if c is None or c["status"] != "ok":
                cells.append(c["status"] + (": " + c["reason"] if c and c["reason"] else "") if c else "—")
                continue
            parts = []
            for side in ("cold", "warm"):
                xs = sides(c)[side]
                w, span = half_width(c, side, xs)
                stop = c.get("sampling", {}).get(side, {}).get("stopped", "")
                stop = "" if stop == "fixed_count" else f" {stop}"
                parts.append(f"{len(xs)}{stop} {fmt(w) if w is not None else '[min,max] ' + fmt(span)}")
            cells.append(" / ".join(parts))
        print(f"| `{cid}` | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
