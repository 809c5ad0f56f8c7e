"""docs/results-gpu.md from the tarballs scripts/gpu-verify.sh brought back
from a lent GPU machine (docs/gpu.md), unpacked into one folder:

    .venv/bin/python bench/results.py gpu --runs DIR

DIR holds one folder per part (a/, b1/ ... d3/), each with its runs, logs,
steps/ and verdict.md. Nothing is measured here: each suite's shards are merged
with `jitbench merge` into DIR/merged/, every run is validated, and
bench/results/gpu.md's placeholders are filled:

  {{gpu_header}}        which parts came back, their verdicts, the GPU, the driver,
                        the frameworks' versions and the jitbench commit
  {{verdicts}}          one row per part: verdict, what failed first
  {{table:seed}}        the seed harness and jitbench on the seed's headline cases
  {{table:precision}}   per backend and size: matmul precision, error and warm call
                        at the framework's default and at IEEE float32
  {{table:baselines}}   each JIT against its eager baseline on the same GPU
  {{table:floors}}      native_cuda against the best JIT, and the measured ceilings
  {{table:phases}}      cold TTFR by phase (import, setup, first call's phases)
  {{table:cache_modes}} the three cache modes of matmul 1024
  {{summary:GROUP}}     a merged run's summary.md (headings one level down)

A group or part that has not come back renders as "not measured yet" with the
command that measures it, never as an error: the page fills in over several
GPU windows."""

import json
import shutil
import statistics
import subprocess

from results_format import seconds, summary_body

# group -> (part, step) of each shard, in shard order
GROUPS = {
    "gpu-smoke": [("a", "gpu-smoke")],
    "headline": [("a", "headline")],
    "gpu-default": [("b1", "gpu-default-1"), ("b2", "gpu-default-2"), ("b3", "gpu-default-3")],
    "gpu-highest": [("c1", "gpu-highest-1"), ("c2", "gpu-highest-2"), ("c3", "gpu-highest-3")],
    "floors-gpu": [("d1", "floors-gpu")],
    "loops-gpu": [("d2", "loops-gpu-1"), ("d3", "loops-gpu-2")],
}
PARTS = ["a", "b1", "b2", "b3", "c1", "c2", "c3", "d1", "d2", "d3"]
MARKER = ".made-by-bench-results"


def median(xs):
    xs = [x for x in xs if isinstance(x, (int, float))]
    return statistics.median(xs) if xs else None


def ceilings_line(ceilings):
    """Each device's measured peaks, or why it has none."""
    out = []
    for device, c in sorted(ceilings.items()):
        if not isinstance(c, dict):
            continue
        peaks = [f"{k.replace('_gflops', '')} {v:.0f} GFLOP/s" for k, v in sorted(c.items())
                 if k.endswith("_gflops") and isinstance(v, (int, float))]
        peaks += [f"{k.replace('_gbps', '')} {v:.0f} GB/s" for k, v in sorted(c.items())
                  if k.endswith("_gbps") and isinstance(v, (int, float))]
        out.append(f"{device}: " + (", ".join(peaks) if c.get("measured") and peaks
                                     else f"not measured ({c.get('reason') or c.get('note') or 'no reason given'})"))
    return "; ".join(out) or "none recorded"


def not_yet(parts):
    calls = "; ".join(f"`scripts/gpu-verify.sh {p}`" for p in parts)
    return f"*Not measured yet: {calls} on a GPU machine, then `bench/results.py gpu --runs DIR` (docs/gpu.md).*"


class Group:
    """One suite's runs on the GPU, its shards merged into one run."""

    def __init__(self, out):
        self.out = out
        self.index = json.loads((out / "index.json").read_text())
        self.env = json.loads((out / "environment.json").read_text())
        self.analysis = json.loads((out / "analysis.json").read_text())
        self.cases = {c["case"]: json.loads((out / c["path"]).read_text()) for c in self.index["cases"]}
        self.by_case = {c["case"]: c for c in self.analysis.get("cases", [])}
        self.incomplete = False

    def cold(self, case_id, key):
        c = self.cases.get(case_id)
        if not c:
            return None
        return median([r.get(key) for r in c["cold"]["runs"] if r["status"] == "ok"])

    def warm(self, case_id):
        c = self.cases.get(case_id)
        return median(c["warm"]["calls_s"]) if c and c["status"] == "ok" else None

    def status(self, case_id):
        c = self.cases.get(case_id)
        if not c:
            return "not in the run"
        return c["status"] + (f": {c['reason']}" if c.get("reason") else "")

    def verify(self, case_id):
        c = self.cases.get(case_id)
        runs = [r for r in (c or {}).get("cold", {}).get("runs", []) if r.get("worker")]
        return (runs[0]["worker"].get("verify") or {}) if runs else {}


