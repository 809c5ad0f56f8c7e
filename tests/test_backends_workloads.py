"""Issue 4's backends and workloads, end to end with the real frameworks.
Every assertion is about behaviour (statuses, verification, compile counts,
what is recorded), never about how long anything took."""

import json

import pytest

from conftest import ROOT, validate

pytestmark = pytest.mark.heavy("jax, numba, tensorflow")

QUICK = ("--cold-runs", "1", "--warm-iters", "2")
EXAMPLE = ROOT / "examples" / "workloads" / "softmax_rows.py"


def ok(res, cid):
    """An ok case; or one whose times are measured and verified but whose
    ahead-of-time cross-check disagreed with its phases (one AOT process on a
    loaded 2-core machine: that check is tested with a fake worker)."""
    c = res.case(cid)
    assert c["status"] == "ok" or (c["status"] == "warn" and c["reason"].startswith("crosscheck_")), \
        (cid, c["reason"], c["detail"])
    validate(c, "jitbench.case.v6")
    return c


def worker(c, run=0):
    return c["cold"]["runs"][run]["worker"]


def test_native_numba_parallel_and_tensorflow_verify(jitbench):
    res = jitbench("run", "--backends", "native,numba_parallel,tensorflow",
                   "--cases", "mc_pi_100000_f64,matmul_128_f32", *QUICK)
    assert res.rc == 0, res.stderr
    for b in ("native", "numba_parallel", "tensorflow"):
        for w in ("mc_pi_100000_f64", "matmul_128_f32"):
            c = ok(res, f"{b}_{w}")
            assert worker(c)["verify"]["ok"] is True
    native = worker(res.case("native_matmul_128_f32"))
    # The floor: nothing compiles at run time, and the BLAS is NumPy's own.
    assert native["compiles"] == {"first_call": 0, "later_calls": 0, "first_call_by_function": None}
    assert "numpy.libs" in native["backend"]["library"]["blas"]
    assert "-O3" in native["backend"]["flags"]
    phases = (res.out / "summary.md").read_text().split("## Phases of the first call")[1].split("\n## ")[0]
    native = phases.split("\n### `native`\n")[1].split("\n### ")[0]  # the backend's own table
    native_row = next(line for line in native.splitlines() if line.startswith("| `matmul_128_f32` |"))
    assert "(nothing compiled at run time)" in native_row, native_row
    assert worker(res.case("numba_parallel_mc_pi_100000_f64"))["backend"]["parallel"] is True
    tf = worker(res.case("tensorflow_mc_pi_100000_f64"))
    assert tf["compiles"]["first_call"] == 1 and tf["compiles"]["later_calls"] == 0
    # TensorFlow's trace and XLA compile are measured phases, not left unattributed.
    assert tf["first_call"]["phases"]["trace"] > 0 and tf["first_call"]["phases"]["xla_compile"] > 0
    assert "framework log" in tf["first_call"]["phase_sources"]["xla_compile"]
    assert tf["cache"]["kind"] == "tf_xla_persistent"
    # The same generator: every backend counts the same points in float64.
    counts = {b: res.case(f"{b}_mc_pi_100000_f64")["workload"]["inside"]
              for b in ("native", "numba_parallel", "tensorflow")}
    assert len(set(counts.values())) == 1, counts


def test_native_mc_pi_uses_every_core_and_deterministic_keeps_one(jitbench):
    """The floor counts with every core it is given (OpenMP); --deterministic
    (OMP_NUM_THREADS=1) keeps one; the count is the same either way."""
    import os
    cores = len(os.sched_getaffinity(0))
    runs = {}
    for det in (False, True):
        res = jitbench("run", "--backends", "native", "--cases", "mc_pi_1000003_f32", *QUICK,
                       *(["--deterministic"] if det else []))
        assert res.rc == 0, res.stderr
        c = ok(res, "native_mc_pi_1000003_f32")
        runs[det] = (worker(c)["backend"]["library"], c["workload"]["inside"])
    assert runs[False][0]["threading"] == "OpenMP" and runs[False][0]["threads"] == cores
    assert runs[True][0]["threads"] == 1
    assert runs[False][1] == runs[True][1]


