"""The real binary with the real Python worker and real numpy/numba/jax.
Asserts behaviour (statuses, agreement, artifacts, the contract), never timings."""

import hashlib
import json
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, validate

pytestmark = pytest.mark.heavy("jax, numba, tensorflow")

SMALL = ["--cases", "matmul_32_f32,mc_pi_20000_f64,mc_pi_20000_f32", "--cold-runs", "2", "--warm-iters", "3"]
BACKENDS = "python,numpy,numba,jax_jit_cpu,jax_jit_gpu"


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("real") / "out"
    proc = subprocess.run([str(ROOT / "build" / "jitbench"), "run", *SMALL, "--backends", BACKENDS,
                           "--out-dir", str(out)], capture_output=True, text=True, timeout=900,
                          stdin=subprocess.DEVNULL)
    return proc, out


def load(path):
    return json.loads(path.read_text())


def test_run_succeeds_and_validates(small_run, jitbench):
    proc, out = small_run
    assert proc.returncode == 0, proc.stderr
    assert "Summary:" in proc.stdout
    res = jitbench("validate", str(out))
    assert res.rc == 0, res.stderr
    index = load(out / "index.json")
    assert index["complete"] is True
    validate(index, "jitbench.index.v5")
    validate(load(out / "environment.json"), "jitbench.environment.v2")
    for c in index["cases"]:
        validate(load(out / c["path"]), "jitbench.case.v7")


def test_expected_statuses(small_run):
    _, out = small_run
    st = {c["case"]: (c["status"], c["reason"]) for c in load(out / "index.json")["cases"]}
    for b in ["numpy", "numba", "jax_jit_cpu"]:
        for case in ["matmul_32_f32", "mc_pi_20000_f64", "mc_pi_20000_f32"]:
            assert st[f"{b}_{case}"] == ("ok", None)
    assert st["python_mc_pi_20000_f64"] == ("ok", None)
    # Plain Python has no float32: reported, not silently skipped.
    assert st["python_matmul_32_f32"][0] == "warn"
    assert st["python_matmul_32_f32"][1].startswith("unsupported")
    if shutil.which("nvidia-smi") is None:
        assert st["jax_jit_gpu_matmul_32_f32"] == ("warn", "gpu_unavailable")


def test_every_cold_run_has_all_phases(small_run):
    _, out = small_run
    case = load(out / "cases" / "jax_jit_cpu_matmul_32_f32.json")
    assert len(case["cold"]["runs"]) == 2
    for run in case["cold"]["runs"]:
        for k in ["process_start_s", "import_s", "setup_s", "first_call_s", "second_call_s", "total_s"]:
            assert run[k] is not None and run[k] >= 0, k
        assert run["ttfr_s"] == pytest.approx(run["import_s"] + run["setup_s"] + run["first_call_s"])
        # The interpreter's own start-up, not the hello's (which holds the harness's own imports).
        assert run["process_ttfr_s"] == pytest.approx(run["buckets"]["interpreter_start_s"] + run["ttfr_s"])
        assert run["buckets"]["interpreter_start_s"] <= run["process_start_s"]
        # jitbench's own peak when it forked the worker, well below a JAX process's own.
        assert 0 < run["rusage"]["pre_exec_rss_kib"] < run["rusage"]["max_rss_kib"]
        assert run["exit"] == {"kind": "exited", "code": 0, "signal": 0}
    assert len(case["warm"]["calls_s"]) == 3
    summ = case["cold"]["summary"]["ttfr_s"]
    assert summ["n"] == 2 and summ["median_ci95"][0] <= summ["median"] <= summ["median_ci95"][1]
    assert case["verification"]["ok"] is True
    assert case["device"] == {"platform": "cpu", "kind": "cpu", "count": 1}


def test_cold_cache_keeps_the_frameworks_defaults(small_run):
    """cold_cache measures what a user with default settings pays: JAX and numba
    write no persistent cache, and each case file states the settings in force."""
    _, out = small_run
    for b in ["jax_jit_cpu", "numba"]:
        case = load(out / "cases" / f"{b}_matmul_32_f32.json")
        cache_dir = out / case["cache"]["dir"]
        assert (cache_dir / ".jitbench-cache").exists()
        assert case["cache"]["settings"]["persistent"] is False, b
        for run in case["cold"]["runs"] + case["warm"]["runs"]:
            assert run["cache_dir_files"] == {"before": 0, "after": 0}, b
            assert run["cache_observed"]["entries_read"] == 0
    assert "numba's default" in load(out / "cases" / "numba_matmul_32_f32.json")["cache"]["settings"]["note"]


