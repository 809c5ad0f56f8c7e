"""The page templates (src/report/figures/jitbench_figures/pages.py) on their
own: the case view's gaps, the Markdown-inline cells, hostile names, and the
site's size budgets on a generated site of 100 snapshots x 50 cases
(bench/site_budget.py; sizes only: render times are measured there, not here).
The browser tests are in test_publish.py and test_report_compare.py."""

import json
import subprocess
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "src" / "report" / "figures"))
pages = pytest.importorskip("jitbench_figures.pages", reason="jinja2 is in requirements/cpu.txt")
sys.path.insert(0, str(ROOT / "bench"))
import site_budget  # noqa: E402

pytestmark = pytest.mark.quick


def snapshot(k, machine, software="a" * 64):
    return {"n": k + 1, "id": f"s{k}", "published_at": f"2026-01-0{k + 1}T00:00:00Z", "suite": "default",
            "machine": machine, "software": software, "jitbench": "v1", "ok": 1, "warn": 0, "failed": 0,
            "signer": "unsigned", "path": f"snapshots/s{k}", "has_report": False}


def point(k, median):
    return {"snapshot": k, "median": median, "lo": median * 0.9, "hi": median * 1.1, "n": 5, "flagged": False}


def site(case_id="numpy_matmul_64_f32"):
    snaps = [snapshot(0, "box-a"), snapshot(1, "box-b"), snapshot(2, "box-a"), snapshot(3, "box-a")]
    series = [{"metric": "cold_ttfr_s", "machine": "box-a", "software": "a" * 64,
               "points": [point(0, 1.0), point(3, 1.2)]},  # absent from snapshot 2, its own machine's
              {"metric": "cold_ttfr_s", "machine": "box-b", "software": "a" * 64, "points": [point(1, 2.0)]}]
    return {"site": {"generated_at": "now", "gate_pct": 10, "alpha": 0.05, "snapshots": snaps,
                     "metrics": ["cold_ttfr_s", "cache_load_s"], "cases": [{"id": case_id, "series": series}],
                     "since_last": [], "flagged": []}}


def test_a_case_view_leaves_gaps_only_in_its_own_machines_snapshots_and_no_empty_metric():
    data = site()
    view = pages._case_view(data["site"], data["site"]["cases"][0], "x")
    assert [m["metric"] for m in view["metrics"]] == ["cold_ttfr_s"]  # cache_load_s has no point: no panel
    box_a, box_b = view["metrics"][0]["columns"]
    assert [p and p["median"] for p in box_a["points"]] == [1.0, None, None, 1.2]
    assert box_a["own"] == [0, 2, 3]  # snapshot 2 is a gap; snapshot 1 (box-b's) is not
    assert box_b["own"] == [1]
    assert view["labels"] == ["box-a · software aaaaaaaa", "box-b · software aaaaaaaa"]


def test_cells_convert_like_the_cpp_renderer_and_names_are_escaped():
    assert pages.inline("`a<b>` **x** c\\|d & e") == "<code>a&lt;b&gt;</code> <b>x</b> c|d &amp; e"
    assert pages.inline("`open") == "<code>open</code>"
    assert pages.value(2.5e-5, "warm_call_s") == "25 µs" and pages.value(0.0123, "x") == "12.3 ms"
    assert pages.value(1.5, "x") == "1.5 s" and pages.value(2048 * 1024, "peak_rss_kib") == "2048 MiB"
    hostile = "x</script><script>alert(1)</script>'\""
    files = pages.render_site(site(hostile))
    case_page = next(text for rel, text in files.items() if rel.startswith("cases/"))
    for text in (files["index.html"], case_page):
        assert "<script>alert(1)" not in text
    data = case_page.split("<script type='application/json' id='case-data'>")[1].split("</script>")[0]
    assert json.loads(data)["case"] == hostile  # the script's data holds the name, intact
    assert all("/" not in rel[len("cases/"):] and ".." not in rel for rel in files if rel.startswith("cases/"))


def test_generated_site_of_100_snapshots_and_50_cases_is_within_the_size_budgets(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "site_budget.py"), str(tmp_path), "--no-browser"],
                          capture_output=True, text=True, timeout=300)
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert [r["page"] for r in rows][0] == "index.html" and rows[1]["page"].startswith("cases/")
    assert len(list((tmp_path / "cases").glob("*.html"))) == 50
    for r in rows:
        assert r["bytes"] <= r["budget_bytes"], r
    # The chart library is counted with the case page (once), and a page over its budget fails the script.
    assert rows[1]["bytes"] > (tmp_path / "assets" / "dygraph.min.js").stat().st_size
    assert site_budget.page_bytes(tmp_path, "index.html") == rows[0]["bytes"]
    big = tmp_path / "index.html"
    big.write_text(big.read_text() + "x" * site_budget.INDEX_BUDGET)
    assert site_budget.page_bytes(tmp_path, "index.html") > site_budget.INDEX_BUDGET
