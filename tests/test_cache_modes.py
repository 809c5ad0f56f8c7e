"""The three cache modes with real numba and JAX workers: what each run
reports, and that warm_cache is verified by the framework's own counters."""

import json
import os
import shutil
import subprocess

import pytest

from conftest import ROOT, validate

pytestmark = pytest.mark.heavy("jax, numba")


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
        seen = run["cache_observed"]  # jitbench's own watch, not the worker's word
        assert seen["watched"] is True and seen["entries_read"] == 0 and seen["added"] == 0
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
        assert run["cache_observed"]["entries_read"] >= 1  # jitbench saw the entry read
        assert run["worker"]["compiles"]["first_call"] == 0  # loaded, not compiled (JAX counts loads apart)
        assert run["first_call_breakdown"]["phases"]["cache_load"] > 0
    # Writing the cache is the priming run's cost, measured there.
    prime = c["priming"]
    assert prime["cache_dir_files"]["after"] > 0
    assert prime["first_call_breakdown"]["phases"]["cache_write" if backend == "jax_jit_cpu" else "cache_save"] > 0
    a = json.loads((modes_run / "analysis.json").read_text())
    row = next(r for r in a["cache_modes"] if r["key"] == f"{backend}_mc_pi_20000_f64")
    assert row["warm_cache"]["priming"]["cache_write_s"] > 0


def test_numba_target_initialisation_is_its_own_phase(modes_run):
    """numba refreshes its target context (installing the target's registries,
    once per process) inside a compile and inside a cache load alike: it is a
    phase of its own in both, so cache_load is the load alone."""
    cold = case(modes_run, "numba_mc_pi_20000_f64")
    warm = case(modes_run, "numba_mc_pi_20000_f64__warm_cache")
    for run in cold["cold"]["runs"] + warm["cold"]["runs"]:
        phases = run["first_call_breakdown"]["phases"]
        assert phases["target_init"] > 0
    for run in warm["cold"]["runs"]:
        phases = run["first_call_breakdown"]["phases"]
        assert phases["cache_load"] > 0 and phases.get("typing_lowering", 0) == 0 and phases.get("llvm", 0) == 0
    assert "refresh" in warm["cold"]["runs"][0]["worker"]["first_call"]["phase_sources"]["target_init"]


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
    validate(a, "jitbench.analysis.v5")
    be = {b["jit_case"]: b for b in a["break_even"]}
    assert be["numba_mc_pi_20000_f64"]["eager_case"] == "numpy_mc_pi_20000_f64"
    assert be["numba_mc_pi_20000_f64__warm_process"]["eager_case"] == "numpy_mc_pi_20000_f64__warm_process"
    for b in be.values():
        assert b["verdict"] in ("calls", "never") and (b["calls"] is None or (isinstance(b["calls"], int) and b["calls"] >= 1))
    rows = {r["key"]: r for r in a["cache_modes"]}
    assert set(rows["numba_mc_pi_20000_f64"]) >= {"cold_cache", "warm_cache", "warm_process"}
    cases = {c["case"]: c for c in a["cases"]}
    assert cases["numpy_mc_pi_20000_f64"]["memory"]["device_peak_bytes"] == "not reported"
    md = (modes_run / "summary.md").read_text()
    for heading in ["## Phases of the first call", "## Cache modes", "## Break-even", "## Memory and variance"]:
        assert heading in md


def test_a_users_jax_cache_never_serves_a_cold_run(tmp_path):
    """With JAX's persistent cache turned on in the user's shell, every cold run
    still compiles: jitbench removes the variables before any worker starts and
    records what it removed; JAX's own configuration, read back, has no cache dir."""
    out = tmp_path / "out"
    env = dict(os.environ, JAX_COMPILATION_CACHE_DIR=str(tmp_path / "users-cache"),
               JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS="0", JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES="-1")
    for _ in range(2):  # the second run would load what the first one wrote, were the cache on
        if out.exists():
            shutil.rmtree(out)
        proc = subprocess.run([str(ROOT / "build" / "jitbench"), "run", "--backends", "jax_jit_cpu", "--cases",
                               "matmul_64_f32", "--cold-runs", "2", "--warm-iters", "2", "--out-dir", str(out)],
                              capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL, env=env)
        assert proc.returncode == 0, proc.stderr
    c = case(out, "jax_jit_cpu_matmul_64_f32")
    # A crosscheck_* warn doubts the phase split of a few-ms trace (one AOT process on a loaded machine), not
    # the cache; its own tests are in test_fake_workers.py.
    assert c["status"] == "ok" or (c["status"] == "warn" and c["reason"].startswith("crosscheck_")), c["detail"]
    for run in c["cold"]["runs"] + c["warm"]["runs"]:
        assert run["worker"]["compiles"]["first_call"] >= 1
        assert run["first_call_breakdown"]["phases"].get("cache_load", 0) == 0
        assert run["worker"]["cache"]["readback"]["jax_compilation_cache_dir"] is None
    removed = {f["variable"] for f in c["inherited_cache_settings"]}
    assert removed == {"JAX_COMPILATION_CACHE_DIR", "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS",
                       "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"}
    assert not (tmp_path / "users-cache").exists() or not any((tmp_path / "users-cache").iterdir())
