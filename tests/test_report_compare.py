"""`jitbench report` and `jitbench compare` on real runs. Assertions are about
behaviour: what the page contains and how a browser loads it, which verdicts
and exit codes compare gives; the one slowed run differs by a 20 ms sleep per
call against a ~0.1 ms call, far beyond any noise."""

import csv
import json
import os
import re
import subprocess
import sys

import pytest
from forge import rehash

from conftest import FAKE_WORKER_DIR, ROOT

pytestmark = pytest.mark.quick

EXAMPLE = str(ROOT / "examples" / "workloads" / "softmax_rows.py")
CASE = "numpy_softmax_rows_128_f32"


def small_run(jitbench, cold="5", env=None, warm_runs="4"):
    # Four warm processes a side by default: compare tests warm calls per process.
    res = jitbench("run", "--workload-path", EXAMPLE, "--backends", "numpy", "--cases", "softmax_rows_128_f32",
                   "--cold-runs", cold, "--warm-iters", "10", "--warm-runs", warm_runs, env=env)
    assert res.rc == 0, res.stderr
    return res


@pytest.fixture(scope="module")
def report_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("rep") / "run"
    proc = subprocess.run([str(ROOT / "build" / "jitbench"), "run", "--backends", "numpy,jax_jit_cpu,triton",
                           "--cases", "mc_pi_10000_f32,rnn_scan_8_f32,rnn_unrolled_8_f32", "--cold-runs", "2",
                           "--warm-iters", "3", "--out-dir", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rep = subprocess.run([str(ROOT / "build" / "jitbench"), "report", str(out)], capture_output=True, text=True)
    assert rep.returncode == 0, rep.stderr
    return out


@pytest.mark.heavy("jax")
def test_report_is_self_contained_and_lists_every_case(report_run):
    page = (report_run / "report" / "report.html").read_text()
    index = json.loads((report_run / "index.json").read_text())
    for c in index["cases"]:
        assert f"data-case='{c['case']}'" in page, c["case"]
    # Offline: no external resource of any kind, no script at all (the only URLs
    # left are SVG namespace names, which are never fetched).
    assert re.findall(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page) == []
    for needle in ("<script", "<link", "@import", "url(http"):
        assert needle not in page, needle
    assert page.count("<svg") >= 3  # phases, warm calls, and at least one more figure
    assert "id='fig-rnn'" in page
    md = (report_run / "report" / "report.md").read_text()
    assert "## Environment" in md and "## Warnings" in md


@pytest.mark.heavy("jax")
def test_report_states_warnings(report_run):
    page = (report_run / "report" / "report.html").read_text()
    assert "few runs" in page  # 2 cold runs
    index = json.loads((report_run / "index.json").read_text())
    statuses = {c["case"]: c for c in index["cases"]}
    section = page.split("<section id='warnings'>")[1].split("</section>")[0]
    assert "few runs" in section
    for cid, c in statuses.items():
        if c["status"] != "ok":  # triton: missing torch or interpreter-only, said either way
            assert cid in section, cid


@pytest.mark.heavy("jax")
def test_report_starts_with_the_answer(report_run):
    # Before any table of numbers: per piece of work, who gave the first
    # result soonest, who is fastest warm, and the JIT's break-even.
    page = (report_run / "report" / "report.html").read_text()
    assert page.index("<section id='glance'>") < page.index("<section id='cases'>")
    glance = page.split("<section id='glance'>")[1].split("</section>")[0]
    row = next(r for r in glance.split("<tr>") if "mc_pi_10000_f32" in r)
    cells = re.findall(r"<td>(.*?)</td>", row)
    assert cells[1] == "2"  # numpy and jax_jit_cpu are ok; triton is not counted
    assert re.match(r"(numpy|jax_jit_cpu) \(", cells[2]) and re.match(r"(numpy|jax_jit_cpu) \(", cells[3])
    # the JIT's break-even against its eager baseline: N* calls, or "never" where it does not pay for itself
    assert re.fullmatch(r"jax_jit_cpu: (never|[\d,]+)", cells[4]), cells[4]
    assert "## At a glance" in (report_run / "report" / "report.md").read_text()


@pytest.mark.heavy("jax")
def test_report_leaves_the_run_valid(report_run, jitbench):
    res = jitbench("validate", str(report_run), out=False)
    assert res.rc == 0, res.stderr


@pytest.mark.heavy("jax, Chromium")
def test_report_in_a_browser_has_no_console_errors_and_every_figure_drawn(report_run, browser_page):
    """Playwright drives Debian's Chromium: the page loads cleanly, every case has its row, every figure
    section holds a non-empty SVG with marks in it."""
    page = browser_page.page
    page.goto((report_run / "report" / "report.html").as_uri())
    index = json.loads((report_run / "index.json").read_text())
    for c in index["cases"]:
        assert page.locator(f"#cases tr[data-case='{c['case']}']").count() == 1, c["case"]
    figures = page.locator("section.fig")
    assert figures.count() >= 3
    for k in range(figures.count()):
        svg = figures.nth(k).locator("svg").first
        box = svg.bounding_box()
        assert box and box["width"] > 200 and box["height"] > 100, figures.nth(k).get_attribute("id")
        assert svg.locator("path").count() > 5, figures.nth(k).get_attribute("id")  # axes and marks, not blank
    assert page.locator("figure.icicle").count() == 0  # no case here ran --anatomy: no icicle, no error
    assert browser_page.errors == []


# A real JAX case's compile anatomy, as `run --anatomy` recorded it (tests/data/anatomy/).
RECORDED_ANATOMY = ROOT / "tests" / "data" / "anatomy" / "case-jax_jit_cpu_matmul_512_f32.anatomy.json"
ANATOMY_CASE = "jax_jit_cpu_matmul_512_f32"


@pytest.fixture(scope="module")
def anatomy_report_run(tmp_path_factory):
    """The report of an --anatomy run, without a real JAX run: the fake worker's run of the case, its case
    file's anatomy replaced by the recorded one (the index's size and sha256 of it updated to match)."""
    out = tmp_path_factory.mktemp("anatomy") / "run"
    env = dict(os.environ, JITBENCH_WORKER_DIR=str(FAKE_WORKER_DIR), JITBENCH_PYTHON=sys.executable,
               FAKE_WORKER_MODES="")
    proc = subprocess.run([str(ROOT / "build" / "jitbench"), "run", "--backends", "jax_jit_cpu", "--cases",
                           "matmul_512_f32", "--cold-runs", "2", "--warm-iters", "3", "--anatomy", "--anatomy-runs", "2",
                           "--out-dir", str(out)], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    rel = f"cases/{ANATOMY_CASE}.json"
    case = json.loads((out / rel).read_text())
    recorded = json.loads(RECORDED_ANATOMY.read_text())["anatomy"]
    # Recorded before case.v7, whose runs each say their peak RSS as their worker report and wait4 do.
    for r in recorded["runs"]:
        ru, hwm = r["rusage"], r.get("worker", {}).get("memory", {}).get("hwm_after_calls_kib")
        process = None if ru["max_rss_kib"] - ru.get("pre_exec_rss_kib", -10**9) <= 512 else ru["max_rss_kib"]
        r.setdefault("peak_rss", {"workload_kib": hwm, "process_kib": process,
                                  "source": case["anatomy"]["runs"][0]["peak_rss"]["source"]})
    case["anatomy"] = recorded
    data = json.dumps(case, indent=2, sort_keys=True).encode()
    (out / rel).write_bytes(data)
    rehash(out, rel)
    rep = subprocess.run([str(ROOT / "build" / "jitbench"), "report", str(out)], capture_output=True, text=True)
    assert rep.returncode == 0, rep.stderr
    return out


def _top_item(anatomy):
    """The longest item below the phases that an event or timer measured (not other, not unattributed)."""
    items = [n for n in anatomy["summary"]["nodes"] if len(n["path"]) > 1 and n["source"]]
    return max(items, key=lambda n: n["median_s"])["path"][-1]


def test_the_report_of_an_anatomy_run_has_an_icicle_per_case_labelled_with_its_top_item(anatomy_report_run):
    page = (anatomy_report_run / "report" / "report.html").read_text()
    section = page.split("<section id='anatomy'>")[1].split("</section>")[0]
    assert page.index("<section id='anatomy'>") < page.index("<section id='cases'>")
    assert "<h2>Inside the compile</h2>" in section and "clipped to the" in section  # the caption says so
    [icicle] = re.findall(r"<figure class='icicle' data-case='([^']+)'>", section)
    assert icicle == ANATOMY_CASE
    assert "2 anatomy processes" in section  # the case's headline, as summary.md's
    svg = section.split("<svg", 1)[1]
    top = _top_item(json.loads(RECORDED_ANATOMY.read_text())["anatomy"])
    assert top == "lowering (lower_sharding_computation)"
    labels = [re.sub(r"\s+", " ", t).strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    assert top in labels and "1 · jitbench phase" in labels and "2 · jax.profiler event" in labels, labels
    assert "Inside the compile (1 icicle)" in (anatomy_report_run / "report" / "report.md").read_text()


@pytest.mark.heavy("jax")
def test_a_report_without_anatomy_has_no_icicle(report_run):
    page = (report_run / "report" / "report.html").read_text()
    assert "<section id='anatomy'>" not in page and "class='icicle'" not in page
    assert "Inside the compile" not in (report_run / "report" / "report.md").read_text()


@pytest.mark.heavy("Chromium")
def test_the_icicle_in_a_browser_is_drawn_and_names_its_boxes(anatomy_report_run, browser_page):
    page = browser_page.page
    page.goto((anatomy_report_run / "report" / "report.html").as_uri())
    icicles = page.locator("#anatomy figure.icicle")
    assert icicles.count() == 1
    svg = icicles.first.locator("svg").first
    box = svg.bounding_box()
    assert box and box["width"] > 400 and box["height"] > 100
    assert svg.locator("g[id^='icicle-'] path").count() >= 4  # the phases and the boxes below them
    assert svg.locator("text", has_text="lowering (lower_sharding_computation)").count() == 1
    assert browser_page.errors == []


def test_report_writes_a_note_every_throughput_row_repeats_once_as_a_footnote(jitbench):
    # Two numpy matmuls and no native case planned: every row's ceiling is "not measured" for the same reason.
    res = jitbench("run", "--cases", "matmul_8_f32,matmul_16_f32", "--backends", "numpy", "--cold-runs", "1",
                   "--warm-iters", "2")
    assert res.rc == 0, res.stderr
    rep = jitbench("report", str(res.out), out=False)
    assert rep.rc == 0, rep.stderr
    page = (res.out / "report" / "report.html").read_text()
    section = page.split("<section id='throughput'>")[1].split("</section>")[0]
    rows = [r for r in section.split("<tr>") if "<td>" in r]
    assert len(rows) == 2, section
    note = "(--ceilings on measures anyway)"
    assert section.count(note) == 1, section  # once, below the table
    footnote = re.search(r"<li>\[(\d+)\] ([^<]*" + re.escape(note) + ")", section)
    assert footnote, section
    assert all(f"<td>[{footnote.group(1)}]</td>" in r for r in rows), rows  # each row points at it
    md = (res.out / "report" / "report.md").read_text().split("## Throughput")[1].split("\n## ")[0]
    assert md.count(note) == 1 and f"- [{footnote.group(1)}] " in md, md


def test_report_says_fixed_counts_in_one_sentence_without_a_sampling_table(jitbench, fake_env):
    res = jitbench("run", "--cases", "matmul_8_f32,matmul_16_f32", "--backends", "numpy", "--cold-runs", "2",
                   "--warm-iters", "2", env=fake_env())
    assert res.rc == 0, res.stderr
    assert jitbench("report", str(res.out), out=False).rc == 0
    page = (res.out / "report" / "report.html").read_text()
    section = page.split("<section id='sampling'>")[1].split("</section>")[0]
    assert "A fixed count of processes for every case (2 cold runs;" in section and "<table" not in section, section
    md = (res.out / "report" / "report.md").read_text().split("## Sampling")[1].split("\n## ")[0]
    assert "A fixed count of processes for every case (2 cold runs;" in md and "|" not in md, md


def test_report_refuses_what_validate_refuses(jitbench, tmp_path):
    res = small_run(jitbench, cold="1")
    (res.out / "stray.txt").write_text("x")
    rep = jitbench("report", str(res.out), out=False)
    assert rep.rc == 2
    assert len(rep.stderr.strip().splitlines()) == 1 and "not a valid jitbench out dir" in rep.stderr
    assert not (res.out / "report").exists()
    missing = jitbench("report", str(tmp_path / "nope"), out=False)
    assert missing.rc == 2 and "is not a directory" in missing.stderr


def test_compare_a_run_with_itself_finds_nothing(jitbench):
    res = small_run(jitbench)
    cmp = jitbench("compare", str(res.out), str(res.out), "--fail-on-regression", "5", out=False)
    assert cmp.rc == 0, cmp.stderr
    rows = [l for l in cmp.stdout.splitlines() if l.startswith(CASE)]
    assert rows and all(l.endswith("no significant change") for l in rows), rows
    assert "Geometric mean" in cmp.stdout


def test_compare_finds_a_slowed_run_and_exports(jitbench, tmp_path):
    base = small_run(jitbench)
    slow = small_run(jitbench, env={"JITBENCH_EXAMPLE_SLEEP_S": "0.02"})
    prefix = tmp_path / "pp"
    # --no-remeasure: the slowdown is an environment variable of NEW's run, which a re-measurement would not repeat.
    cmp = jitbench("compare", str(base.out), str(slow.out), "--fail-on-regression", "10", "--no-remeasure",
                   "--csv", str(tmp_path / "c.csv"), "--pyperf", str(prefix), out=False)
    assert cmp.rc == 1, cmp.stdout + cmp.stderr
    assert f"regression: {CASE} warm_call_s" in cmp.stderr
    warm = next(l for l in cmp.stdout.splitlines() if l.startswith(CASE) and "warm_call_s" in l)
    assert warm.endswith("slower")
    rows = list(csv.DictReader(open(tmp_path / "c.csv")))
    assert {r["metric"] for r in rows} >= {"cold_ttfr_s", "warm_call_s", "peak_rss_kib"}
    w = next(r for r in rows if r["metric"] == "warm_call_s")
    assert float(w["ratio"]) > 1.1 and float(w["p_value"]) < 0.05 and float(w["hl_shift"]) > 0
    # pyperf reads the export and agrees.
    import pyperf

    suite = pyperf.BenchmarkSuite.load(f"{prefix}.new.json")
    assert f"{CASE}:warm_call" in suite.get_benchmark_names()
    pp = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", f"{prefix}.base.json", f"{prefix}.new.json"],
                        capture_output=True, text=True)
    assert pp.returncode == 0, pp.stderr
    assert "slower" in pp.stdout
    # One pyperf run per warm process, each with that process's calls.
    warm_bench = next(b for b in suite if b.get_name() == f"{CASE}:warm_call")
    assert warm_bench.get_nrun() == 4 and warm_bench.get_nvalue() == 40


def test_warm_calls_of_one_process_are_not_tested_as_independent(jitbench):
    # One warm process a side: its ten calls are one sample of the code's
    # speed, so even a 200x slowdown is "too few runs" for warm calls, while
    # five cold processes a side still find it in the first call. The slowdown
    # (0.3 s a call) is far above the gate's 10% of a TTFR even a contended
    # 2-core machine stretches to 2 s: 0.02 s was not, once load tripled TTFR.
    base = small_run(jitbench, warm_runs="1")
    slow = small_run(jitbench, warm_runs="1", env={"JITBENCH_EXAMPLE_SLEEP_S": "0.3"})
    cmp = jitbench("compare", str(base.out), str(slow.out), "--fail-on-regression", "10", "--no-remeasure", out=False)
    assert cmp.rc == 1, cmp.stdout + cmp.stderr
    rows = {l.split()[1]: l for l in cmp.stdout.splitlines() if l.startswith(CASE)}
    assert rows["warm_call_s"].endswith("too few runs"), rows["warm_call_s"]
    assert rows["cold_first_call_s"].endswith("slower"), rows["cold_first_call_s"]
    assert "--warm-runs" in cmp.stderr


def test_compare_labels_added_removed_and_status_changes(jitbench):
    a = jitbench("run", "--backends", "numpy", "--cases", "mc_pi_1000_f32,matmul_16_f32", "--cold-runs", "1",
                 "--warm-iters", "2")
    b = jitbench("run", "--backends", "numpy,native", "--cases", "mc_pi_1000_f32,null_1_f32", "--cold-runs", "1",
                 "--warm-iters", "2")
    assert a.rc == 0 and b.rc == 0
    cmp = jitbench("compare", str(a.out), str(b.out), out=False)
    assert cmp.rc == 0, cmp.stderr
    out = cmp.stdout
    assert "Added in NEW" in out and "native_mc_pi_1000_f32" in out.split("Added in NEW")[1]
    assert "Removed in NEW" in out and "numpy_matmul_16_f32" in out.split("Removed in NEW")[1]
    # One cold run each: the test cannot reach p < 0.05, and says so.
    assert "too few runs" in cmp.stderr


def test_compare_rejects_bad_input(jitbench, tmp_path):
    res = jitbench("compare", str(tmp_path / "a"), str(tmp_path / "b"), out=False)
    assert res.rc == 2 and "BASE" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    res = jitbench("compare", "x", "y", "--fail-on-regression", "-3", out=False)
    assert res.rc == 2


def test_progress_is_plain_lines_when_not_a_terminal(jitbench):
    res = jitbench("run", "--backends", "numpy", "--cases", "null_1_f32", "--cold-runs", "1", "--warm-iters", "1")
    assert res.rc == 0
    assert "\r" not in res.stderr and "\033[" not in res.stderr
    assert "[1/1] numpy_null_1_f32  ok" in res.stderr
    quiet = jitbench("run", "--quiet", "--backends", "numpy", "--cases", "null_1_f32", "--cold-runs", "1",
                     "--warm-iters", "1")
    assert quiet.rc == 0 and quiet.stderr == ""
