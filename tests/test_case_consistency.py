"""A case file whose parts disagree is refused by every reader (issue 49):
its summaries restate its runs, an ok case has the runs that measured it, each
run is recorded once. Edited with the index rehashed, such a file would
otherwise validate, and jitbench.load() (which takes the summary) and compare
(which recomputes from the runs) would show different numbers."""

import json
import os
import subprocess
import sys

import pytest
from forge import rehash

from conftest import JITBENCH, ROOT

sys.path.insert(0, str(ROOT / "python"))  # this tree's package, whatever .venv has installed
import jitbench as jb  # noqa: E402

pytestmark = pytest.mark.quick

CASE = "numpy_matmul_8_f32"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One run, two cold runs and two warm calls per case, made once for the module."""
    out = tmp_path_factory.mktemp("consistency") / "out"
    env = dict(os.environ, JITBENCH_WORKER_DIR=str(ROOT / "tests" / "fake_worker"), JITBENCH_PYTHON=sys.executable,
               FAKE_WORKER_MODES="")
    r = subprocess.run([str(JITBENCH), "run", "--cases", "matmul_8_f32", "--backends", "numpy", "--cold-runs", "2",
                        "--warm-iters", "2", "--out-dir", str(out), "--quiet"], env=env, capture_output=True,
                       text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    return out


def edited(recorded, tmp_path, edit):
    """A copy of the run with the case file edited as `edit` says and the index rehashed, as a tamperer would."""
    out = tmp_path / "run"
    subprocess.run(["cp", "-r", str(recorded), str(out)], check=True)
    (out / ".jitbench.lock").unlink(missing_ok=True)
    rel = f"cases/{CASE}.json"
    doc = json.loads((out / rel).read_text())
    edit(doc)
    data = json.dumps(doc, indent=2).encode()
    (out / rel).write_bytes(data)
    rehash(out, rel)
    return out


def set_cold_median(doc):
    doc["cold"]["summary"]["ttfr_s"]["median"] = 1e-9


def set_cold_n(doc):
    doc["cold"]["summary"]["ttfr_s"]["n"] = 7


def set_cold_ci(doc):
    doc["cold"]["summary"]["first_call_s"]["median_ci95"] = [0.0, 1e-9]


def set_warm_median(doc):
    doc["warm"]["summary"]["median"] = 1e-9


def no_cold_runs(doc):
    doc["cold"]["runs"] = []


def cold_runs_failed(doc):
    for run in doc["cold"]["runs"]:
        run["status"], run["reason"] = "failed", "worker_failed"


def no_warm_runs(doc):
    doc["warm"]["runs"], doc["warm"]["run"] = [], None


def cold_run_twice(doc):
    doc["cold"]["runs"][1]["index"] = doc["cold"]["runs"][0]["index"]


EDITS = [set_cold_median, set_cold_n, set_cold_ci, set_warm_median, no_cold_runs, cold_runs_failed, no_warm_runs,
         cold_run_twice]


def jitbench_cmd(*args):
    return subprocess.run([str(JITBENCH), *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_the_recorded_run_reads(recorded, monkeypatch):
    assert jitbench_cmd("validate", str(recorded)).returncode == 0
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    assert jb.load(recorded).cases


@pytest.mark.parametrize("edit", EDITS, ids=[e.__name__ for e in EDITS])
def test_a_case_file_that_disagrees_with_itself_is_refused(recorded, tmp_path, monkeypatch, edit):
    out = edited(recorded, tmp_path, edit)
    check = jitbench_cmd("validate", str(out))
    assert check.returncode != 0, check.stdout
    assert f"cases/{CASE}.json" in check.stdout + check.stderr
    assert "the file was edited" in check.stdout + check.stderr
    for args in (["report", str(out)], ["compare", str(out), str(recorded)]):
        r = jitbench_cmd(*args)
        assert r.returncode == 2 and "not a valid jitbench out dir" in r.stderr, (args, r.returncode, r.stderr)
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    with pytest.raises(jb.InvalidRun):
        jb.load(out)
