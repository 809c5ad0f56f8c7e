"""Interference grades (docs/noise.md, "Grades") shown wherever interference
is: summary.md, the report, compare's table and CSV, analysis.json, the
publish site, bisect and the Python API. Three runs of one case with injected
machine figures (JITBENCH_TEST_MACHINE_SAMPLES): one quiet, one busy (steal
within the busy band, a fake worker that sleeps 1 s so the band holds), one
contended (others took far more than the machine). Nothing here times
anything: the grades come from the injected snapshots."""

import csv
import json
import re

import pytest

from conftest import machine_samples, validate

pytestmark = pytest.mark.quick

CASE = "numpy_matmul_8_f32"
RUN = ["--backends", "numpy", "--cases", "matmul_8_f32", "--warm-iters", "0", "--machine", "box", "-q"]


def graded_run(jitbench, fake_env, tmp_path, kind, runs, scale=None):
    """One run whose every measured process is graded `kind` (machine_samples' kinds; "busy" sleeps 1 s)."""
    env = fake_env(numpy="slow") if kind == "busy" else fake_env()
    env.update(machine_samples(tmp_path / f"{kind}-{runs}-{scale}", [kind] * runs))
    if kind == "busy":
        env["FAKE_WORKER_SLEEP"] = "1"
    if scale:
        env["FAKE_WORKER_SCALE"] = str(scale)
    res = jitbench("run", *RUN, "--cold-runs", str(runs), env=env)
    assert res.rc == 0, res.stderr
    return res


@pytest.fixture
def graded(jitbench, fake_env, tmp_path):
    """quiet (5 cold runs), busy (2), contended (5, 3x slower)."""
    return {"quiet": graded_run(jitbench, fake_env, tmp_path, "quiet", 5),
            "busy": graded_run(jitbench, fake_env, tmp_path, "busy", 2),
            "contended": graded_run(jitbench, fake_env, tmp_path, "hog", 5, scale=3)}


def test_analysis_and_summary_give_each_runs_grade_and_others_cpus(jitbench, graded):
    for grade, res in graded.items():
        analysis = json.loads((res.out / "analysis.json").read_text())
        validate(analysis, "jitbench.analysis.v5")
        cold = analysis["cases"][0]["interference"]["cold"]
        assert cold["grade"] == grade, cold
        n = cold["runs"]
        assert (cold["quiet"], cold["busy"], cold["contended"]) == tuple(n if g == grade else 0 for g in
                                                                          ("quiet", "busy", "contended")), cold
        assert cold["interfered"] == (0 if grade == "quiet" else n)  # the counts stay
        md = (res.out / "summary.md").read_text()
        section = md.split("## Interference")[1].split("\n## ")[0]
        assert f"Grade: {grade}." in section, section
        if grade == "quiet":
            assert cold["others_cpus_median"] == 0
            assert "No measured process was interfered with (5 measured; others took 0.0–0.0 of 2 CPUs" in section
            assert f"`{CASE}`" not in section  # no case line without interference
        else:
            assert cold["others_cpus_median"] > (0 if grade == "busy" else 1.5), cold  # a hog: capped at 2 CPUs
            line = re.search(rf"- `{CASE}`: cold runs (\w+) \(others ([0-9.]+) of 2 CPUs; {n}/{n} interfered with\)",
                             section)
            assert line and line.group(1) == grade, section
            assert float(line.group(2)) == pytest.approx(cold["others_cpus_median"], abs=0.05)
        assert jitbench("validate", str(res.out)).rc == 0


def test_the_report_names_the_grade(jitbench, graded):
    res = graded["contended"]
    assert jitbench("report", str(res.out)).rc == 0
    page = (res.out / "report" / "report.md").read_text()
    assert re.search(r"cold runs contended \(others [0-9.]+ of 2 CPUs; 5/5 interfered with\)", page), page
    assert "Grade: contended." in page
    html = (res.out / "report" / "report.html").read_text()
    assert "cold runs contended (others" in html


def test_compare_shows_each_sides_grade_in_its_table_and_csv(jitbench, graded, tmp_path):
    rows_of = {}
    for base, new in [("quiet", "busy"), ("busy", "contended")]:
        out = tmp_path / f"{base}-{new}.csv"
        res = jitbench("compare", str(graded[base].out), str(graded[new].out), "--csv", str(out))
        assert res.rc == 0, res.stderr
        header = next(line for line in res.stdout.splitlines() if line.startswith("case "))
        assert "grade B, N" in header, res.stdout
        row = next(line for line in res.stdout.splitlines() if "cold_ttfr_s" in line)
        rows_of[(base, new)] = row
        csv_row = {r["metric"]: r for r in csv.DictReader(open(out))}["cold_ttfr_s"]
        assert (csv_row["base_grade"], csv_row["new_grade"]) == (base, new), csv_row
        assert csv_row["rule"] == "mann_whitney" and csv_row["base_runs"]  # the old columns are kept, in place
        for side, grade in (("base", base), ("new", new)):
            cpus = float(csv_row[f"{side}_others_cpus"])
            assert (cpus == 0) if grade == "quiet" else (cpus > 0), csv_row
    assert re.search(r"quiet, busy [0-9.]+\s+\S", rows_of[("quiet", "busy")]), rows_of
    assert re.search(r"busy [0-9.]+, contended [0-9.]+\s+\S", rows_of[("busy", "contended")]), rows_of