def test_mc_pi_estimates_agree_across_backends(small_run):
    _, out = small_run
    for dtype in ["f64", "f32"]:
        inside = {}
        for b in ["python", "numpy", "numba", "jax_jit_cpu"]:
            p = out / "cases" / f"{b}_mc_pi_20000_{dtype}.json"
            if p.exists() and load(p)["status"] == "ok":
                inside[b] = load(p)["workload"]["inside"]
        assert len(inside) >= 3
        if dtype == "f64":
            assert len(set(inside.values())) == 1, inside  # exact arithmetic: identical counts
        else:
            assert max(inside.values()) - min(inside.values()) <= 8, inside
    w = load(out / "cases" / "numpy_mc_pi_20000_f64.json")["workload"]
    assert w["estimate"] == pytest.approx(4 * w["inside"] / 20000)
    assert w["error_in_se"] < 6


def test_ml_contract_export(small_run):
    _, out = small_run
    ml = out / "ml"
    index = load(ml / "ml_suite.json")
    validate(index, "nextstat.ml_benchmark_suite_result.v1")
    ids = [c["case"] for c in index["cases"]]
    assert "jax_jit_cpu_matmul_32_f32" in ids and "numpy_matmul_32_f32" in ids
    assert not any(i.startswith(("numba", "python")) for i in ids)  # not contract backends
    for c in index["cases"]:
        text = (ml / c["path"]).read_bytes()
        assert hashlib.sha256(text).hexdigest() == c["sha256"]
        doc = json.loads(text)
        validate(doc, "nextstat.ml_benchmark_result.v1")
        canonical = json.dumps(doc["config"], sort_keys=True, separators=(",", ":")) + "\n"
        assert doc["dataset"]["sha256"] == hashlib.sha256(canonical.encode()).hexdigest()
        assert doc["dataset"]["id"] == f"generated:ml:{doc['case']}"
        for run in doc["timing"]["cold"]["runs"]:
            assert set(run) == {"import_s", "first_call_s", "second_call_s", "total_s", "status", "reason"}
        if doc["status"] == "ok":
            ttfr = sorted(r["import_s"] + r["first_call_s"] for r in doc["timing"]["cold"]["runs"])
            assert doc["timing"]["cold"]["ttfr_s"]["min"] == pytest.approx(ttfr[0])
            assert c["cold_ttfr_median_s"] == pytest.approx(doc["timing"]["cold"]["ttfr_s"]["median"])
        assert doc["meta"]["jax_version"] == ("" if doc["config"]["backend"] == "numpy" else doc["meta"]["jax_version"])
    ok = [c for c in index["cases"] if c["status"] == "ok"]
    failed = [c for c in index["cases"] if c["status"] == "failed"]
    expected_worst = failed[0]["case"] if failed else max(ok, key=lambda c: c["cold_ttfr_median_s"])["case"]
    assert index["summary"]["worst_case"] == expected_worst
    snippet = (ml / "README_snippet_ml.md").read_text()
    assert "| Case | Status | Cold TTFR (median) | Warm call (median) |" in snippet
    assert "`jax_jit_cpu_matmul_32_f32` (`cpu`)" in snippet


def test_summary_markdown_lists_every_case(small_run):
    _, out = small_run
    md = (out / "summary.md").read_text()
    for c in load(out / "index.json")["cases"]:
        assert f"`{c['case']}`" in md
    assert "gpu_unavailable" in md or shutil.which("nvidia-smi")


def test_tampering_is_detected(small_run, jitbench, tmp_path):
    _, out = small_run
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    p = copy / "cases" / "numpy_matmul_32_f32.json"
    doc = load(p)
    doc["status"] = "excellent"
    p.write_text(json.dumps(doc))
    (copy / "stray.txt").write_text("mixed in")
    res = jitbench("validate", str(copy))
    assert res.rc == 1
    assert "numpy_matmul_32_f32.json: sha256 differs" in res.stderr
    assert "stray.txt: present but not listed" in res.stderr
    assert "excellent" in res.stderr or "status" in res.stderr  # schema violation reported too


