"""Issue 14: the floors (native on the CPU, native_cuda on a GPU), the
machine's ceilings, and every warm call as a fraction of them. Behaviour only:
which figures exist, what they are computed from, what is refused; never how
fast anything was."""

import json
import os
import shutil
import subprocess

import pytest

from conftest import ROOT, validate

pytestmark = pytest.mark.quick

QUICK = ("--cold-runs", "1", "--warm-iters", "3")
CUDA_WORKER = ROOT / "build" / "jitbench-native-cuda-worker"
# The build makes the CUDA worker wherever nvcc is (CMakeLists.txt looks on PATH, then /usr/local/cuda).
HAVE_NVCC = bool(shutil.which("nvcc")) or os.access("/usr/local/cuda/bin/nvcc", os.X_OK)
HAVE_GPU = bool(shutil.which("nvidia-smi")) and subprocess.run(
    ["nvidia-smi", "-L"], capture_output=True).returncode == 0


def messages(argv, env=None):
    """Runs a native worker with the channel on fd 3; returns (exit code, messages)."""
    r, w = os.pipe()
    os.set_inheritable(w, True)
    proc = subprocess.Popen([*argv[:2], "--fd", str(w), *argv[2:]], pass_fds=(w,), env=dict(os.environ, **(env or {})),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    rc = proc.wait(timeout=120)
    return rc, [json.loads(line) for line in data.decode().splitlines()]


@pytest.mark.heavy("nvcc")
def test_the_cuda_worker_is_built_wherever_nvcc_is():
    assert CUDA_WORKER.exists() == HAVE_NVCC, "CMakeLists.txt must build native_cuda exactly when nvcc is found"


@pytest.mark.heavy("nvcc")
@pytest.mark.skipif(not HAVE_NVCC, reason="no CUDA toolkit on this machine: the worker is not built "
                                          "(test_native_cuda_not_built_is_missing_dependency covers it)")
@pytest.mark.skipif(HAVE_GPU, reason="a GPU is present: the GPU half runs in tests/test_gpu.py")
def test_cuda_worker_speaks_the_protocol_without_a_gpu():
    rc, msgs = messages([str(CUDA_WORKER), "run", "--mode", "cold", "--backend", "native_cuda", "--workload",
                         "mc_pi", "--n", "1000", "--dtype", "f32"])
    assert rc == 0
    assert [m["type"] for m in msgs] == ["hello", "skip", "bye"]
    assert msgs[1]["status"] == "warn" and msgs[1]["reason"] == "gpu_unavailable" and msgs[1]["detail"]
    rc, msgs = messages([str(CUDA_WORKER), "ceilings"])
    assert rc == 0 and [m["type"] for m in msgs] == ["hello", "ceilings", "bye"]
    assert msgs[1]["ceilings"]["measured"] is False
    assert msgs[1]["ceilings"]["reason"].startswith("gpu_unavailable")
    # Workloads it does not implement say so.
    rc, msgs = messages([str(CUDA_WORKER), "run", "--mode", "cold", "--backend", "native_cuda", "--workload",
                         "retrace_raw", "--n", "64", "--dtype", "f32"])
    assert msgs[1]["reason"] == "unsupported: retrace_raw has no native_cuda implementation"
    bad = subprocess.run([str(CUDA_WORKER), "run"], capture_output=True, text=True)
    assert bad.returncode == 2 and "usage:" in bad.stderr


@pytest.mark.heavy("nvcc")
@pytest.mark.skipif(HAVE_GPU, reason="a GPU is present: the GPU half runs in tests/test_gpu.py")
def test_native_cuda_case_without_a_gpu_is_warn(jitbench):
    res = jitbench("run", "--backends", "native_cuda", "--cases", "mc_pi_1000_f32,matmul_64_f32", *QUICK)
    assert res.rc == 0, res.stderr
    for cid in ("native_cuda_mc_pi_1000_f32", "native_cuda_matmul_64_f32"):
        c = res.case(cid)
        validate(c, "jitbench.case.v7")
        expected = "gpu_unavailable" if HAVE_NVCC else "missing_dependency: cuda toolkit"
        assert (c["status"], c["reason"]) == ("warn", expected), (cid, c["detail"])
    env = json.loads((res.out / "environment.json").read_text())
    assert env["ceilings"]["gpu"]["measured"] is False  # asked for (a native_cuda case), not measurable here
    assert env["ceilings"]["cpu"]["measured"] is False and "no native case planned" in env["ceilings"]["cpu"]["reason"]


@pytest.mark.heavy("nvcc")
@pytest.mark.skipif(not HAVE_NVCC, reason="no CUDA toolkit on this machine: the worker is not built")
def test_cublas_is_needed_by_matmul_only(jitbench, tmp_path):
    """cuBLAS is opened at run time: without it matmul says so, and mc_pi does
    not need it (here it then stops at the missing GPU, on a GPU machine it runs)."""
    res = jitbench("run", "--backends", "native_cuda", "--cases", "matmul_64_f32,mc_pi_1000_f32", *QUICK,
                   env={"JITBENCH_CUBLAS": str(tmp_path / "libcublas.so.13")})
    assert res.rc == 0, res.stderr
    mm = res.case("native_cuda_matmul_64_f32")
    assert (mm["status"], mm["reason"]) == ("warn", "missing_dependency: cublas")
    assert str(tmp_path) in mm["detail"] and "JITBENCH_CUBLAS" in mm["detail"]
    pi = res.case("native_cuda_mc_pi_1000_f32")
    assert pi["reason"] != "missing_dependency: cublas"
    if not HAVE_GPU:
        assert (pi["status"], pi["reason"]) == ("warn", "gpu_unavailable")


def test_native_cuda_not_built_is_missing_dependency(jitbench, tmp_path):
    res = jitbench("run", "--backends", "native_cuda", "--cases", "mc_pi_1000_f32", *QUICK,
                   env={"JITBENCH_NATIVE_CUDA_WORKER": str(tmp_path / "not-built")})
    assert res.rc == 0, res.stderr
    c = res.case("native_cuda_mc_pi_1000_f32")
    assert (c["status"], c["reason"]) == ("warn", "missing_dependency: cuda toolkit")
    assert "not-built" in c["detail"] and "nvcc" in c["detail"]
    validate(c, "jitbench.case.v7")


def test_ceilings_and_fractions_of_the_floor(jitbench):
    res = jitbench("run", "--backends", "native,numpy", "--cases", "matmul_128_f32,mc_pi_100000_f32", *QUICK)
    assert res.rc == 0, res.stderr
    env = json.loads((res.out / "environment.json").read_text())
    validate(env, "jitbench.environment.v2")
    cpu = env["ceilings"]["cpu"]
    assert cpu["measured"] is True and cpu["device"] == "cpu"
    assert cpu["sgemm_gflops"] > 0 and cpu["dgemm_gflops"] > 0 and cpu["copy_gbps"] > 0
    assert "numpy.libs" in cpu["library"]["blas"]
    analysis = json.loads((res.out / "analysis.json").read_text())
    validate(analysis, "jitbench.analysis.v5")
    rows = {r["case"]: r for r in analysis["throughput"]}
    assert set(rows) == {"native_matmul_128_f32", "numpy_matmul_128_f32", "native_mc_pi_100000_f32",
                         "numpy_mc_pi_100000_f32"}
    for cid, r in rows.items():
        case = res.case(cid)
        warm = sorted(case["warm"]["runs"][0]["calls_s"])
        assert r["warm_median_s"] == pytest.approx(warm[len(warm) // 2])
        n = case["config"]["n"]
        work = 2 * n ** 3 / 1e9 if r["workload"] == "matmul" else n
        if r["workload"] == "matmul":
            assert case["workload"]["flops"] == 2 * n ** 3  # what the worker says it did
        assert r["achieved"] == pytest.approx(work / r["warm_median_s"])
        floor = rows[f"native_{r['workload']}_{n}_f32"]
        assert r["floor"]["case"] == floor["case"]
        assert r["floor"]["fraction"] == pytest.approx(r["achieved"] / floor["achieved"])
    assert rows["numpy_matmul_128_f32"]["ceiling"]["name"] == "cpu.sgemm_gflops"
    assert rows["numpy_matmul_128_f32"]["ceiling"]["fraction"] == pytest.approx(
        rows["numpy_matmul_128_f32"]["achieved"] / cpu["sgemm_gflops"])
    assert rows["numpy_mc_pi_100000_f32"]["ceiling"] is None and rows["numpy_mc_pi_100000_f32"]["ceiling_note"]
    summary = (res.out / "summary.md").read_text()
    assert "## Throughput against the floor and the ceiling" in summary
    assert "Ceilings: CPU: sgemm" in summary


def test_ceilings_off_and_a_lying_ceilings_worker(jitbench, tmp_path):
    res = jitbench("run", "--backends", "native", "--cases", "matmul_64_f32", "--ceilings", "off", *QUICK)
    assert res.rc == 0, res.stderr
    env = json.loads((res.out / "environment.json").read_text())
    assert env["ceilings"]["cpu"] == {"measured": False, "reason": "--ceilings off"}
    row = json.loads((res.out / "analysis.json").read_text())["throughput"][0]
    assert row["ceiling"] is None and "--ceilings off" in row["ceiling_note"]
    # A worker whose ceilings message claims figures without saying they were
    # measured is not believed: the manifest says there was no answer.
    liar = tmp_path / "liar.sh"
    liar.write_text("#!/bin/sh\n[ \"$1\" = ceilings ] || exit 3\n"
                    "echo '{\"type\":\"ceilings\",\"ceilings\":{\"sgemm_gflops\":1e9}}' >&$3\n")
    liar.chmod(0o755)
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--ceilings", "on", *QUICK,
                   env={"JITBENCH_NATIVE_WORKER": str(liar)})
    assert res.rc == 0, res.stderr
    cpu = json.loads((res.out / "environment.json").read_text())["ceilings"]["cpu"]
    assert cpu["measured"] is False and "no answer" in cpu["reason"]
    # One that says measured but whose figures no schema accepts is not kept either; the manifest stays valid.
    liar.write_text("#!/bin/sh\n[ \"$1\" = ceilings ] || exit 3\n"
                    "echo '{\"type\":\"ceilings\",\"ceilings\":{\"measured\":true,\"device\":\"cpu\","
                    "\"sgemm_gflops\":\"fast\",\"dgemm_gflops\":-1,\"copy_gbps\":1,\"method\":{}}}' >&$3\n")
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--ceilings", "on", *QUICK,
                   env={"JITBENCH_NATIVE_WORKER": str(liar)})
    assert res.rc == 0, res.stderr
    env = json.loads((res.out / "environment.json").read_text())
    validate(env, "jitbench.environment.v2")
    assert env["ceilings"]["cpu"]["measured"] is False
    assert "dgemm_gflops = -1 is outside what a machine can do" in env["ceilings"]["cpu"]["reason"]
    # A figure no machine measures (5e-324 GFLOP/s: every fraction of it infinite) is refused where it comes in.
    liar.write_text("#!/bin/sh\n[ \"$1\" = ceilings ] || exit 3\n"
                    "echo '{\"type\":\"ceilings\",\"ceilings\":{\"measured\":true,\"device\":\"cpu\","
                    "\"sgemm_gflops\":5e-324,\"dgemm_gflops\":100,\"copy_gbps\":10,\"method\":{}}}' >&$3\n")
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--ceilings", "on", *QUICK,
                   env={"JITBENCH_NATIVE_WORKER": str(liar)})
    assert res.rc == 0, res.stderr
    cpu = json.loads((res.out / "environment.json").read_text())["ceilings"]["cpu"]
    assert cpu["measured"] is False and "sgemm_gflops = 4.94066e-324 is outside" in cpu["reason"], cpu
    assert jitbench("validate", str(res.out)).rc == 0
    # A figure no schema accepts (a string) is not kept either.
    liar.write_text("#!/bin/sh\n[ \"$1\" = ceilings ] || exit 3\n"
                    "echo '{\"type\":\"ceilings\",\"ceilings\":{\"measured\":true,\"device\":\"cpu\","
                    "\"sgemm_gflops\":\"fast\",\"dgemm_gflops\":1,\"copy_gbps\":1,\"method\":{}}}' >&$3\n")
    res = jitbench("run", "--backends", "numpy", "--cases", "matmul_64_f32", "--ceilings", "on", *QUICK,
                   env={"JITBENCH_NATIVE_WORKER": str(liar)})
    env = json.loads((res.out / "environment.json").read_text())
    assert env["ceilings"]["cpu"]["measured"] is False
    assert "fails the environment schema" in env["ceilings"]["cpu"]["reason"]
    # And a manifest edited to claim an impossible ceiling fails validation.
    env_file = res.out / "environment.json"
    doc = json.loads(env_file.read_text())
    doc["ceilings"]["cpu"] = {"measured": True, "device": "cpu", "sgemm_gflops": -1, "dgemm_gflops": 1,
                              "copy_gbps": 1, "method": {}}
    with pytest.raises(Exception):
        validate(doc, "jitbench.environment.v2")


def test_bad_ceilings_value_is_one_line_error(jitbench):
    res = jitbench("run", "--ceilings", "maybe", out=False)
    assert res.rc != 0
    assert "--ceilings" in res.stderr and len(res.stderr.strip().splitlines()) == 1
