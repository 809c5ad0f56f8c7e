"""The peak RSS jitbench reports is the workload's: the worker's high-water
mark read after the measured calls, before the harness computes the float64
reference and verifies in the same process (jitbench.case.v7's
peak_rss.workload_kib). The whole process's peak (wait4), which holds that
harness work, is kept beside it under its own name. Fake workers (their
memory figures honestly read, or lying on request)."""

import csv
import hashlib
import json
import os
import subprocess

import pytest

from conftest import JITBENCH, validate

pytestmark = pytest.mark.quick

CASE = "numpy_mc_pi_1000_f64"
ARGS = ["--cases", "mc_pi_1000_f64", "--backends", "numpy", "--warm-iters", "2"]


def run(tmp_path, fake_env, name, mode="ok", cold="4"):
    out = tmp_path / name
    r = subprocess.run([str(JITBENCH), "run", *ARGS, "--cold-runs", cold, "--out-dir", str(out), "--quiet"],
                       env=dict(os.environ, **fake_env(numpy=mode)), capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL)
    return out, r


def test_a_harness_allocation_after_the_calls_does_not_move_the_reported_peak(tmp_path, fake_env):
    out, r = run(tmp_path, fake_env, "alloc", "harness_alloc")
    assert r.returncode == 0, r.stderr
    case = json.loads((out / "cases" / f"{CASE}.json").read_text())
    validate(case, "jitbench.case.v7")
    workload = []
    for one in case["cold"]["runs"]:
        peak = one["peak_rss"]
        assert peak["source"] == "worker_hwm_after_calls"
        assert peak["workload_kib"] == one["worker"]["memory"]["hwm_after_calls_kib"]
        # The 200 MiB the harness touched after the reading is in the process's peak, not the workload's.
        assert peak["process_kib"] >= peak["workload_kib"] + 150 * 1024
        workload.append(peak["workload_kib"])
    analysis = json.loads((out / "analysis.json").read_text())
    memory = analysis["cases"][0]["memory"]
    assert memory["workload_peak_rss_kib_max"] == max(workload)
    assert memory["peak_rss_kib_max"] >= max(workload) + 150 * 1024  # the whole process's, named as such
    summary = (out / "summary.md").read_text()
    row = next(line for line in summary.splitlines() if line.startswith(f"| `{CASE}`") and "MiB" in line)
    assert f"{max(workload) / 1024:.1f} MiB" in row.split("|")[4], row
    # compare's peak RSS is the workload's too.
    other, r = run(tmp_path, fake_env, "plain")
    assert r.returncode == 0, r.stderr
    rows = tmp_path / "rows.csv"
    cmp = subprocess.run([str(JITBENCH), "compare", str(out), str(other), "--csv", str(rows)], capture_output=True,
                         text=True)
    assert cmp.returncode == 0, cmp.stderr
    peak_row = next(r for r in csv.DictReader(rows.open()) if r["metric"] == "peak_rss_kib")
    assert float(peak_row["base_median"]) == pytest.approx(sorted(workload)[1:3][0] / 2 + sorted(workload)[1:3][1] / 2)
    # ... where the whole process's peaks would differ by 200 MiB, the workload's do not.
    assert float(peak_row["ratio"]) == pytest.approx(1.0, abs=0.1)


@pytest.mark.parametrize("mode", ["lie_peak_high", "lie_peak_low"])
def test_a_peak_the_process_cannot_have_had_fails_the_run(tmp_path, fake_env, mode):
    out, r = run(tmp_path, fake_env, mode, mode, cold="1")
    case = json.loads((out / "cases" / f"{CASE}.json").read_text())
    first = case["cold"]["runs"][0]
    assert (first["status"], first["reason"]) == ("failed", "protocol_violation: memory.hwm_after_calls_kib"), first
    assert "cannot be true" in first["detail"]


def rehash(run_dir, rel):
    index = json.loads((run_dir / "index.json").read_text())
    for f in index["files"]:
        if f["path"] == rel:
            data = (run_dir / rel).read_bytes()
            f["sha256"], f["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (run_dir / "index.json").write_text(json.dumps(index, indent=2) + "\n")


@pytest.mark.parametrize("edit", ["block", "worker_report"])
def test_a_peak_edited_into_a_case_file_is_refused_on_read(tmp_path, fake_env, edit):
    out, r = run(tmp_path, fake_env, "edited", cold="1")
    assert r.returncode == 0, r.stderr
    rel = f"cases/{CASE}.json"
    case = json.loads((out / rel).read_text())
    one = case["cold"]["runs"][0]
    if edit == "block":  # a smaller peak than the worker reported
        one["peak_rss"]["workload_kib"] = 1
    else:  # a high-water mark no process of that size has
        one["worker"]["memory"]["hwm_after_calls_kib"] = one["rusage"]["max_rss_kib"] * 10
        one["peak_rss"]["workload_kib"] = one["worker"]["memory"]["hwm_after_calls_kib"]
    (out / rel).write_text(json.dumps(case, indent=2) + "\n")
    rehash(out, rel)
    check = subprocess.run([str(JITBENCH), "validate", str(out)], capture_output=True, text=True)
    assert check.returncode == 1 and "peak" in check.stderr and "the file was edited" in check.stderr, check.stderr
