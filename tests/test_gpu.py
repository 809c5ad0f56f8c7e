"""The GPU backends on both kinds of machine, with suites/gpu-smoke.toml.

Without a GPU every case must say why it did not run. With one, every case of
an installed backend must be ok: synchronized (the runner's pending-work check
passed), verified against float64 at the precision the framework really used,
and recorded with that precision. The second half runs only where nvidia-smi
sees a GPU; CI has none, so it is run on a lent GPU machine (docs/results-gpu.md
says when it last ran and what it printed)."""

import json
import shutil
import subprocess

import pytest

from conftest import ROOT

pytestmark = pytest.mark.heavy("jax, tensorflow: every GPU backend on the CPU")

SMOKE = str(ROOT / "suites" / "gpu-smoke.toml")


def gpu_present():
    if shutil.which("nvidia-smi") is None:
        return False
    return subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode == 0


def statuses(res):
    return {c["case"]: (c["status"], c["reason"]) for c in res.index()["cases"]}


@pytest.mark.skipif(gpu_present(), reason="this machine has a GPU: test_gpu_cases_are_ok_synchronized_and_verified runs")
def test_without_a_gpu_every_gpu_backend_says_why(jitbench):
    res = jitbench("run", "--suite", SMOKE)
    assert res.rc == 0, res.stderr
    st = statuses(res)
    assert len(st) == 11  # native_cuda included: gpu_unavailable, or missing_dependency: cuda toolkit
    for case, (status, reason) in st.items():
        assert status == "warn", case
        assert reason == "gpu_unavailable" or reason.startswith("missing_dependency: "), (case, reason)
    detail = res.case("jax_jit_gpu_matmul_1024_f32")["detail"]
    assert "cuda" in detail.lower()
    assert jitbench("validate", str(res.out)).rc == 0


@pytest.mark.skipif(not gpu_present(), reason="no GPU here (nvidia-smi sees none): run on a GPU machine")
@pytest.mark.parametrize("precision", ["default", "highest"])
def test_gpu_cases_are_ok_synchronized_and_verified(jitbench, precision):
    res = jitbench("run", "--suite", SMOKE, "--precision", precision)
    st = statuses(res)
    assert res.rc == 0, res.stderr
    for case, (status, reason) in st.items():
        if reason and reason.startswith("missing_dependency: "):
            continue  # e.g. no TensorFlow on the machine: said, not silently skipped
        assert status == "ok", (case, reason)
        c = res.case(case)
        for run in c["cold"]["runs"] + c["warm"]["runs"]:
            w = run["worker"]
            assert w["verify"]["ok"] and w["verify_first"]["ok"]
            if not case.startswith("tensorflow"):  # TensorFlow cannot report queued work
                assert w["sync"]["pending_after_last_call"] is False, case
        assert c["device"]["platform"] in ("gpu", "cuda"), case
        matmul = c["precision"]["matmul"]
        assert c["precision"]["requested"] == precision
        if precision == "highest":
            assert matmul == "ieee_fp32", case
    summary = (res.out / "summary.md").read_text()
    assert "Matmul precision" in summary
    analysis = json.loads((res.out / "analysis.json").read_text())
    be = {b["jit_case"]: b for b in analysis["break_even"]}
    suffix = "" if precision == "default" else "__highest"
    for jit, eager in [("jax_jit_gpu", "jax_eager_gpu"), ("torch_compile_gpu", "torch_eager_gpu")]:
        key = f"{jit}_matmul_1024_f32{suffix}"
        if key in be:
            assert be[key]["eager_case"] == f"{eager}_matmul_1024_f32{suffix}"
            assert be[key]["baseline"]["kind"] == "same_framework"
