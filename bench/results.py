#!/usr/bin/env python3
"""Regenerates the published results pages (docs/results-*.md) from runs of the
current code, so that no page is older than the code it describes.

    .venv/bin/python bench/results.py [PAGE ...] [--runs DIR] [--reuse] [--docs DIR]
    .venv/bin/python bench/results.py gpu --runs DIR   # from a GPU machine's tarballs (docs/gpu.md)

For each page (default: all), runs its suite with build/jitbench into
DIR/<page> (default DIR: /tmp/jitbench-results), validates the run, and writes
docs/results-<page>.md from bench/results/<page>.md, a template whose
placeholders are filled from that run:

  {{header}}              the command, the commit (git describe --always --dirty),
                          the statuses and wall time, validate's verdict, the machine
                          and the package versions
  {{summary}}             the run's summary.md, unedited (headings one level down)
  {{phase_timers}}        (cache-modes) bench/phase_timers.py's table: the cache phases
                          against timers jitbench does not own, run after the suite
  {{environments}}        (releases) how each pinned environment was built: its
                          requirements, variables, held date, build time and size
                          (from the index's `environments`; an environment the
                          cache already held shows its first build)
  {{CASE|METRIC}}         a median over the case's ok cold runs (or warm calls):
                          ttfr, process_ttfr, import, setup, first_call, second_call,
                          warm, phase:NAME (a phase of the first call), compiles,
                          unattributed_share, priming:NAME (a phase of the warm_cache
                          priming run), status
  {{CASE|METRIC|range}}   the same as min–max
  {{CASE|METRIC|/OTHER}}  the ratio of the two medians ("33x")

After the default-suite and releases pages it reports their runs and saves a
headless-Chromium screenshot of each report.html in docs/img (SCREENSHOTS);
`--screenshot RUN PNG` does that alone, for a run made elsewhere.

    .venv/bin/python bench/results.py --shots [three-environments] [site] [anatomy]

makes the runs behind the other screenshots docs/report-and-compare.md shows,
into DIR/shot-<name>, and saves them (SHOTS): a three-environment run (numpy
cases in three pinned NumPy releases, built with uv) as
docs/img/report-three-environments.png, and a history site `jitbench publish`
made of four small runs (a case left out of the third: a gap) as
docs/img/site-four-snapshots.png and its case page as
docs/img/site-four-snapshots-case.png; and a run with --anatomy (mc_pi in JAX,
numba and, where installed, TensorFlow) whose report's "Inside the compile"
section is docs/img/report-anatomy.png.

It measures the code of the checkout it lives in: its build/jitbench, its
worker/ (JITBENCH_WORKER_DIR is set to it) and its suites, and refuses a tree
whose tracked sources differ from the commit it would name (--allow-dirty
measures anyway and names the commit "-dirty"). Run it from a clean checkout,
or a `git worktree` of the commit, after building it.

A placeholder naming a case or a metric the run does not have is an error:
a page cannot quietly keep a figure its run no longer supports. --reuse renders
from the runs already in DIR without measuring again (for editing templates).
TensorFlow rows need scripts/setup.sh --with-tensorflow, torch and Triton rows
--with-torch;
the header lists every package version the run saw.
"""

import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

from results_format import summary_body  # beside this file, on sys.path as the script's folder

ROOT = pathlib.Path(__file__).resolve().parent.parent
JITBENCH = ROOT / "build" / "jitbench"
DOCS = ROOT / "docs"

# page -> extra arguments of `jitbench run` (the suite it documents)
PAGES = {
    "default-suite": [],
    "backends": ["--suite", "suites/backends.toml"],
    "cache-modes": ["--suite", "suites/cache-modes.toml"],
    "transforms": ["--suite", "suites/transforms.toml"],
    "floors": ["--suite", "suites/floors.toml"],
    "releases": ["--suite", "suites/releases.toml"],
    "loops": ["--suite", "suites/loops.toml"],
    "anatomy": ["--suite", "suites/anatomy-releases.toml"],
    "anatomy-suite": ["--suite", "suites/anatomy.toml"],
}