def test_native_without_blas_is_missing_numpy(jitbench, tmp_path):
    res = jitbench("run", "--backends", "native", "--cases", "matmul_64_f32,mc_pi_1000_f32", *QUICK,
                   env={"JITBENCH_NATIVE_BLAS": str(tmp_path / "no-such-blas.so")})
    assert res.rc == 0, res.stderr
    c = res.case("native_matmul_64_f32")
    assert (c["status"], c["reason"]) == ("warn", "missing_dependency: numpy")
    assert "no-such-blas.so" in c["detail"]
    ok(res, "native_mc_pi_1000_f32")  # needs no BLAS


def test_torch_and_triton_run_or_say_why(jitbench):
    res = jitbench("run", "--backends", "torch_eager,torch_compile,triton", "--cases", "mc_pi_10000_f32", *QUICK)
    assert res.rc == 0, res.stderr
    # Whether torch is installed is a property of the benchmarked interpreter
    # (requirements/torch.txt is optional): ask it, then check each answer.
    probe = json.loads(jitbench("list", "--json", out=False).stdout)
    if not probe["backends"]["torch_compile"]["available"]:
        for b in ("torch_eager", "torch_compile"):
            c = res.case(f"{b}_mc_pi_10000_f32")
            assert (c["status"], c["reason"]) == ("warn", "missing_dependency: torch"), b
        # Triton needs both packages; the first one missing is named, as `jitbench list` names it.
        c = res.case("triton_mc_pi_10000_f32")
        assert c["status"] == "warn"
        assert c["reason"] == probe["backends"]["triton"]["reason"]
        assert c["reason"] in ("missing_dependency: triton", "missing_dependency: torch")
        return
    ok(res, "torch_eager_mc_pi_10000_f32")
    tc = worker(ok(res, "torch_compile_mc_pi_10000_f32"))
    assert set(tc["first_call"]["phases"]) <= {"dynamo", "aot_autograd", "inductor", "cache_key", "backend_other"}
    assert {"dynamo", "inductor"} <= set(tc["first_call"]["phases"])
    assert all(tc["first_call"]["phase_sources"][p].startswith("framework events") for p in tc["first_call"]["phases"])
    assert tc["compiles"]["first_call"] >= 1
    tr = res.case("triton_mc_pi_10000_f32")
    if tr["status"] == "warn":  # no GPU here: interpreted, verified, labelled
        assert tr["reason"] == "interpreter_only"
        assert worker(tr)["verify"]["ok"] is True
        assert tr["cold"]["summary"]["first_call_s"] is not None
        analysis = json.loads((res.out / "analysis.json").read_text())
        assert "triton_mc_pi_10000_f32" not in json.dumps(analysis["break_even"])
        summary = (res.out / "summary.md").read_text()
        phases = summary.split("## Phases of the first call")[1].split("\n## ")[0]
        assert "`triton_" not in phases
    else:
        ok(res, "triton_mc_pi_10000_f32")


TRANSFORM_CASES = {
    "sgd_step": 32, "sgd_step_donate": 32, "per_example_vmap": 16, "per_example_loop": 16,
    "rnn_scan": 16, "rnn_unrolled": 16, "remat_none": 4, "remat_checkpoint": 4,
    "data_parallel_pmap": 4, "data_parallel_shard_map": 4, "sharded_mlp": 64, "sharded_mlp_single": 64,
    "value_and_grad_aux": 32, "value_and_grad_twice": 32,
}


