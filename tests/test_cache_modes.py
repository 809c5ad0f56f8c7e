"""The three cache modes with real numba and JAX workers: what each run
reports, and that warm_cache is verified by the framework's own counters."""

import json
import subprocess

import pytest

from conftest import ROOT, validate


@pytest.fixture(scope="module")
def modes_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("modes") / "out"
    proc = subprocess.run([str(ROOT / "build" / "jitbench"), "run", "--backends", "numpy,numba,jax_jit_cpu",
                           "--cases", "mc_pi_20000_f64", "--cache-policy", "process_cold,warm_cache,warm_process",
                           "--cold-runs", "2", "--warm-iters", "3", "--out-dir", str(out)],
                          capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return out


def case(out, cid):
    return json.loads((out / "cases" / f"{cid}.json").read_text())


def test_process_cold_is_an_alias_of_cold_cache(modes_run):
    c = case(modes_run, "numba_mc_pi_20000_f64")
    assert c["config"]["cache_policy"] == "cold_cache"
    ml = json.loads((modes_run / "ml" / "cases" / "jax_jit_cpu_mc_pi_20000_f64.json").read_text())
    assert ml["config"]["cache_policy"] == "process_cold"


@pytest.mark.parametrize("backend", ["numba", "jax_jit_cpu"])
def test_cold_cache_compiles_with_the_frameworks_defaults(modes_run, backend):
    c = case(modes_run, f"{backend}_mc_pi_20000_f64")
    assert c["cache"]["settings"]["persistent"] is False
    for run in c["cold"]["runs"]:
        # What a default user pays: a compile, and no persistent cache written or read.
        assert run["cache_dir_files"] == {"before": 0, "after": 0}
        assert run["worker"]["cache_files"]["entries_read"] == 0
        assert run["worker"]["compiles"]["first_call"] >= 1
        assert run["worker"]["cache_events"] == {}
        b = run["first_call_breakdown"]
        assert b["sum_phases_s"] <= run["first_call_s"]
        assert b["unattributed_s"] == pytest.approx(run["first_call_s"] - b["sum_phases_s"])
        assert b["sum_phases_s"] > 0
        assert all(b["phases"].get(k, 0) == 0 for k in ("cache_load", "cache_save", "cache_write"))


@pytest.mark.parametrize("backend", ["numba", "jax_jit_cpu"])
def test_warm_cache_is_primed_and_verified(modes_run, backend):
    c = case(modes_run, f"{backend}_mc_pi_20000_f64__warm_cache")
    assert c["status"] == "ok"
    assert c["priming"]["status"] == "ok"
    assert c["cache"]["settings"]["persistent"] is True
    for run in c["cold"]["runs"] + c["warm"]["runs"]:
        assert run["cache_dir_files"]["before"] > 0
        assert run["worker"]["cache_events"]["hits"] >= 1 and run["worker"]["cache_events"]["misses"] == 0
        assert run["worker"]["cache_files"]["entries_read"] >= 1  # the kernel saw the entry read
        assert run["worker"]["compiles"]["first_call"] == 0  # loaded, not compiled (JAX counts loads apart)
        assert run["first_call_breakdown"]["phases"]["cache_load"] > 0
    # Writing the cache is the priming run's cost, measured there.
    prime = c["priming"]
    assert prime["cache_dir_files"]["after"] > 0
    assert prime["first_call_breakdown"]["phases"]["cache_write" if backend == "jax_jit_cpu" else "cache_save"] > 0
    a = json.loads((modes_run / "analysis.json").read_text())
    row = next(r for r in a["cache_modes"] if r["key"] == f"{backend}_mc_pi_20000_f64")
    assert row["warm_cache"]["priming"]["cache_write_s"] > 0


def test_numpy_has_no_cache_to_warm(modes_run):
    c = case(modes_run, "numpy_mc_pi_20000_f64__warm_cache")
    assert (c["status"], c["reason"]) == ("warn", "unsupported: numpy has no compile cache to warm")


@pytest.mark.parametrize("backend", ["numpy", "numba", "jax_jit_cpu"])
def test_warm_process_excludes_the_import(modes_run, backend):
    c = case(modes_run, f"{backend}_mc_pi_20000_f64__warm_process")
    assert c["status"] == "ok"
    for run in c["cold"]["runs"]:
        assert run["ttfr_includes_import"] is False
        assert run["ttfr_s"] == pytest.approx(run["setup_s"] + run["first_call_s"])
        if backend != "numpy":
            assert run["worker"]["compiles"]["first_call"] >= 1  # a new function compiles


def test_analysis_artifact(modes_run):
    a = json.loads((modes_run / "analysis.json").read_text())
    validate(a, "jitbench.analysis.v2")
    be = {b["jit_case"]: b for b in a["break_even"]}
    assert be["numba_mc_pi_20000_f64"]["eager_case"] == "numpy_mc_pi_20000_f64"
    assert be["numba_mc_pi_20000_f64__warm_process"]["eager_case"] == "numpy_mc_pi_20000_f64__warm_process"
    for b in be.values():
        assert b["verdict"] in ("calls", "never", "immediately")
    rows = {r["key"]: r for r in a["cache_modes"]}
    assert set(rows["numba_mc_pi_20000_f64"]) >= {"cold_cache", "warm_cache", "warm_process"}
    cases = {c["case"]: c for c in a["cases"]}
    assert cases["numpy_mc_pi_20000_f64"]["memory"]["device_peak_bytes"] == "not reported"
    md = (modes_run / "summary.md").read_text()
    for heading in ["## Phases of the first call", "## Cache modes", "## Break-even", "## Memory and variance"]:
        assert heading in md