class Run:
    def __init__(self, out):
        self.out = out
        self.index = json.loads((out / "index.json").read_text())
        self.env = json.loads((out / "environment.json").read_text())
        self.cases = {c["case"]: json.loads((out / c["path"]).read_text()) for c in self.index["cases"]}
        if not meta_path(out).is_file():
            sys.exit(f"results: {out} has no {meta_path(out).name} beside it: it is no run bench/results.py made "
                     "(measure it again without --reuse)")
        self.meta = json.loads(meta_path(out).read_text())

    def values(self, case_id, metric):
        if case_id not in self.cases:
            raise KeyError(f"the run has no case {case_id!r}")
        c = self.cases[case_id]
        ok = [r for r in c["cold"]["runs"] if r["status"] == "ok"]
        if metric == "warm":
            return c["warm"]["calls_s"]
        if metric in ("ttfr", "process_ttfr", "import", "setup", "first_call", "second_call"):
            key = metric + "_s"
            return [r[key] for r in ok if r.get(key) is not None]
        if metric.startswith("phase:"):
            name = metric.split(":", 1)[1]
            return [r["first_call_breakdown"]["phases"].get(name, 0.0) for r in ok if r["first_call_breakdown"]]
        if metric.startswith("priming:"):
            name = metric.split(":", 1)[1]
            p = c.get("priming")
            if not p or not p.get("first_call_breakdown"):
                raise KeyError(f"{case_id} has no priming run")
            return [p["first_call_breakdown"]["phases"].get(name, 0.0)]
        if metric == "compiles":
            return [r["worker"]["compiles"]["first_call"] for r in ok
                    if r["worker"].get("compiles", {}).get("first_call") is not None]
        if metric == "unattributed_share":
            return [r["first_call_breakdown"]["unattributed_share"] for r in ok
                    if r["first_call_breakdown"] and r["first_call_breakdown"]["unattributed_share"] is not None]
        raise KeyError(f"unknown metric {metric!r}")

    def fill(self, case_id, metric, how=""):
        if metric == "status":
            c = self.cases[case_id]
            return c["status"] + (f" / {c['reason']}" if c["reason"] else "")
        xs = self.values(case_id, metric)
        if not xs:
            raise KeyError(f"{case_id} has no {metric} values")
        fmt = (lambda v: f"{v:.0f}") if metric == "compiles" else \
              (lambda v: f"{v * 100:.0f}%") if metric == "unattributed_share" else seconds
        if how == "range":
            return f"{fmt(min(xs))}–{fmt(max(xs))}"
        if how.startswith("/"):
            other = self.values(how[1:], metric)
            if not other or statistics.median(other) <= 0:
                raise KeyError(f"{how[1:]} has no {metric} to divide by")
            r = statistics.median(xs) / statistics.median(other)
            return f"{r:.0f}x" if r >= 10 else f"{r:.1f}x"
        if how:
            raise KeyError(f"unknown qualifier {how!r}")
        return fmt(statistics.median(xs))

    def environments_table(self):
        envs = self.index.get("environments")
        if not envs:
            raise KeyError("the run has no pinned environments")
        rows = ["| environment | requirements | variables | others held to | built in | on disk | this run |",
                "|---|---|---|---|---|---|---|"]
        seen, total_s, total_b = set(), 0.0, 0
        for e in envs:
            b = e.get("build") or {}
            if not e["ok"]:
                rows.append(f"| {e['name']} | {' '.join(e['requirements'])} | | | | | {e['reason']} |")
                continue
            if b["hash"] not in seen:  # two names for one build (a variables-only environment) count once
                seen.add(b["hash"])
                total_s, total_b = total_s + b["build_s"], total_b + b["bytes"]
            variables = " ".join(f"{k}={v}" for k, v in e["variables"].items()) or "—"
            rows.append(f"| {e['name']} | {' '.join(e['requirements'])} | {variables} | "
                        f"{(b.get('exclude_newer') or 'not held')[:10]} | {b['build_s']:.1f} s | "
                        f"{b['bytes'] / 2**20:.0f} MiB | {'reused' if b.get('reused') else 'built'} |")
        rows.append(f"| **{len(seen)} builds** | | | | **{total_s:.0f} s** | **{total_b / 2**30:.1f} GiB** | |")
        return "\n".join(rows)

    def header(self, page):
        counts = {}
        for c in self.index["cases"]:
            counts[c["status"]] = counts.get(c["status"], 0) + 1
        statuses = ", ".join(f"{counts.get(s, 0)} {s}" for s in ("ok", "warn", "failed"))
        host = self.env.get("host", {})
        cpu = host.get("cpu", {})
        py = self.env.get("python", {})
        pkgs = ", ".join(f"{k} {v}" for k, v in sorted(py.get("packages", {}).items()) if v)
        command = " ".join(["build/jitbench", "run", *PAGES[page], "--out-dir", f"/tmp/jitbench-results/{page}"])
        return "\n".join([
            f"Generated by `bench/results.py {page}` at commit `{self.meta['commit']}` on {self.meta['date']}:",
            "",
            "```sh",
            f"{command}   # {len(self.index['cases'])} cases: {statuses} — wall {self.meta['wall_s']:.1f} s",
            f"build/jitbench validate /tmp/jitbench-results/{page}   # {self.meta['validate']}",
            "```",
            "",
            f"Machine: {cpu.get('model', '?')}, {cpu.get('logical_cores', '?')} logical cores, "
            f"{host.get('os', '?')}; Python {py.get('version', '?')}; {pkgs}.",
        ] + ([f"", f"Load average (1, 5, 15 min) when the run began: {self.meta['load'][0]}; when it ended: "
              f"{self.meta['load'][1]}."] if self.meta.get("load") else [])
          + ([f"", f"Conditions: {self.meta['note']}"] if self.meta.get("note") else []))