def test_jax_transform_pairs_verify_and_record(jitbench):
    cases = ",".join(f"{w}_{n}_f32" for w, n in TRANSFORM_CASES.items())
    res = jitbench("run", "--backends", "jax_jit_cpu", "--cases", cases, *QUICK)
    assert res.rc == 0, res.stderr
    for w, n in TRANSFORM_CASES.items():
        c = ok(res, f"jax_jit_cpu_{w}_{n}_f32")
        assert worker(c)["verify"]["ok"] is True
    # scan compiles the step once; the unrolled loop is one (bigger) program too.
    assert worker(res.case("jax_jit_cpu_rnn_scan_16_f32"))["compiles"]["first_call"] == 1
    assert res.case("jax_jit_cpu_rnn_unrolled_16_f32")["workload"]["unrolled"] is True
    # XLA's buffer accounting is recorded for the memory comparison.
    mem = worker(res.case("jax_jit_cpu_remat_checkpoint_4_f32"))["memory"]["compiled"]
    assert mem["temp_size_in_bytes"] >= 0
    # The forced host devices really are there.
    dp = res.case("jax_jit_cpu_data_parallel_pmap_4_f32")
    assert dp["workload"]["devices"] == 4
    assert worker(dp)["device"]["count"] == 4
    assert worker(res.case("jax_jit_cpu_sharded_mlp_64_f32"))["device"]["count"] == 8
    # The summary shows the pairs side by side.
    summary = (res.out / "summary.md").read_text()
    assert "## Transform pairs" in summary
    for pair in ("sgd_step", "per_example_loss", "rnn", "remat", "data_parallel", "sharded_mlp",
                 "value_and_grad_aux"):
        assert f"| {pair} |" in summary, pair


def test_small_fits_across_frameworks(jitbench):
    res = jitbench("run", "--backends", "numpy,numba,jax_jit_cpu,tensorflow", "--cases", "small_fits_4_f32", *QUICK)
    assert res.rc == 0, res.stderr
    for b in ("numpy", "numba", "jax_jit_cpu", "tensorflow"):
        c = ok(res, f"{b}_small_fits_4_f32")
        assert c["workload"]["fits"] == 4
    # One compile serves the whole sweep: the learning rate is an argument.
    assert worker(res.case("jax_jit_cpu_small_fits_4_f32"))["compiles"]["later_calls"] == 0


def test_user_workload_from_a_file(jitbench):
    res = jitbench("run", "--workload-path", str(EXAMPLE), "--backends", "numpy,jax_jit_cpu",
                   "--cases", "softmax_rows_64_f32", *QUICK)
    assert res.rc == 0, res.stderr
    for b in ("numpy", "jax_jit_cpu"):
        ok(res, f"{b}_softmax_rows_64_f32")
    assert "softmax_rows" in (res.out / "summary.md").read_text()


def test_user_workload_from_a_suite_file(jitbench, tmp_path):
    wl = tmp_path / "wl"
    wl.mkdir()
    (wl / "softmax_rows.py").write_text(EXAMPLE.read_text())
    suite = wl / "mine.toml"
    suite.write_text('[suite]\nname = "mine"\nworkload_paths = ["softmax_rows.py"]\n\n'
                     '[[matrix]]\nbackends = ["numpy"]\nworkloads = ["softmax_rows"]\nsizes = [32]\ndtypes = ["f64"]\n')
    res = jitbench("run", "--suite", str(suite), *QUICK)
    assert res.rc == 0, res.stderr
    ok(res, "numpy_softmax_rows_32_f64")


@pytest.mark.parametrize("content,expect", [
    ("def make_inputs(n, dtype, seed):\n    return ()\n", "lacks check, IMPLEMENTATIONS"),
    ("raise RuntimeError('broken at import')\n", "broken at import"),
])
def test_broken_user_workload_fails_with_its_reason(jitbench, tmp_path, content, expect):
    path = tmp_path / "broken_wl.py"
    path.write_text(content)
    res = jitbench("run", "--workload-path", str(path), "--backends", "numpy", "--cases", "broken_wl_8_f32", *QUICK)
    assert res.rc == 2
    c = res.case("numpy_broken_wl_8_f32")
    assert (c["status"], c["reason"]) == ("failed", "worker_failed")
    assert expect in c["detail"]


@pytest.mark.parametrize("path,message", [
    ("no_such_file.py", "does not exist"),
    ("worker/jitbench_worker/workloads/matmul.py", "is a built-in workload"),
    ("README.md", "is not a .py file"),
])
def test_bad_workload_path_is_one_line_error(jitbench, path, message):
    res = jitbench("run", "--workload-path", str(ROOT / path), "--cases", "matmul_8_f32", out=False)
    assert res.rc == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], res.stderr
