"""`compare --fail-on-regression` re-measures before failing (docs/report-and-compare.md, "Re-measuring before
failing"): a row that would fail while either side's interference grade is not quiet is measured again, BASE
and NEW side by side and interleaved, into a new directory beside NEW, and the gate fails only on what that
confirms. Deterministic: the fake worker's times are exact (FAKE_WORKER_SCALE makes a whole run slower,
FAKE_WORKER_SCALE_IN one run's code wherever it is measured), and the machine's load is read from the
snapshots JITBENCH_TEST_MACHINE_SAMPLES gives ("hog": contended; "quiet")."""

import hashlib
import json
import os

import pytest

from conftest import machine_samples, validate

pytestmark = pytest.mark.quick

CASE = ["--backends", "numpy", "--cases", "matmul_16_f32", "--cold-runs", "5", "--warm-iters", "2"]
ID = "numpy_matmul_16_f32"
PROCESSES = 6  # 5 cold + 1 warm


def snapshot(d):
    """Every file under d with its sha256: what "nothing in BASE or NEW changed" means."""
    return {str(p.relative_to(d)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.rglob("*"))
            if p.is_file()}


def measure(jitbench, fake_env, tmp_path, name, load, where=None, **extra):
    env = dict(fake_env(), **machine_samples(tmp_path / f"samples-{name}", [load] * PROCESSES), **extra)
    d = (where or tmp_path) / name
    res = jitbench("run", *CASE, "--out-dir", str(d), env=env)
    assert res.rc == 0, res.stderr
    return d


def gate_env(fake_env, tmp_path, summary="", **extra):
    """The compare's environment: a quiet machine for whatever it measures again."""
    return dict(fake_env(), **machine_samples(tmp_path / "samples-gate", ["quiet"] * 100),
                GITHUB_STEP_SUMMARY=summary, **extra)


def contended_pair(jitbench, fake_env, tmp_path):
    """Unchanged code; NEW measured beside a hog, 3x slower for it."""
    base = measure(jitbench, fake_env, tmp_path, "base", "quiet")
    new = measure(jitbench, fake_env, tmp_path, "new", "hog", FAKE_WORKER_SCALE="3")
    return base, new


def test_unchanged_code_measured_while_contended_is_re_measured_and_passes(jitbench, fake_env, tmp_path):
    base, new = contended_pair(jitbench, fake_env, tmp_path)
    before = {d: snapshot(d) for d in (base, new)}
    res = jitbench("compare", str(base), str(new), "--fail-on-regression", "10", env=gate_env(fake_env, tmp_path))
    assert res.rc == 0, res.stderr
    again = tmp_path / "new.remeasure"
    assert f"re-measuring 1 case(s) of BASE and NEW side by side, interleaved" in res.stderr
    assert f"-> {again}" in res.stderr, res.stderr
    assert f"{ID} cold_ttfr_s: 3.000 as measured" in res.stderr and "cleared" in res.stderr, res.stderr
    assert "cleared by re-measurement" in res.stdout and str(again) in res.stdout
    assert (again / "base" / "cases" / f"{ID}.json").is_file() and (again / "new" / "cases" / f"{ID}.json").is_file()
    index = json.loads((again / "new" / "index.json").read_text())
    assert index["interleaved"][0]["runs"] == ["../base", "../new"]  # measured side by side
    assert {d: snapshot(d) for d in (base, new)} == before  # nothing written inside an input
    assert "re-run on a quiet machine" not in res.stderr


def test_a_real_slowdown_is_confirmed_by_the_re_measurement_and_fails(jitbench, fake_env, tmp_path):
    slow = {"FAKE_WORKER_SCALE_IN": "new/logs:3"}  # NEW's code, wherever it is measured
    base = measure(jitbench, fake_env, tmp_path, "base", "hog")
    new = measure(jitbench, fake_env, tmp_path, "new", "hog", **slow)
    res = jitbench("compare", str(base), str(new), "--fail-on-regression", "10",
                   env=gate_env(fake_env, tmp_path, **slow))
    assert res.rc == 1, res.stderr
    assert "re-measuring 1 case(s)" in res.stderr
    assert f"regression: {ID} cold_ttfr_s is 200.0% worse" in res.stderr
    assert "(confirmed by re-measurement)" in res.stderr
    assert "confirmed by re-measurement" in res.stdout
    # Confirmed side by side: nothing is left to blame on the machine, so no re-run line.
    assert "re-run on a quiet machine" not in res.stderr


def test_no_remeasure_keeps_the_gate_as_it_was(jitbench, fake_env, tmp_path):
    base, new = contended_pair(jitbench, fake_env, tmp_path)
    res = jitbench("compare", str(base), str(new), "--fail-on-regression", "10", "--no-remeasure",
                   env=gate_env(fake_env, tmp_path))
    assert res.rc == 1, res.stderr
    assert "re-measuring" not in res.stderr and not (tmp_path / "new.remeasure").exists()
    assert f"regression: {ID} cold_ttfr_s is 200.0% worse" in res.stderr
    # Measured while NEW was contended: the line says so and names what helps.
    line = next(l for l in res.stderr.splitlines() if "re-run on a quiet machine" in l)
    assert "not quiet" in line and "leave out --no-remeasure" in line and "--count instructions" in line, line


