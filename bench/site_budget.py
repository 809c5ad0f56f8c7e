"""The publish site's budgets (docs/publishing.md): a generated site of 100
snapshots x 50 cases, its index page <= 3 MB and a case page <= 1.5 MB (the
shared chart library counted once, with the page), each rendered in <= 2 s
in headless Chromium.

The site is rendered by the same code `jitbench publish` runs
(jitbench_figures.pages.render_site) from a synthetic input in the shape of
src/export/docs/site_json.cc's: two machines, the software changing every 25
snapshots, 8 metrics per case, cases missing from some snapshots, a few steps
flagged. Publishing 100 real runs of 50 cases would measure the same pages.

    .venv/bin/python bench/site_budget.py OUT_DIR [--snapshots 100] [--cases 50] [--no-browser]

prints one JSON line per page: bytes (the page and every file it loads),
and, with the browser, the time from navigation to every chart drawn.
"""

import argparse
import datetime
import hashlib
import json
import pathlib
import random
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src" / "report" / "figures"))

from jitbench_figures import pages  # noqa: E402

INDEX_BUDGET, CASE_BUDGET, RENDER_BUDGET_S = 3_000_000, 1_500_000, 2.0
METRICS = ["cold_ttfr_s", "cold_import_s", "cold_first_call_s", "phase_trace_s", "phase_lower_s",
           "phase_backend_compile_s", "warm_call_s", "peak_rss_kib"]
BASE = {"cold_ttfr_s": 1.2, "cold_import_s": 0.6, "cold_first_call_s": 0.3, "phase_trace_s": 0.02,
        "phase_lower_s": 0.01, "phase_backend_compile_s": 0.15, "warm_call_s": 2e-5, "peak_rss_kib": 350_000}


def synthesize(n_snapshots, n_cases, seed=38):
    rng = random.Random(seed)
    start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    snaps = []
    for k in range(n_snapshots):
        machine = "box-a" if k % 3 else "box-b"
        software = hashlib.sha256(f"{machine} release {k // 25}".encode()).hexdigest()
        snaps.append({"n": k + 1, "id": f"2026{k:04d}-{machine}", "published_at":
                      (start + datetime.timedelta(days=k * 2, hours=rng.randint(0, 20))).strftime("%Y-%m-%dT%H:%M:%SZ"),
                      "suite": "default", "machine": machine, "software": software, "jitbench": f"v1.{k}-g{k:07x}",
                      "ok": n_cases, "warn": 0, "failed": 0, "signer": "unsigned", "path": f"snapshots/s{k}",
                      "has_report": True})
    cases, flagged = [], []
    for c in range(n_cases):
        cid = f"backend{c % 7}_work{c}_{64 * (1 + c % 4)}_f32"
        series = {}
        for k, s in enumerate(snaps):
            if (c + k) % 17 == 0:
                continue  # this snapshot lacks the case: a gap
            for m in METRICS:
                key = (m, s["machine"], s["software"])
                line = series.setdefault(key, {"metric": m, "machine": s["machine"], "software": s["software"],
                                               "points": []})
                med = BASE[m] * (1 + 0.3 * (c % 5)) * rng.uniform(0.9, 1.1) * (1.5 if s["machine"] == "box-b" else 1)
                flag = rng.random() < 0.004
                line["points"].append({"snapshot": k, "median": med, "lo": med * 0.95, "hi": med * 1.06,
                                       "n": 5, "flagged": flag})
                if flag:
                    flagged.append({"machine": s["machine"], "from": snaps[k - 1]["id"], "to": s["id"], "case": cid,
                                    "metric": m, "ratio": 1.4, "lo": 1.2, "hi": 1.6, "p": 0.008,
                                    "status_change": "", "software_changed": False})
        cases.append({"id": cid, "series": list(series.values())})
    since_last = flagged[-3:]
    return {"site": {"generated_at": "2026-11-26T00:00:00Z", "gate_pct": 10, "alpha": 0.05, "snapshots": snaps,
                     "metrics": METRICS, "cases": cases, "since_last": since_last, "flagged": flagged}}


def write_site(data, out):
    for rel, text in pages.render_site(data).items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")


def page_bytes(out, rel):
    """The page and the files its <script src> and <link href> name, each once."""
    import re
    page = out / rel
    text = page.read_text(encoding="utf-8")
    total = len(page.read_bytes())
    for ref in sorted(set(re.findall(r"""(?:src|href)='([^'#]+\.(?:js|css))'""", text))):
        total += (page.parent / ref).stat().st_size
    return total


def render_seconds(browser, url, charts):
    page = browser.new_page()
    errors = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    t0 = time.perf_counter()
    page.goto(url, wait_until="load")
    if charts:
        page.wait_for_function(f"window.jitbenchGraphs && window.jitbenchGraphs().length === {charts}")
    seconds = time.perf_counter() - t0
    page.close()
    return seconds, errors


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=pathlib.Path)
    ap.add_argument("--snapshots", type=int, default=100)
    ap.add_argument("--cases", type=int, default=50)
    ap.add_argument("--no-browser", action="store_true")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    data = synthesize(a.snapshots, a.cases)
    write_site(data, a.out)
    targets = [("index.html", INDEX_BUDGET, 0)]
    biggest = max((a.out / "cases").glob("*.html"), key=lambda p: p.stat().st_size)
    targets.append((f"cases/{biggest.name}", CASE_BUDGET, biggest.read_text(encoding="utf-8").count("class='chart'")))
    ok = True
    browser = None
    if not a.no_browser:
        from playwright.sync_api import sync_playwright
        pw = sync_playwright().start()
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    for rel, budget, charts in targets:
        row = {"page": rel, "bytes": page_bytes(a.out, rel), "budget_bytes": budget}
        ok &= row["bytes"] <= budget
        if browser:
            runs = [render_seconds(browser, (a.out / rel).as_uri(), charts) for _ in range(3)]
            row["render_s"] = [round(s, 3) for s, _ in runs]
            row["console_errors"] = sum((e for _, e in runs), [])
            ok &= max(s for s, _ in runs) <= RENDER_BUDGET_S and not row["console_errors"]
        print(json.dumps(row))
    if browser:
        browser.close()
        pw.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