# What decides the measured code: a change here makes the commit a lie.
SOURCES = ["src", "worker", "native", "schemas", "suites", "CMakeLists.txt", "requirements"]


def commit_of_tree(allow_dirty):
    dirty = subprocess.run(["git", "status", "--porcelain", "--", *SOURCES], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    if dirty:
        if not allow_dirty:
            sys.exit("results: the checkout's sources differ from its commit (git status: "
                     f"{dirty.splitlines()[0]} ...): commit, or measure a clean `git worktree`, or --allow-dirty")
        return commit.removesuffix("-dirty") + "-dirty"
    return commit.removesuffix("-dirty")


def measure(page, out, commit, note):
    if out.exists():
        subprocess.run(["rm", "-rf", str(out), str(meta_path(out))], check=True)
    env = dict(os.environ, JITBENCH_WORKER_DIR=str(ROOT / "worker"),
               JITBENCH_FIGURES_DIR=str(ROOT / "src" / "report" / "figures"))
    t0, load_before = time.monotonic(), load_average()
    proc = subprocess.run([str(JITBENCH), "run", *PAGES[page], "--out-dir", str(out), "--quiet"], cwd=ROOT,
                          stdin=subprocess.DEVNULL, env=env)
    wall, load_after = time.monotonic() - t0, load_average()
    if proc.returncode not in (0, 2):  # 2: a case failed, which the page then shows
        sys.exit(f"results: {page}: jitbench run exited {proc.returncode}")
    v = subprocess.run([str(JITBENCH), "validate", str(out)], capture_output=True, text=True)
    if v.returncode != 0:
        sys.exit(f"results: {page}: the run does not validate: {v.stdout}{v.stderr}")
    if "{{phase_timers}}" in (ROOT / "bench" / "results" / f"{page}.md").read_text():
        beside = out.parent / f"{page}-phase-timers"  # not in the run's out dir: validate would see it
        subprocess.run(["rm", "-rf", str(beside)], check=True)
        timers = subprocess.run([sys.executable, str(ROOT / "bench" / "phase_timers.py"), "--runs", "5", "--out",
                                 str(beside)], cwd=ROOT, env=env, capture_output=True, text=True)
        if timers.returncode != 0:
            sys.exit(f"results: {page}: bench/phase_timers.py failed: {timers.stderr}")
        (beside / "table.md").write_text(timers.stdout)
    meta = {"note": note, "commit": commit, "date": time.strftime("%Y-%m-%d"), "wall_s": wall,
            "validate": (v.stdout.strip().splitlines() or ["valid"])[-1], "load": [load_before, load_after]}
    meta_path(out).write_text(json.dumps(meta))


def load_average():
    """The machine's load average (1, 5 and 15 min), as uptime prints it."""
    return " ".join(pathlib.Path("/proc/loadavg").read_text().split()[:3])


def meta_path(out):
    """How the run was made, kept beside the run: a file inside it is one its
    index does not list, so `jitbench validate` and `report` would refuse the run.
    A run made before it moved (--reuse) still has it inside."""
    beside, inside = out.parent / f"{out.name}-meta.json", out / "results-meta.json"
    return inside if inside.is_file() and not beside.is_file() else beside


# page -> the screenshot of its run's report in docs/img (docs/report-and-compare.md shows them)
SCREENSHOTS = {"default-suite": "report-default-suite.png", "releases": "report-releases.png"}
CHROMIUM = "/usr/bin/chromium"


def report_run(run):
    """`jitbench report RUN` (RUN/report/report.html); exits on failure."""
    env = dict(os.environ, JITBENCH_WORKER_DIR=str(ROOT / "worker"),
               JITBENCH_FIGURES_DIR=str(ROOT / "src" / "report" / "figures"))
    rep = subprocess.run([str(JITBENCH), "report", str(run)], env=env, capture_output=True, text=True)
    if rep.returncode != 0:
        sys.exit(f"results: jitbench report {run} exited {rep.returncode}: {rep.stderr.strip()}")


def screenshot_report(run, png, size=(1280, 2000)):
    """`jitbench report RUN`, then its report.html as a PNG from headless
    Chromium (a file:// URL: the report needs no server)."""
    report_run(run)
    png = pathlib.Path(png).resolve()
    png.unlink(missing_ok=True)
    page = (pathlib.Path(run) / "report" / "report.html").resolve().as_uri()
    shot = subprocess.run([CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                           f"--window-size={size[0]},{size[1]}", f"--screenshot={png}", page],
                          capture_output=True, text=True, timeout=180)
    if shot.returncode != 0 or not png.is_file():
        sys.exit(f"results: Chromium made no screenshot of {page}: {shot.stderr.strip()[-300:]}")
    print(f"results: wrote {png}", file=sys.stderr)


def screenshot_page(html, png, size=(1280, 1600)):
    """A page as a PNG from headless Chromium, its scripts given time to draw (the site's charts)."""
    png = pathlib.Path(png).resolve()
    png.unlink(missing_ok=True)
    shot = subprocess.run([CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                           "--virtual-time-budget=5000", f"--window-size={size[0]},{size[1]}",
                           f"--screenshot={png}", pathlib.Path(html).resolve().as_uri()],
                          capture_output=True, text=True, timeout=180)
    if shot.returncode != 0 or not png.is_file():
        sys.exit(f"results: Chromium made no screenshot of {html}: {shot.stderr.strip()[-300:]}")
    print(f"results: wrote {png}", file=sys.stderr)


def shot_run(out, args, env):
    """`jitbench run ARGS --out-dir OUT` (a case may fail: the picture shows it); exits on anything else."""
    subprocess.run(["rm", "-rf", str(out)], check=True)
    proc = subprocess.run([str(JITBENCH), "run", *args, "--out-dir", str(out), "--quiet"], cwd=ROOT,
                          stdin=subprocess.DEVNULL, env=env)
    if proc.returncode not in (0, 2):
        sys.exit(f"results: jitbench run {' '.join(args)} exited {proc.returncode}")


# The NumPy releases of the three-environment picture (wheels for Python 3.11 each).
THREE_ENVS = ["numpy-1.26:numpy==1.26.4", "numpy-2.1:numpy==2.1.3", "numpy-2.3:numpy==2.3.5"]
SHOT_CASES = ["--cases", "matmul_512_f32,mc_pi_100000_f64", "--cold-runs", "3", "--warm-iters", "10"]


def shot_three_environments(runs, env):
    out = runs / "shot-three-environments"
    args = ["--backends", "numpy", *SHOT_CASES]
    for e in THREE_ENVS:
        args += ["--env", e]
    shot_run(out, args, env)
    screenshot_report(out, DOCS / "img" / "report-three-environments.png", size=(1280, 2400))


def shot_site(runs, env):
    """Four runs published one after another into a fresh site; the third leaves mc_pi out."""
    site = runs / "shot-site"
    subprocess.run(["rm", "-rf", str(site)], check=True)
    for i in range(4):
        cases = "matmul_512_f32" if i == 2 else "matmul_512_f32,mc_pi_100000_f64"
        out = runs / f"shot-site-run{i + 1}"
        shot_run(out, ["--backends", "numpy", "--cases", cases, "--cold-runs", "3", "--warm-iters", "10"],
                 env)
        pub = subprocess.run([str(JITBENCH), "publish", str(out), "--to", str(site), "--id", f"week-{i + 1}"],
                             env=env, capture_output=True, text=True)
        if pub.returncode != 0:
            sys.exit(f"results: jitbench publish {out} exited {pub.returncode}: {pub.stderr.strip()}")
    screenshot_page(site / "index.html", DOCS / "img" / "site-four-snapshots.png", size=(1280, 720))
    case = sorted((site / "cases").glob("*mc_pi_100000_f64*.html"))[0]  # in 3 of the 4: a gap
    screenshot_page(case, DOCS / "img" / "site-four-snapshots-case.png", size=(1280, 1500))


def shot_anatomy(runs, env):
    """A run with --anatomy of mc_pi in JAX, numba and (where it is installed) TensorFlow; its report's
    "Inside the compile" section (one icicle per case) alone, as docs/anatomy.md shows it."""
    out = runs / "shot-anatomy"
    backends = "jax_jit_cpu,numba" + (",tensorflow" if _importable("tensorflow") else "")
    shot_run(out, ["--backends", backends, "--cases", "mc_pi_100000_f64", "--cold-runs", "3",
                   "--warm-iters", "10", "--anatomy", "--anatomy-runs", "3"], env)
    report_run(out)
    screenshot_section(out / "report" / "report.html", "#anatomy", DOCS / "img" / "report-anatomy.png")


def _importable(module):
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def screenshot_section(html, selector, png):
    """One element of a page as a PNG (Playwright driving Debian's Chromium, as the browser tests do)."""
    from playwright.sync_api import sync_playwright

    png = pathlib.Path(png).resolve()
    png.unlink(missing_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(pathlib.Path(html).resolve().as_uri())
        page.locator(selector).screenshot(path=str(png))
        browser.close()
    print(f"results: wrote {png}", file=sys.stderr)


SHOTS = {"three-environments": shot_three_environments, "site": shot_site, "anatomy": shot_anatomy}


PLACEHOLDER = re.compile(r"\{\{([^}]+)\}\}")
RUN_LINE = re.compile(r"^\d+ cases: .* Summary: ")


def render(page, run):
    template = (ROOT / "bench" / "results" / f"{page}.md").read_text()
    summary = summary_body((run.out / "summary.md").read_text())

    def one(m):
        key = m.group(1).strip()
        if key == "header":
            return run.header(page)
        if key == "summary":
            return summary.strip()
        if key == "environments":
            return run.environments_table()
        if key == "phase_timers":
            # Only the table, not the line of the jitbench run phase_timers.py makes.
            table = (run.out.parent / f"{page}-phase-timers" / "table.md").read_text()
            return "".join(ln for ln in table.splitlines(keepends=True) if not RUN_LINE.match(ln)).strip()
        parts = key.split("|")
        if len(parts) not in (2, 3):
            raise KeyError(f"bad placeholder {{{{{key}}}}}")
        return run.fill(*parts)

    try:
        text = PLACEHOLDER.sub(one, template)
    except KeyError as e:
        sys.exit(f"results: {page}: {e.args[0]} (bench/results/{page}.md)")
    (DOCS / f"results-{page}.md").write_text(text)


def render_gpu(runs, docs):
    """The GPU page: rendered from the parts gpu-verify.sh brought back, never
    measured here (bench/results_gpu.py)."""
    import results_gpu  # beside this file, on sys.path as the script's folder
    if runs is None:
        sys.exit("results: gpu: name the folder of unpacked gpu-*.tar.gz with --runs DIR (docs/gpu.md)")
    if not runs.is_dir():
        sys.exit(f"results: gpu: --runs {runs} is not a folder: unpack the gpu-*.tar.gz there (docs/gpu.md)")
    gpu = results_gpu.GpuRuns(runs, JITBENCH)
    template = (ROOT / "bench" / "results" / "gpu.md").read_text()
    try:
        text = PLACEHOLDER.sub(lambda m: gpu.fill(m.group(1).strip()), template)
    except KeyError as e:
        sys.exit(f"results: gpu: {e.args[0]} (bench/results/gpu.md)")
    (docs / "results-gpu.md").write_text(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="*", help=f"pages to regenerate (default: all of {', '.join(PAGES)}; "
                                             "gpu only when named: it renders the runs a GPU machine brought back)")
    ap.add_argument("--runs", type=pathlib.Path, help="where the runs are (default /tmp/jitbench-results; "
                                                      "gpu: the unpacked tarballs, required)")
    ap.add_argument("--reuse", action="store_true", help="render from the runs already in --runs")
    ap.add_argument("--allow-dirty", action="store_true", help="measure a tree that differs from its commit")
    ap.add_argument("--note", default="", help="what else ran on the machine, said in every page's header")
    ap.add_argument("--docs", type=pathlib.Path, default=ROOT / "docs", help="where the pages are written")
    ap.add_argument("--screenshot", nargs=2, metavar=("RUN", "PNG"),
                    help="only report RUN (an out dir made elsewhere) and save its screenshot as PNG")
    ap.add_argument("--shots", nargs="*", metavar="SHOT",
                    help=f"only make the runs of these screenshots and save them (default: all of {', '.join(SHOTS)})")
    args = ap.parse_args()
    global DOCS
    DOCS = args.docs
    if args.screenshot:
        screenshot_report(*args.screenshot)
        return
    if args.shots is not None:
        for name in args.shots:
            if name not in SHOTS:
                sys.exit(f"results: unknown shot {name!r} (known: {', '.join(SHOTS)})")
        env = dict(os.environ, JITBENCH_WORKER_DIR=str(ROOT / "worker"),
                   JITBENCH_FIGURES_DIR=str(ROOT / "src" / "report" / "figures"))
        for name in args.shots or list(SHOTS):
            SHOTS[name](args.runs or pathlib.Path("/tmp/jitbench-results"), env)
        return
    for page in args.pages:
        if page not in PAGES and page != "gpu":
            sys.exit(f"results: unknown page {page!r} (known: {', '.join(PAGES)}, gpu)")
    if "gpu" in args.pages:
        render_gpu(args.runs, args.docs)
        print(f"results: wrote {args.docs / 'results-gpu.md'}", file=sys.stderr)
        args.pages.remove("gpu")
        if not args.pages:
            return
    args.runs = args.runs or pathlib.Path("/tmp/jitbench-results")
    commit = None if args.reuse else commit_of_tree(args.allow_dirty)
    for page in args.pages or list(PAGES):
        out = args.runs / page
        if not args.reuse:
            print(f"results: measuring {page} into {out}", file=sys.stderr)
            measure(page, out, commit, args.note)
        render(page, Run(out))
        print(f"results: wrote {DOCS / f'results-{page}.md'}", file=sys.stderr)
        if page in SCREENSHOTS:
            screenshot_report(out, DOCS / "img" / SCREENSHOTS[page])


if __name__ == "__main__":
    main()