def test_the_re_run_line_appears_only_where_a_grade_is_not_quiet(jitbench, fake_env, tmp_path):
    slow = {"FAKE_WORKER_SCALE_IN": "new/logs:3"}
    base = measure(jitbench, fake_env, tmp_path, "base", "quiet")
    new = measure(jitbench, fake_env, tmp_path, "new", "quiet", **slow)
    res = jitbench("compare", str(base), str(new), "--fail-on-regression", "10", env=gate_env(fake_env, tmp_path))
    assert res.rc == 1, res.stderr  # quiet on both sides: failed as measured, nothing re-measured
    assert "re-measuring" not in res.stderr and not (tmp_path / "new.remeasure").exists()
    assert "re-run on a quiet machine" not in res.stderr and "not quiet" not in res.stderr, res.stderr


def test_the_re_measurement_never_overwrites_a_directory(jitbench, fake_env, tmp_path):
    base, new = contended_pair(jitbench, fake_env, tmp_path)
    taken = tmp_path / "new.remeasure"
    taken.mkdir()
    (taken / "mine.txt").write_text("keep me")
    res = jitbench("compare", str(base), str(new) + "/", "--fail-on-regression", "10",
                   env=gate_env(fake_env, tmp_path))
    assert res.rc == 0, res.stderr
    assert f"-> {tmp_path / 'new.remeasure-2'}" in res.stderr, res.stderr
    assert sorted(p.name for p in taken.iterdir()) == ["mine.txt"] and (taken / "mine.txt").read_text() == "keep me"


def test_format_json_validates_and_carries_the_re_measurement(jitbench, fake_env, tmp_path):
    base, new = contended_pair(jitbench, fake_env, tmp_path)
    res = jitbench("compare", str(base), str(new), "--fail-on-regression", "10", "--format", "json",
                   env=gate_env(fake_env, tmp_path))
    assert res.rc == 0, res.stderr
    doc = json.loads(res.stdout)  # stdout holds the document alone
    validate(doc, "jitbench.compare.v1")
    assert doc["exit_code"] == 0 and doc["threshold_pct"] == 10 and doc["cannot_remeasure"] is None
    assert doc["remeasure"] == {"dir": str(tmp_path / "new.remeasure"), "cases": [ID]}
    row = next(r for r in doc["rows"] if r["metric"] == "cold_ttfr_s")
    assert row["gate"] == "cleared by re-measurement" and row["ratio"] == pytest.approx(3)
    assert row["base_grade"] == "quiet" and row["new_grade"] == "contended" and row["new_others_cpus"] > 1
    assert row["remeasured"]["ratio"] == pytest.approx(1) and row["rule"] == "test"
    plain = jitbench("compare", str(base), str(new), "--format", "json", env=gate_env(fake_env, tmp_path))
    doc = json.loads(plain.stdout)
    validate(doc, "jitbench.compare.v1")
    assert doc["threshold_pct"] is None and all(r["gate"] is None for r in doc["rows"])


def test_markdown_goes_to_stdout_and_is_appended_to_the_job_summary(jitbench, fake_env, tmp_path):
    base, new = contended_pair(jitbench, fake_env, tmp_path)
    summary = tmp_path / "step_summary.md"
    summary.write_text("# an earlier step\n")
    env = gate_env(fake_env, tmp_path, summary=str(summary))
    res = jitbench("compare", str(base), str(new), "--fail-on-regression", "10", "--format", "markdown", env=env)
    assert res.rc == 0, res.stderr
    assert res.stdout.startswith("### jitbench compare:")
    assert "| case | metric | base | new | ratio [95% CI] | grade B, N | verdict | gate |" in res.stdout
    assert "contended (others" in res.stdout and "cleared by re-measurement" in res.stdout
    text = summary.read_text()
    assert text.startswith("# an earlier step\n")  # appended, never truncated
    assert res.stdout.strip() in text
    assert "**jitbench compare: passed" in text
    # A second compare appends again.
    again = jitbench("compare", str(base), str(new), "--no-remeasure", "--fail-on-regression", "10", env=env)
    assert again.rc == 1
    assert summary.read_text().startswith(text) and summary.read_text().count("### jitbench compare:") == 2
    assert "**jitbench compare: failed" in summary.read_text()


def test_an_unwritable_job_summary_is_a_warning_not_a_failed_gate(jitbench, fake_env, tmp_path):
    base = measure(jitbench, fake_env, tmp_path, "base", "quiet")
    new = measure(jitbench, fake_env, tmp_path, "new", "quiet")
    env = gate_env(fake_env, tmp_path, summary=str(tmp_path / "no-such-dir" / "summary.md"))
    res = jitbench("compare", str(base), str(new), "--fail-on-regression", "10", env=env)
    assert res.rc == 0, res.stderr
    assert "warning: cannot append the verdict to GITHUB_STEP_SUMMARY" in res.stderr