def test_compare_says_not_reported_for_a_side_without_figures(jitbench, fake_env, graded, tmp_path):
    bare = jitbench("run", *RUN, "--cold-runs", "2", env=dict(fake_env(), **machine_samples(tmp_path / "none", [])))
    assert bare.rc == 0, bare.stderr
    out = tmp_path / "c.csv"
    res = jitbench("compare", str(bare.out), str(graded["quiet"].out), "--csv", str(out))
    assert res.rc == 0, res.stderr
    row = next(line for line in res.stdout.splitlines() if "cold_ttfr_s" in line)
    assert "—, quiet" in row, row
    csv_row = {r["metric"]: r for r in csv.DictReader(open(out))}["cold_ttfr_s"]
    assert (csv_row["base_grade"], csv_row["base_others_cpus"]) == ("not reported", ""), csv_row
    analysis = json.loads((bare.out / "analysis.json").read_text())
    cold = analysis["cases"][0]["interference"]["cold"]
    assert (cold["grade"], cold["others_cpus_median"]) == ("not reported", None)


def test_the_site_gives_each_point_and_flagged_step_its_grades(jitbench, graded, tmp_path):
    site = tmp_path / "site"
    for grade in ("busy", "quiet", "contended"):  # quiet -> contended (3x slower): the flagged step
        res = jitbench("publish", str(graded[grade].out), "--to", str(site), out=False)
        assert res.rc == 0, res.stderr
    page = (site / "cases" / f"{CASE}.html").read_text()
    table = page.split("id='m-cold_ttfr_s'")[1].split("</table>")[0]
    assert re.search(r"n=2 <span class='grade'>busy \(others [0-9.]+ of 2 CPUs\)</span>", table), table
    assert "n=5 <span class='grade'>quiet</span>" in table, table
    assert re.search(r"n=5 <span class='grade'>contended \(others [0-9.]+ of 2 CPUs\)</span>", table), table
    html = (site / "index.html").read_text()
    since = html.split("id='regressions'")[1].split("</section>")[0]
    assert "cold_ttfr_s" in since
    assert re.search(r"<td class='grade'>quiet, contended \(others [0-9.]+ of 2 CPUs\)</td>", since), since


def test_the_python_api_gives_the_grade(graded):
    import jitbench

    for grade, res in graded.items():
        case = jitbench.load(res.out).case
        assert case.grade == grade
        assert (case.others_cpus == 0) if grade == "quiet" else (case.others_cpus > 0)
        assert case.interference["cold"]["grade"] == grade


@pytest.mark.heavy("uv environments")
def test_bisect_gives_each_steps_cases_their_grade(jitbench, fake_env, tmp_path_factory):
    """Two fake releases measured while every process is injected as beside a
    hog: each step's case says contended, in bisect.json and on stderr."""
    from test_environments import link_numpy_wheels, wheel
    wheels = tmp_path_factory.mktemp("grade-release-wheels")
    for v in ("1.0", "1.1"):
        wheel(wheels, "graderel", v, {"graderel/__init__.py": "SCALE = 1\n"})
    link_numpy_wheels(wheels)
    out = tmp_path_factory.mktemp("bisect-grades") / "out"
    env = {**fake_env(), "FAKE_WORKER_RELEASE": "graderel",
           "JITBENCH_ENV_CACHE": str(tmp_path_factory.mktemp("grade-env-cache")),
           **machine_samples(tmp_path_factory.mktemp("grade-samples"), ["hog"] * 400)}
    res = jitbench("bisect", "--package", "graderel", "--good", "1.0", "--bad", "1.1", "--metric", "ttfr",
                   "--threshold", "50", "--cases", "matmul_8_f32", "--backends", "numpy", "--cold-runs", "2",
                   "--warm-iters", "2", "--find-links", str(wheels), "--no-index", "--out-dir", str(out),
                   env=env, out=False, timeout=1200)
    assert res.rc == 0, res.stderr
    doc = json.loads((out / "bisect.json").read_text())
    validate(doc, "jitbench.bisect.v5")
    cases = [c for s in doc["steps"] for c in s["cases"]]
    assert cases and all(c["grade"] == "contended" and c["others_cpus_median"] >= 1.5 for c in cases), cases
    assert re.search(r"jitbench bisect: graderel 1\.0 \(good\) measured; interference: "
                     r"numpy_matmul_8_f32 contended \(others [0-9.]+ of 2 CPUs\)", res.stderr), res.stderr
