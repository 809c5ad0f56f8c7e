"""The float64 reference and the precision observation are made once per case
(worker/jitbench_worker/shared.py): the case's first process computes and
writes them to references/<case>.pickle, jitbench records the file's sha256
and every later process reads it only if it still hashes to that value. Each
process still judges its own outputs against the shared reference."""

import hashlib
import json
import pathlib
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.quick

# A user workload whose check memoises its reference (as the built-in ones do)
# and whose numpy implementation misbehaves from the case's second process on,
# as FLAG's MODE says: "lie" returns a wrong product, "tamper" rewrites the
# case's shared file (its path is on the worker's command line).
WORKLOAD = '''
import os
import sys

FLAG = @FLAG@
MODE = @MODE@
CATALOG = {"sizes": [8], "dtypes": ["f64"]}


def make_inputs(n, dtype, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, n)), rng.standard_normal((n, n))


def check(out, inputs, n, dtype, seed, ctx=None):
    import numpy as np
    ref = ctx.memo("reference", lambda: inputs[0] @ inputs[1])
    err = float(np.max(np.abs(np.asarray(out, np.float64) - ref)))
    return {"ok": err <= 1e-9, "metric": "max_abs_error", "error": err, "tolerance": 1e-9,
            "reference": "float64 product"}, {}


def _numpy(adapter, n, dtype):
    first = not os.path.exists(FLAG)
    if first:
        open(FLAG, "w").close()
    elif MODE == "tamper":
        path = sys.argv[sys.argv.index("--case-shared") + 1]
        with open(path, "ab") as f:
            f.write(b"changed")
    lie = not first and MODE == "lie"
    return lambda a, b: a @ b + (1.0 if lie else 0.0)


IMPLEMENTATIONS = {"numpy": _numpy}
'''


def user_workload(tmp_path, mode):
    path = tmp_path / "shared_probe.py"
    path.write_text(WORKLOAD.replace("@FLAG@", repr(str(tmp_path / "flag"))).replace("@MODE@", repr(mode)))
    return path


def runs(case):
    return case["cold"]["runs"] + case["warm"]["runs"] + ([case["crosscheck"]] if case.get("crosscheck") else [])


def shared_of(run):
    return run["worker"]["case_shared"]


def test_the_reference_is_computed_once_and_every_process_verifies_against_it(jitbench):
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--cold-runs", "3", "--warm-iters", "3")
    assert res.rc == 0, res.stderr
    case = res.case("numpy_matmul_64_f32")
    every = runs(case)
    assert all(r["status"] == "ok" for r in every), every
    assert [shared_of(r)["reference"] for r in every] == ["computed", "read", "read", "read"]
    assert sum(shared_of(r)["wrote"] for r in every) == 1
    # Each process still judged its own outputs: a verdict per run, with the error it found.
    for r in every:
        assert r["worker"]["verify"]["ok"] and r["worker"]["verify_first"]["ok"]
        assert r["worker"]["verify"]["error"] >= 0
    # The index lists the shared file like every artifact, with its sha256.
    rel = "references/numpy_matmul_64_f32.pickle"
    listed = {f["path"]: f["sha256"] for f in res.index()["files"]}
    assert listed[rel] == hashlib.sha256((res.out / rel).read_bytes()).hexdigest()
    assert jitbench("validate", str(res.out)).rc == 0


def test_a_reference_changed_after_the_run_fails_validate(jitbench):
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--cold-runs", "1", "--warm-iters", "0")
    assert res.rc == 0, res.stderr
    with open(res.out / "references" / "numpy_matmul_64_f32.pickle", "ab") as f:
        f.write(b"x")
    check = jitbench("validate", str(res.out))
    assert check.rc != 0
    assert "references/numpy_matmul_64_f32.pickle: sha256 differs from the index" in check.stdout + check.stderr


@pytest.mark.heavy("jax")
def test_the_precision_observation_is_made_once_per_case(jitbench):
    pytest.importorskip("jax")
    res = jitbench("run", "--backends", "jax_jit_cpu", "--cases", "matmul_64_f32", "--cold-runs", "2",
                   "--warm-iters", "2")
    assert res.rc == 0, res.stderr
    case = res.case("jax_jit_cpu_matmul_64_f32")
    every = runs(case)
    assert len(every) == 4  # two cold, the ahead-of-time cross-check, one warm
    assert all(r["status"] == "ok" for r in every), every
    assert [shared_of(r)["observation"] for r in every].count("made") == 1
    assert shared_of(case["cold"]["runs"][0])["observation"] == "made"
    # Every process still reports the observation it verified under.
    for r in every:
        assert r["worker"]["precision"]["observation"]["observed"] is True
        assert r["worker"]["precision"]["observation"]["dot_precision"]