def test_a_bad_format_is_refused_in_one_line(jitbench, fake_env, tmp_path):
    res = jitbench("compare", "a", "b", "--format", "html")
    assert res.rc == 2 and "--format" in res.stderr, res.stderr
    # --no-remeasure says what the gate does: without a gate, or beside an explicit --remeasure, it means nothing.
    for args in (("--no-remeasure",), ("--no-remeasure", "--fail-on-regression", "10", "--remeasure", "d")):
        res = jitbench("compare", "a", "b", *args)
        assert res.rc == 2 and "--no-remeasure" in res.stderr and len(res.stderr.strip().splitlines()) == 1, \
            res.stderr


HELPER = '''def work(x):
    return x * 2
'''

TARGET = '''import time

import numpy as np

from helper import work


def make_inputs():
    return (np.ones(8),)


def f(x):
    time.sleep(SLEEP)
    return float(work(x).sum())
'''


def test_a_base_whose_target_imports_a_changed_module_is_not_re_measured(jitbench, tmp_path):
    """The real worker (numpy only): a `measure` target importing a module of the user's own. BASE records that
    module with its sha256; once the file changes, measuring BASE again would measure other code, so the gate
    says it cannot and judges the rows as measured."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "helper.py").write_text(HELPER)
    runs = {}
    for name, sleep in (("base", 0), ("new", 0.4)):  # NEW's code sleeps in every call: a real slowdown
        (app / "mine.py").write_text(f"SLEEP = {sleep}\n" + TARGET)
        env = dict(machine_samples(tmp_path / f"samples-{name}", ["hog"] * 20))
        res = jitbench("measure", f"{app / 'mine.py'}:f", "--cold-runs", "4", "--warm-runs", "1", "--warm-iters",
                       "2", "--out-dir", str(tmp_path / name), env=env, out=False)
        assert res.rc == 0, res.stderr
        runs[name] = tmp_path / name
    index = json.loads((runs["base"] / "index.json").read_text())
    case = json.loads((runs["base"] / index["cases"][0]["path"]).read_text())
    validate(case, "jitbench.case.v7")
    recorded = case["cold"]["runs"][0]["worker"]["local_modules"]
    paths = [m["path"] for m in recorded]
    assert str((app / "helper.py").resolve()) in paths, paths
    assert not any(p.endswith("mine.py") or "/workloads/" in p for p in paths), paths  # kept copies: pinned anyway
    assert not any("site-packages" in p for p in paths), paths
    env = dict(machine_samples(tmp_path / "samples-gate", ["quiet"] * 40), GITHUB_STEP_SUMMARY="")
    unchanged = jitbench("compare", str(runs["base"]), str(runs["new"]), "--fail-on-regression", "10",
                         "--format", "json", env=env)
    assert unchanged.rc == 1, unchanged.stderr  # the sleep is in NEW's kept code: confirmed side by side
    doc = json.loads(unchanged.stdout)
    assert doc["remeasure"] and doc["cannot_remeasure"] is None, doc
    assert any(r["gate"] == "confirmed by re-measurement" for r in doc["rows"]), doc["rows"]
    (app / "helper.py").write_text(HELPER + "# changed since\n")
    res = jitbench("compare", str(runs["base"]), str(runs["new"]), "--fail-on-regression", "10", env=env)
    assert res.rc == 1, res.stderr
    assert (f"jitbench compare: cannot re-measure BASE: its target imports {(app / 'helper.py').resolve()}, which "
            "changed since BASE was measured") in res.stderr, res.stderr
    assert "re-measuring" not in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("new.remeasure")) == ["new.remeasure"]


def test_a_new_whose_module_changed_back_is_not_re_measured(jitbench, tmp_path):
    """NEW is measured again too: its slowdown lived in a module of the user's own that has been changed back
    since (a PR branch checked out again, a revert). Measuring NEW again would measure BASE's code on both sides
    and clear a real regression, so the gate says NEW is not pinned and judges the rows as measured."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "mine.py").write_text("SLEEP = 0\n" + TARGET)
    runs = {}
    for name, helper in (("base", HELPER), ("new", "import time\n\n\ndef work(x):\n    time.sleep(0.4)\n"
                                                   "    return x * 2\n")):
        (app / "helper.py").write_text(helper)
        env = dict(machine_samples(tmp_path / f"samples-{name}", ["hog"] * 20))
        res = jitbench("measure", f"{app / 'mine.py'}:f", "--cold-runs", "4", "--warm-runs", "1", "--warm-iters",
                       "2", "--out-dir", str(tmp_path / name), env=env, out=False)
        assert res.rc == 0, res.stderr
        runs[name] = tmp_path / name
    (app / "helper.py").write_text(HELPER)  # BASE's module again: BASE is pinned, NEW is not
    env = dict(machine_samples(tmp_path / "samples-gate", ["quiet"] * 40), GITHUB_STEP_SUMMARY="")
    res = jitbench("compare", str(runs["base"]), str(runs["new"]), "--fail-on-regression", "10", env=env)
    assert res.rc == 1, res.stderr
    assert "cannot re-measure BASE: NEW is not pinned either: its target imports" in res.stderr, res.stderr
    assert "re-measuring" not in res.stderr and not (tmp_path / "new.remeasure").exists()