def test_missing_packages_are_warn_not_skipped(jitbench, tmp_path):
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    res = jitbench("run", "--python", str(venv / "bin" / "python"), "--backends", "python,numpy,numba,jax_jit_cpu,tensorflow,torch_eager",
                   "--cases", "mc_pi_1000_f64", "--cold-runs", "1", "--warm-iters", "1")
    assert res.rc == 0, res.stderr
    st = {c["case"]: (c["status"], c["reason"]) for c in res.index()["cases"]}
    assert st["numpy_mc_pi_1000_f64"] == ("warn", "missing_dependency: numpy")
    assert st["numba_mc_pi_1000_f64"] == ("warn", "missing_dependency: numba")
    assert st["jax_jit_cpu_mc_pi_1000_f64"] == ("warn", "missing_dependency: jax")
    # Plain Python runs mc_pi without numpy, but cannot verify it against the reference.
    assert st["python_mc_pi_1000_f64"] == ("warn", "missing_dependency: numpy")
    assert "verify" in res.case("python_mc_pi_1000_f64")["detail"]
    # The frameworks plain set-up leaves out say how to ask for them.
    assert st["tensorflow_mc_pi_1000_f64"] == ("warn", "missing_dependency: tensorflow")
    assert "scripts/setup.sh --with-tensorflow" in res.case("tensorflow_mc_pi_1000_f64")["detail"]
    assert st["torch_eager_mc_pi_1000_f64"] == ("warn", "missing_dependency: torch")
    assert "scripts/setup.sh --with-torch" in res.case("torch_eager_mc_pi_1000_f64")["detail"]
    assert "--with" not in res.case("numba_mc_pi_1000_f64")["detail"]


def test_deterministic_flag_is_recorded(jitbench):
    res = jitbench("run", "--deterministic", "--backends", "numpy", "--cases", "matmul_16_f64",
                   "--cold-runs", "1", "--warm-iters", "1")
    assert res.rc == 0, res.stderr
    case = res.case("numpy_matmul_16_f64")
    assert case["config"]["deterministic"] is True
    assert case["started_at"] is None
    assert case["worker_env"]["OPENBLAS_NUM_THREADS"] == "1"
    assert json.loads((res.out / "ml" / "cases" / "numpy_matmul_16_f64.json").read_text())["deterministic"] is True


def test_catalog_is_the_workers(jitbench):
    """The binary embeds the worker's registries (generated at build time): what
    `list` names is exactly what the worker runs, plus the native worker."""
    res = jitbench("list", "--json", out=False)
    assert res.rc == 0, res.stderr
    probe = json.loads(res.stdout)
    text = jitbench("list", out=False).stdout
    listed = [l.split()[0] for l in text.split("Backends:")[1].split("Workloads:")[0].splitlines() if l.strip()]
    # Every Python backend the worker knows, plus the native C++ and CUDA workers.
    assert sorted(listed) == sorted([*probe["backends"], "native", "native_cuda"])
    workloads = [l.split()[0] for l in text.split("Workloads:")[1].split("Cache policies:")[0].splitlines() if l.strip()]
    assert workloads == probe["workloads"]


def test_retrace_counts_compiles_per_variant(jitbench):
    res = jitbench("run", "--backends", "python,numba,jax_jit_cpu", "--cases",
                   "retrace_raw_512_f64,retrace_bucketed_512_f64,retrace_raw_512_f32",
                   "--cold-runs", "1", "--warm-iters", "2")
    assert res.rc == 0, res.stderr
    def compiles(cid):
        c = res.case(cid)
        assert c["status"] == "ok", (cid, c["reason"], c["detail"])
        return c["cold"]["runs"][0]["worker"]["compiles"], c["workload"]
    raw, info = compiles("jax_jit_cpu_retrace_raw_512_f64")
    bucketed, _ = compiles("jax_jit_cpu_retrace_bucketed_512_f64")
    # JAX compiles once per distinct length, far fewer times with buckets.
    assert raw["first_call"] >= info["distinct_lengths"]
    assert bucketed["first_call"] < raw["first_call"]
    assert bucketed["first_call"] >= info["distinct_buckets"]
    assert raw["later_calls"] == 0  # everything compiled in the first pass over the stream
    # numba specializes on dtype and rank, not length.
    assert compiles("numba_retrace_raw_512_f64")[0]["first_call"] == 1
    assert compiles("python_retrace_raw_512_f64")[0]["first_call"] is None
    assert res.case("python_retrace_raw_512_f32")["reason"].startswith("unsupported")