def test_a_process_whose_output_is_wrong_fails_against_the_shared_reference(jitbench, tmp_path):
    path = user_workload(tmp_path, "lie")
    res = jitbench("run", "--workload-path", str(path), "--backends", "numpy", "--cold-runs", "3",
                   "--warm-iters", "0")
    case = res.case("numpy_shared_probe_8_f64")
    first, second = case["cold"]["runs"][:2]
    assert first["status"] == "ok" and shared_of(first)["reference"] == "computed"
    assert (second["status"], second["reason"]) == ("failed", "incorrect_result"), second
    assert shared_of(second)["reference"] == "read"
    assert second["worker"]["verify"]["error"] == pytest.approx(1.0)


def test_a_shared_reference_changed_during_the_run_is_refused_in_one_line(jitbench, tmp_path):
    path = user_workload(tmp_path, "tamper")
    res = jitbench("run", "--workload-path", str(path), "--backends", "numpy", "--cold-runs", "3",
                   "--warm-iters", "0")
    case = res.case("numpy_shared_probe_8_f64")
    first, second = case["cold"]["runs"][:2]
    assert first["status"] == "ok"
    assert (second["status"], second["reason"]) == ("failed", "worker_failed"), second
    assert "shared reference" in second["detail"] and "was changed during the run" in second["detail"]
    assert "\n" not in second["detail"].strip()
    assert "verify" not in second["worker"]  # refused before anything was judged against it


@pytest.fixture
def shared_module():
    sys.path.insert(0, str(ROOT / "worker"))
    try:
        from jitbench_worker import shared

        yield shared
    finally:
        sys.path.remove(str(ROOT / "worker"))


class Args:
    backend, workload, n, dtype, seed, precision = "numpy", "matmul", 8, "f64", 0, "default"


def test_a_shared_file_of_another_case_is_refused(shared_module, tmp_path):
    ctx = type("Ctx", (), {"matmul": "fp64", "memo_values": lambda self: {"reference": 1.0}, "observation": None})()
    path = tmp_path / "references" / "x.pickle"
    writer = shared_module.CaseShared.open(str(path), None, shared_module.identity(Args))
    assert writer.record(True, {"reference"}, ctx)["wrote"]
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    assert shared_module.CaseShared.open(str(path), sha, shared_module.identity(Args)).memo == {"reference": 1.0}
    other = type("Other", (Args,), {"n": 16})
    with pytest.raises(shared_module.SharedReferenceRefused, match="not this case"):
        shared_module.CaseShared.open(str(path), sha, shared_module.identity(other))
    with pytest.raises(shared_module.SharedReferenceRefused, match="recorded no sha256"):
        shared_module.CaseShared.open(str(path), None, shared_module.identity(Args))
    assert not list(path.parent.glob(".*.tmp"))  # written through a temporary file, renamed


def test_a_shared_file_replaced_after_its_write_is_never_trusted(jitbench):
    # The worker appends to the file right after writing it (a test hook): the
    # sha256 it reports is of the bytes it wrote, the file no longer hashes to
    # it, so jitbench records no hash and every later process refuses the file.
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--cold-runs", "2", "--warm-iters", "0",
                   env={"JITBENCH_WORKER_TEST_REWRITE_SHARED": "1"})
    case = res.case("numpy_matmul_64_f32")
    first, second = case["cold"]["runs"][:2]
    assert first["status"] == "ok" and shared_of(first)["wrote"], first
    assert len(shared_of(first)["sha256"]) == 64
    assert (second["status"], second["reason"]) == ("failed", "worker_failed"), second
    assert "recorded no sha256" in second["detail"] and "\n" not in second["detail"].strip()
    assert "verify" not in second["worker"]


def test_the_references_dir_is_private_and_the_temp_file_not_predictable(jitbench, shared_module, tmp_path):
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--cold-runs", "1", "--warm-iters", "0")
    assert res.rc == 0, res.stderr
    assert (res.out / "references").stat().st_mode & 0o777 == 0o700
    # a symlink planted at the old predictable temp name is never followed
    import os

    target = tmp_path / "victim"
    target.write_text("keep")
    path = tmp_path / "refs" / "case.pickle"
    path.parent.mkdir()
    os.symlink(target, path.parent / f".case.pickle.{os.getpid()}.tmp")
    ctx = type("Ctx", (), {"matmul": "fp64", "memo_values": lambda self: {"reference": 1.0}, "observation": None})()
    view = shared_module.CaseShared(str(path), shared_module.identity(Args))
    assert view.record(False, {"reference"}, ctx)["wrote"]
    assert target.read_text() == "keep" and path.is_file() and not path.is_symlink()