class GpuRuns:
    def __init__(self, runs, jitbench):
        self.runs, self.jitbench = runs, jitbench
        self.parts = {p: runs / p for p in PARTS if (runs / p / "verdict.md").exists()}
        self.groups, self.missing = {}, {}
        merged = runs / "merged"
        if merged.exists():
            if not (merged / MARKER).exists():
                raise SystemExit(f"results: {merged} exists and is not one bench/results.py made: move it away")
            shutil.rmtree(merged)
        merged.mkdir()
        (merged / MARKER).write_text("bench/results.py gpu merges the shards here; it replaces this folder\n")
        for name, shards in GROUPS.items():
            dirs = [runs / p / s for p, s in shards if (runs / p / s / "index.json").exists()]
            self.missing[name] = [p for p, s in shards if not (runs / p / s / "index.json").exists()]
            if not dirs:
                continue
            if len(shards) == 1:
                out = dirs[0]
            else:
                out = merged / name
                m = subprocess.run([str(jitbench), "merge", str(out), *map(str, dirs)], capture_output=True, text=True)
                if not (out / "index.json").exists():
                    raise SystemExit(f"results: gpu: jitbench merge of {name} wrote nothing: {m.stderr.strip()}")
            # 6: valid but incomplete (a shard not back yet, a part cut short): shown, and said.
            v = subprocess.run([str(jitbench), "validate", str(out)], capture_output=True, text=True)
            if v.returncode not in (0, 6):
                raise SystemExit(f"results: gpu: {out} does not validate: {v.stdout}{v.stderr}")
            self.groups[name] = Group(out)
            self.groups[name].incomplete = v.returncode == 6

    # -- placeholders ------------------------------------------------------------
    def header(self):
        if not self.groups:
            return not_yet(PARTS)
        g = next(iter(self.groups.values()))
        host, py = g.env.get("host", {}), g.env.get("python", {})
        gpus = (host.get("gpu") or {}).get("devices") or []
        gpu = ", ".join(f"{d.get('name')} ({d.get('memory_total_mib')}, driver {d.get('driver')})" for d in gpus)
        pkgs = ", ".join(f"{k} {v}" for k, v in sorted((py.get("packages") or {}).items()) if v)
        git = (g.index.get("jitbench_git") or {}).get("describe", "?")
        lines = [f"Rendered by `bench/results.py gpu` from the parts that came back: "
                 f"{', '.join(self.parts) or 'none'}; jitbench `{git}`.", "",
                 f"GPU: {gpu or 'none recorded'}. CPU: {host.get('cpu', {}).get('model', '?')}, "
                 f"{host.get('cpu', {}).get('logical_cores', '?')} logical cores; {host.get('os', '?')}; "
                 f"Python {py.get('version', '?')}; {pkgs}."]
        if any((x.env.get("env") or {}).get("JITBENCH_TEST_GPU_ON_CPU") == "1" for x in self.groups.values()):
            lines += ["", "**Test rendering: these runs were made with JITBENCH_TEST_GPU_ON_CPU=1 (the GPU "
                          "backends on the CPU); no figure here is a GPU measurement.**"]
        return "\n".join(lines)

    def verdicts(self):
        rows = ["| part | verdict | failed checks | first of them |", "|---|---|---|---|"]
        for p in PARTS:
            if p not in self.parts:
                rows.append(f"| {p} | not run yet | | |")
                continue
            text = (self.parts[p] / "verdict.md").read_text()
            verdict = text.splitlines()[0].split(":")[-1].strip()
            failed = text.split("## What failed", 1)[1].split("## Steps", 1)[0] if "## What failed" in text else ""
            items = [ln[2:] for ln in failed.splitlines() if ln.startswith("- ")]
            first = items[0].replace("|", "\\|")[:140] if items else ""
            rows.append(f"| {p} | {verdict} | {len(items)} | {first} |")
        return "\n".join(rows)

    def table_seed(self):
        h, seed_dir = self.groups["headline"], self.runs / "a" / "seed" / "cases"
        if not seed_dir.is_dir():
            return not_yet(["a"])
        rows = ["| case | harness | status | cold import | cold first call | cold TTFR | warm call |",
                "|---|---|---|---|---|---|---|"]
        for n in (512, 1024):
            case = f"jax_jit_gpu_matmul_{n}_f32"
            seed = json.loads((seed_dir / f"{case}.json").read_text()) if (seed_dir / f"{case}.json").exists() else {}
            t = seed.get("timing") or {}
            med = lambda side, key: ((t.get(side) or {}).get(key) or {}).get("median")
            ok = seed.get("status") == "ok"
            show = seconds if ok else (lambda x: "—")
            rows.append(f"| `{case}` | seed suite.py | {seed.get('status', 'not run')}"
                        f"{': ' + seed['reason'] if seed.get('reason') else ''} | {show(med('cold', 'import_s'))} "
                        f"| {show(med('cold', 'first_call_s'))} | {show(med('cold', 'ttfr_s'))} "
                        f"| {show(med('warm', 'call_s'))} |")
            rows.append(f"| `{case}` | jitbench | {h.status(case)} | {seconds(h.cold(case, 'import_s'))} "
                        f"| {seconds(h.cold(case, 'first_call_s'))} | {seconds(h.cold(case, 'ttfr_s'))} "
                        f"| {seconds(h.warm(case))} |")
        return "\n".join(rows)

    def table_precision(self):
        d, hi = self.groups["gpu-default"], self.groups["gpu-highest"]
        rows = ["| case | status default / highest | matmul precision (default) | error default | error highest "
                "| warm default | warm highest | highest / default |", "|---|---|---|---|---|---|---|---|"]
        for case in sorted(c for c in d.cases if "_matmul_" in c and "__" not in c):
            high = case + "__highest"
            pd = (d.cases[case].get("precision") or {}).get("matmul", "—")
            ed, eh = d.verify(case).get("error"), hi.verify(high).get("error")
            wd, wh = d.warm(case), hi.warm(high)
            ratio = f"{wh / wd:.2f}x" if wd and wh else "—"
            rows.append(f"| `{case}` | {d.status(case)} / {hi.status(high)} | {pd} "
                        f"| {'—' if ed is None else f'{ed:.1e}'} | {'—' if eh is None else f'{eh:.1e}'} "
                        f"| {seconds(wd)} | {seconds(wh)} | {ratio} |")
        return "\n".join(rows)

    def table_baselines(self):
        d = self.groups["gpu-default"]
        rows = ["| JIT case | eager baseline | JIT cold TTFR | eager cold TTFR | JIT warm | eager warm "
                "| break-even N* |", "|---|---|---|---|---|---|---|"]
        for b in d.analysis.get("break_even", []):
            jit, eager = b.get("jit_case"), b.get("eager_case")
            lo, hi = b.get("calls_ci95") or [None, None]
            n = {"never": "never", "immediately": "immediately"}.get(b.get("verdict"))
            if n is None:
                n = f"{b['calls']:.0f} calls" + (f" [{lo:.0f}–{hi:.0f}]" if lo is not None and hi is not None else "")
            rows.append(f"| `{jit}` | `{eager}` ({b['baseline']['kind']}) | {seconds(b.get('ttfr_jit_s'))} "
                        f"| {seconds(b.get('ttfr_eager_s'))} | {seconds(b.get('warm_jit_s'))} "
                        f"| {seconds(b.get('warm_eager_s'))} | {n} |")
        if len(rows) == 2:
            rows.append("| no JIT with an ok eager baseline in the run | | | | | | |")
        return "\n".join(rows)

    def table_floors(self):
        f = self.groups["floors-gpu"]
        rows = ["| workload | native_cuda warm | best JIT | its warm | JIT / floor | achieved | ceiling fraction |",
                "|---|---|---|---|---|---|---|"]
        for wl in ("mc_pi_100000000_f32", "matmul_4096_f32"):
            floor = f"native_cuda_{wl}"
            jits = [(f.warm(c), c) for c in f.cases if c.endswith("_" + wl) and c != floor and f.warm(c)]
            best = min(jits) if jits else (None, "no ok JIT")
            tp = {t["case"]: t for t in f.analysis.get("throughput", [])}
            t = tp.get(best[1], {})
            ceiling = t.get("ceiling") or {}
            fw = f.warm(floor)
            ratio = f"{best[0] / fw:.2f}x" if fw and best[0] else "—"
            achieved = "—" if t.get("achieved") is None else f"{t['achieved']:.1f} {t.get('unit', '')}"
            frac = "—" if ceiling.get("fraction") is None else f"{ceiling['fraction']:.2f} of {ceiling.get('name')}"
            rows.append(f"| {wl} | {seconds(fw) if fw else f.status(floor)} | `{best[1]}` | {seconds(best[0])} "
                        f"| {ratio} | {achieved} | {frac} |")
        rows += ["", "Ceilings measured at the start of the run: " + ceilings_line(f.env.get("ceilings") or {}) + "."]
        return "\n".join(rows)

    def table_phases(self):
        d = self.groups["gpu-default"]
        rows = ["| case | cold TTFR | import | setup | first call | its phases (medians) | unattributed |",
                "|---|---|---|---|---|---|---|"]
        for b in ("jax_jit_gpu", "torch_compile_gpu", "triton"):
            case = f"{b}_matmul_1024_f32"
            a = (d.by_case.get(case) or {}).get("first_call") or {}
            phases = ", ".join(f"{k} {seconds(v)}" for k, v in (a.get("phases_median_s") or {}).items() if v)
            rows.append(f"| `{case}` ({d.status(case)}) | {seconds(d.cold(case, 'ttfr_s'))} "
                        f"| {seconds(d.cold(case, 'import_s'))} | {seconds(d.cold(case, 'setup_s'))} "
                        f"| {seconds(a.get('median_s'))} | {phases or 'none reported'} "
                        f"| {seconds(a.get('unattributed_median_s'))} |")
        return "\n".join(rows)

    def table_cache_modes(self):
        d = self.groups["gpu-default"]
        rows = ["| backend | cold_cache TTFR | warm_cache TTFR | warm_process first call |", "|---|---|---|---|"]
        for b in ("jax_jit_gpu", "torch_compile_gpu", "triton"):
            case = f"{b}_matmul_1024_f32"
            rows.append(f"| {b} | {seconds(d.cold(case, 'ttfr_s'))} | {seconds(d.cold(case + '__warm_cache', 'ttfr_s'))} "
                        f"| {seconds(d.cold(case + '__warm_process', 'first_call_s'))} |")
        return "\n".join(rows)

    def summary(self, name):
        g = self.groups[name]
        return summary_body((g.out / "summary.md").read_text()).strip()

    # the groups each table reads: none back, the table is "not measured yet"; one partial, a note says so
    USES = {"seed": ["headline"], "precision": ["gpu-default", "gpu-highest"], "baselines": ["gpu-default"],
            "floors": ["floors-gpu"], "phases": ["gpu-default"], "cache_modes": ["gpu-default"]}

    def partial(self, names):
        """A note for each group read here that is incomplete, naming what is missing."""
        notes = []
        for n in names:
            g = self.groups.get(n)
            if g is not None and (g.incomplete or self.missing.get(n)):
                gone = ", ".join(self.missing.get(n) or []) or "none"
                notes.append(f"*Partial: {n} is incomplete (parts not back: {gone}; a part cut short shows "
                             f"only what it measured).*")
        return "".join("\n\n" + x for x in notes)

    def fill(self, key):
        if key == "gpu_header":
            return self.header()
        if key == "verdicts":
            return self.verdicts()
        if key.startswith("table:"):
            table = key.split(":", 1)[1]
            fn = getattr(self, "table_" + table, None)
            if fn is None:
                raise KeyError(f"unknown table {key!r}")
            return self.when_back(self.USES[table], fn)
        if key.startswith("summary:"):
            name = key.split(":", 1)[1]
            if name not in GROUPS:
                raise KeyError(f"unknown group {name!r} (known: {', '.join(GROUPS)})")
            return self.when_back([name], lambda: self.summary(name))
        raise KeyError(f"unknown placeholder {key!r}")

    def when_back(self, names, render):
        """render() once every group in names came back (with a note on a
        partial one), else which parts would measure the missing ones."""
        absent = [n for n in names if n not in self.groups]
        if absent:
            return not_yet([p for n in absent for p in self.missing[n]])
        return render() + self.partial(names)
