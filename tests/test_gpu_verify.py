"""scripts/gpu-pack.sh and scripts/gpu-verify.sh, here where there is no GPU.

On a machine without a GPU gpu-verify.sh must say so and run nothing. With a
stand-in nvidia-smi and the test-only switch JITBENCH_TEST_GPU_ON_CPU=1 (the
GPU backends run their CPU twins' code on the CPU, and the run says so), every
part runs end to end from a real pack, is resumed after its process group is
killed, and leaves its tarball and verdict; a run made so is never published.
The same parts on a GPU are docs/results-gpu.md's business (docs/gpu.md)."""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tarfile
import time

import pytest

from conftest import JITBENCH, ROOT

pytestmark = pytest.mark.heavy("nvcc, downloaded wheels")

VERIFY = str(ROOT / "scripts" / "gpu-verify.sh")
FAKE_SMI = """#!/bin/sh
# A stand-in for a GPU machine's nvidia-smi: one GPU, which is not there.
case "$*" in
  *-L*) echo "GPU 0: Stand-in GPU for tests (UUID: GPU-00000000-0000-0000-0000-000000000000)" ;;
  *--query-gpu*) echo "Stand-in GPU for tests, 0.0, 1024 MiB, 0 MHz, 0 MHz, Disabled" ;;
  *) echo "stand-in nvidia-smi: no GPU is here" ;;
esac
"""
NO_GPU_SMI = "#!/bin/sh\necho 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'\nexit 9\n"

# A stand-in for the seed harness's suites/ml/suite.py: it records how it was
# called and writes one seed-format case per case, so that the verdict's
# reading of the seed is tested (the real one is packed from a checkout that
# CI cannot fetch).
SEED_STUB = r'''
import json, pathlib, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
out = pathlib.Path(args["--out-dir"]) / "cases"
out.mkdir(parents=True, exist_ok=True)
(out.parent / "argv.json").write_text(json.dumps(sys.argv[1:]))
for b in args["--backends"].split(","):
    for c in args["--cases"].split(","):
        s = {"median": 0.5, "min": 0.4, "p95": 0.6}
        (out / f"{b}_{c}.json").write_text(json.dumps({"case": f"{b}_{c}", "status": "ok",
            "timing": {"cold": {"import_s": s, "first_call_s": s, "runs": []}, "warm": {"call_s": s}}}))
'''


def bin_dir(tmp_path, script):
    d = tmp_path / "bin"
    d.mkdir(exist_ok=True)
    (d / "nvidia-smi").write_text(script)
    (d / "nvidia-smi").chmod(0o755)
    return d


@pytest.fixture(scope="module")
def pack(tmp_path_factory):
    """A real pack, made by scripts/gpu-pack.sh (builds the native workers for
    x86-64-v3 and sm_90/sm_100 with nvcc, downloads the tests' cp312 wheels)."""
    if shutil.which("nvcc") is None and not os.path.exists("/usr/local/cuda/bin/nvcc"):
        pytest.fail("nvcc is not installed: scripts/gpu-pack.sh builds the native_cuda worker with it")
    base = tmp_path_factory.mktemp("gpu")
    seed = base / "seed-checkout" / "suites" / "ml"
    seed.mkdir(parents=True)
    (seed / "suite.py").write_text(SEED_STUB)
    (seed / "run.py").write_text("# started by suite.py in the real harness\n")
    out = base / "pack"
    proc = subprocess.run([str(ROOT / "scripts" / "gpu-pack.sh"), "--out", str(out), "--seed-harness",
                           str(base / "seed-checkout")], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert f"gpu-pack: {out}:" in proc.stdout
    return out


def session_pids(sid):
    pids = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":  # a zombie holds no lock
            pids.append(int(stat.parent.name))
    return pids


def kill_session(sid):
    """SIGKILL to every process of the session (the script, and the steps that
    run in process groups of their own), and wait until they are gone: a
    jitbench still dying would hold its out dir's lock against the resumption."""
    deadline = time.time() + 30
    while (pids := session_pids(sid)) and time.time() < deadline:
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    assert not session_pids(sid), "the killed session's processes did not go"


def verify_env(tmp_path, pack, run_args, **extra):
    env = dict(os.environ, PATH=f"{bin_dir(tmp_path, FAKE_SMI)}:{os.environ['PATH']}", JITBENCH_TEST_GPU_ON_CPU="1",
               JITBENCH_PYTHON=sys.executable, JITBENCH_GPU_PACK=str(pack), GPU_VERIFY_OUT=str(tmp_path / "back"),
               GPU_VERIFY_RUN_ARGS=run_args, GPU_VERIFY_SEED_COLD_RUNS="1", GPU_VERIFY_RUNS=str(tmp_path / "runs"))
    env.pop("OUT", None)
    env.update(extra)
    return env


def verify(part, env, timeout=600):
    return subprocess.run([VERIFY, part], capture_output=True, text=True, env=env, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def index(runs, part, step):
    return json.loads((runs / part / step / "index.json").read_text())


def tarball_names(path):
    assert path.stat().st_size < 16 * 1024 * 1024
    with tarfile.open(path) as t:
        return t.getnames()


def test_without_a_gpu_nothing_runs(tmp_path):
    pack = tmp_path / "pack"
    env = dict(os.environ, PATH=f"{bin_dir(tmp_path, NO_GPU_SMI)}:{os.environ['PATH']}", JITBENCH_GPU_PACK=str(pack),
               GPU_VERIFY_OUT=str(tmp_path / "back"))
    for part in ("a", "b1", "b2", "b3", "c1", "c2", "c3", "d1", "d2", "d3"):
        res = verify(part, env)
        assert res.returncode == 3, res.stderr
        assert "no GPU" in res.stderr and "nothing was run" in res.stderr
    assert not pack.exists() and not (tmp_path / "back").exists()
    res = verify("z9", env)
    assert res.returncode == 2 and "usage" in res.stderr


def test_plan_covers_each_suite_once():
    """The parts' real selections (not the small ones the end-to-end test
    substitutes): each shard family partitions its suite, part a and d1 hold
    what their steps promise."""
    res = subprocess.run([VERIFY, "plan"], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert res.returncode == 0, res.stderr
    by = {}
    for line in res.stdout.splitlines():
        part, step, case = line.split()
        by.setdefault((part, step), []).append(case)

    def plan(*args):
        out = subprocess.run([str(JITBENCH), "plan", *args], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return sorted(ln.split()[0] for ln in out.stdout.splitlines() if not ln.startswith("#"))

    gpu = str(ROOT / "suites" / "gpu.toml")
    for prec, family in (("default", "b"), ("highest", "c")):
        shards = [by[(f"{family}{k}", f"gpu-{prec}-{k}")] for k in (1, 2, 3)]
        assert all(shards) and sum(map(len, shards)) == len(set(sum(shards, [])))
        assert sorted(sum(shards, [])) == plan("--suite", gpu, "--precision", prec)
    loops = [by[(f"d{k}", f"loops-gpu-{k - 1}")] for k in (2, 3)]
    assert sorted(sum(loops, [])) == plan("--suite", str(ROOT / "suites" / "loops-gpu.toml"))
    assert len(by[("a", "headline")]) == 4 and all(c.startswith("jax_jit_gpu_matmul_") for c in by[("a", "headline")])
    assert {c.split("_mc_pi")[0].split("_matmul")[0] for c in by[("d1", "floors-gpu")]} == \
        {"native_cuda", "jax_jit_gpu", "torch_compile_gpu", "triton"}


def test_every_part_runs_resumes_after_a_kill_and_packs_its_verdict(tmp_path, pack, jitbench):
    small = "--backends jax_jit_gpu --cases matmul_512_f32 --cold-runs 1 --warm-iters 2"
    runs = tmp_path / "runs"
    # Part a, killed (every process of its session, as a lent machine's runner kills a command
    # at its limit) once the headline run has measured a case, then called again.
    env = verify_env(tmp_path, pack, small.replace("jax_jit_gpu", "jax_jit_gpu,native_cuda"))
    proc = subprocess.Popen([VERIFY, "a"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    headline = runs / "a" / "headline" / "index.json"
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        try:
            if json.loads(headline.read_text())["cases"]:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    assert proc.poll() is None, "part a ended before it could be killed"
    kill_session(proc.pid)
    proc.wait()
    killed = index(runs, "a", "headline")
    assert not killed["complete"] and 1 <= len(killed["cases"]) < 4

    res = verify("a", env)
    # native_cuda has no GPU behind the stand-in: the verdict must fail on it, and only on it.
    assert res.returncode == 1, res.stderr
    done = index(runs, "a", "headline")
    assert done["complete"] and len(done["cases"]) == 4
    assert done["resumed"][0]["kept"] >= 1
    verdict = (tmp_path / "back" / "verdict-a.md").read_text()
    assert verdict.startswith("# gpu-verify part a: FAIL")
    assert "Test run: JITBENCH_TEST_GPU_ON_CPU=1" in verdict
    failed = [ln for ln in verdict.split("## What failed")[1].split("## Steps")[0].splitlines() if ln.startswith("- ")]
    assert failed and all("native_cuda" in ln and "gpu_unavailable" in ln for ln in failed), failed
    assert "| `jax_jit_gpu_matmul_512_f32__highest` | ok | cpu" in verdict
    seed_argv = json.loads((runs / "a" / "seed" / "argv.json").read_text())
    assert seed_argv[seed_argv.index("--backends") + 1] == "jax_jit_gpu"
    assert seed_argv[seed_argv.index("--cases") + 1] == "matmul_512_f32,matmul_1024_f32"
    assert "| `jax_jit_gpu_matmul_1024_f32` | ok |" in verdict  # the seed's own table
    assert not (pack / "runs").exists()  # the runs live beside the pack: sending the pack again keeps them
    names = tarball_names(tmp_path / "back" / "gpu-a.tar.gz")
    assert "a/verdict.md" in names and "a/logs/devices.txt" in names and "a/headline/index.json" in names
    assert not [n for n in names if "/cache/" in n or n.endswith("/cache")]

    # Every other part, with the GPU backends on the CPU: each passes, packs, validates.
    env = verify_env(tmp_path, pack, small)
    for part in ("b1", "b2", "b3", "c1", "c2", "c3", "d2", "d3"):
        res = verify(part, env)
        verdict = (tmp_path / "back" / f"verdict-{part}.md").read_text()
        assert res.returncode == 0, (part, verdict)
        assert verdict.startswith(f"# gpu-verify part {part}: PASS")
        assert f"{part}/verdict.md" in tarball_names(tmp_path / "back" / f"gpu-{part}.tar.gz")
    # d1: floors with --ceilings on, then tests/test_gpu.py, whose GPU half must
    # fail here: the stand-in GPU is a CPU, and that test checks the device.
    res = verify("d1", env)
    verdict = (tmp_path / "back" / "verdict-d1.md").read_text()
    assert res.returncode == 1, verdict
    assert "- test_gpu: exited 1" in verdict
    floors = runs / "d1" / "floors-gpu"
    assert json.loads((floors / "environment.json").read_text()).get("ceilings")

    # Out of time before a step starts: incomplete (4), then resumed to the end.
    out_of_time = verify("c1", dict(env, GPU_VERIFY_BUDGET_S="0"))
    assert out_of_time.returncode == 0  # c1 is done: nothing left to run
    (runs / "c2").rename(tmp_path / "c2-done")
    late = verify("c2", dict(env, GPU_VERIFY_BUDGET_S="0"))
    assert late.returncode == 4, late.stderr
    assert (tmp_path / "back" / "verdict-c2.md").read_text().startswith("# gpu-verify part c2: INCOMPLETE")
    assert verify("c2", env).returncode == 0

    # Runs made with the switch and without never meet in one part; a bad budget is a usage error.
    res = verify("b1", dict(env, JITBENCH_TEST_GPU_ON_CPU=""))
    assert res.returncode == 2 and "move it away first" in res.stderr, res.stderr
    res = verify("b1", dict(env, GPU_VERIFY_BUDGET_S="8m"))
    assert res.returncode == 2 and "whole seconds" in res.stderr
    res = verify("b1", dict(env, GPU_VERIFY_OUT=str(tmp_path / "back" / "verdict-b1.md")))  # a file, not a folder
    assert res.returncode == 2 and "cannot write" in res.stderr

    # A run made with the switch is never published.
    res = jitbench("publish", str(runs / "b1" / "gpu-default-1"), "--to", str(tmp_path / "site"))
    assert res.rc != 0 and "JITBENCH_TEST_GPU_ON_CPU" in res.stderr
    assert not (tmp_path / "site" / "snapshots").exists()

    # bench/results.py renders docs/results-gpu.md from the tarballs, unpacked.
    runs, docs = tmp_path / "unpacked", tmp_path / "docs"
    runs.mkdir()
    docs.mkdir()
    for t in (tmp_path / "back").glob("gpu-*.tar.gz"):
        with tarfile.open(t) as tf:
            tf.extractall(runs)
    render = subprocess.run([sys.executable, str(ROOT / "bench" / "results.py"), "gpu", "--runs", str(runs),
                             "--docs", str(docs)], capture_output=True, text=True)
    assert render.returncode == 0, render.stderr
    page = (docs / "results-gpu.md").read_text()
    assert "{{" not in page and "Not measured yet" not in page
    assert "**Test rendering: these runs were made with JITBENCH_TEST_GPU_ON_CPU=1" in page
    assert "| b1 | PASS | 0 |" in page and "| d1 | FAIL |" in page
    assert "| `jax_jit_gpu_matmul_512_f32` | jitbench | ok |" in page  # beside the seed's row
    assert "| `jax_jit_gpu_matmul_512_f32` | ok / ok | ieee_fp32 |" in page  # default beside highest
    merged = json.loads((runs / "merged" / "gpu-default" / "index.json").read_text())
    assert merged["complete"] and [c["case"] for c in merged["cases"]] == ["jax_jit_gpu_matmul_512_f32"]


def test_the_gpu_page_before_any_gpu_run_says_what_fills_it(tmp_path):
    empty, docs = tmp_path / "runs", tmp_path / "docs"
    empty.mkdir()
    docs.mkdir()
    render = subprocess.run([sys.executable, str(ROOT / "bench" / "results.py"), "gpu", "--runs", str(empty),
                             "--docs", str(docs)], capture_output=True, text=True)
    assert render.returncode == 0, render.stderr
    page = (docs / "results-gpu.md").read_text()
    sections = page.split("\n## ")[1:]
    assert len(sections) == 8
    for s in sections[1:]:  # the verdicts table lists every part as not run yet
        assert "*Not measured yet: `scripts/gpu-verify.sh " in s, s[:80]
    assert page.count("| not run yet |") == 10
    # A folder of merged runs that bench/results.py did not make is never replaced.
    users = tmp_path / "users"
    (users / "merged").mkdir(parents=True)
    (users / "merged" / "mine.txt").write_text("a user's file")
    again = subprocess.run([sys.executable, str(ROOT / "bench" / "results.py"), "gpu", "--runs", str(users),
                            "--docs", str(docs)], capture_output=True, text=True)
    assert again.returncode != 0 and "not one bench/results.py made" in again.stderr
    assert (users / "merged" / "mine.txt").exists()


def test_a_run_made_with_the_switch_says_so_and_is_kept_apart(jitbench, tmp_path):
    """The switch is recorded, shown first, and never mixed with a run made
    without it: not by --resume, not by merge, not by publish."""
    on, off = {"JITBENCH_TEST_GPU_ON_CPU": "1"}, {"JITBENCH_TEST_GPU_ON_CPU": ""}
    sel = ["--backends", "jax_jit_gpu", "--cases", "matmul_64_f32,matmul_128_f32", "--cold-runs", "1",
           "--warm-iters", "1"]
    a = jitbench("run", *sel, "--shard", "1/2", env=on)
    b = jitbench("run", *sel, "--shard", "2/2", env=off)
    assert a.rc == 0 and b.rc == 0, a.stderr + b.stderr
    [case_a] = a.index()["cases"]
    [case_b] = b.index()["cases"]
    assert case_a["status"] == "ok" and case_b["reason"] == "gpu_unavailable"  # the same backend, a CPU only with it
    assert "JITBENCH_TEST_GPU_ON_CPU=1" in a.case(case_a["case"])["device"]["test_only"]
    assert "**Test run: the GPU backends ran on the CPU**" in (a.out / "summary.md").read_text()
    assert "Test run" not in (b.out / "summary.md").read_text()
    assert jitbench("report", str(a.out)).rc == 0
    assert "- **Test run**: JITBENCH_TEST_GPU_ON_CPU=1" in (a.out / "report" / "report.md").read_text()

    for run, env, was in ((a, off, "with"), (b, on, "without")):
        res = jitbench("run", "--resume", str(run.out), env=env, out=False)
        assert res.rc == 2 and f"was started {was} the test-only switch" in res.stderr, res.stderr
    merged = tmp_path / "merged"
    res = jitbench("merge", str(merged), str(a.out), str(b.out))
    assert res.rc == 2 and "test-only switch JITBENCH_TEST_GPU_ON_CPU=1" in res.stderr, res.stderr
    assert not merged.exists()
    res = jitbench("publish", str(a.out), "--to", str(tmp_path / "site"))
    assert res.rc != 0 and "JITBENCH_TEST_GPU_ON_CPU" in res.stderr
    assert not (tmp_path / "site" / "snapshots").exists()

    # Never one environment's: not by --env-var, not by a suite's [[environments]] variables.
    res = jitbench("plan", "--cases", "matmul_64_f32", "--backends", "numpy", "--env", "t:numpy",
                   "--env-var", "t:JITBENCH_TEST_GPU_ON_CPU=1")
    assert res.rc == 2 and "test-only switch for the whole run" in res.stderr, res.stderr
    suite = tmp_path / "s.toml"
    suite.write_text('[[matrix]]\nbackends = ["numpy"]\nworkloads = ["matmul"]\nsizes = [64]\ndtypes = ["f32"]\n'
                     '[[environments]]\nrequirements = ["numpy"]\nvariables = {JITBENCH_TEST_GPU_ON_CPU = "1"}\n')
    res = jitbench("plan", "--suite", str(suite))
    assert res.rc == 2 and "test-only switch for the whole run" in res.stderr, res.stderr


def test_the_verdict_fails_every_case_not_ok_but_tensorflows_absence(tmp_path):
    """scripts/gpu_verdict.py on a part's steps written by hand: a missing
    TensorFlow is said and passes, a missing torch or an unavailable GPU fails,
    an incomplete run fails, a seed not packed fails once."""
    work = tmp_path / "work"
    (work / "steps").mkdir(parents=True)
    (work / "logs").mkdir()

    def step(name, kind, rc, cases=None, complete=True):
        (work / "steps" / f"{name}.json").write_text(json.dumps(
            {"name": name, "kind": kind, "rc": rc, "seconds": 1, "validate_rc": 0 if kind == "run" else None,
             "command": f"jitbench run {name}"}))
        if cases is not None:
            d = work / name / "cases"
            d.mkdir(parents=True)
            index = {"complete": complete, "summary": {"n_planned": len(cases)}, "cases": []}
            for case, status, reason in cases:
                (d / f"{case}.json").write_text(json.dumps({"status": status, "reason": reason, "detail": "why"}))
                index["cases"].append({"case": case, "status": status, "reason": reason,
                                       "path": f"cases/{case}.json", "warm_call_median_s": None})
            (work / name / "index.json").write_text(json.dumps(index))

    step("ok-run", "run", 0, [("jax_jit_gpu_matmul_512_f32", "ok", None),
                              ("tensorflow_gpu_matmul_512_f32", "warn", "missing_dependency: tensorflow")])
    verdict = lambda steps: subprocess.run([sys.executable, str(ROOT / "scripts" / "gpu_verdict.py"), str(work), "x",
                                            "a test part", steps, "0"], capture_output=True, text=True)
    res = verdict("run:ok-run")
    assert res.returncode == 0 and res.stdout.startswith("# gpu-verify part x: PASS"), res.stdout
    assert "warn: missing_dependency: tensorflow" in res.stdout  # shown, not hidden

    step("bad-run", "run", 0, [("torch_compile_gpu_matmul_512_f32", "warn", "missing_dependency: torch"),
                               ("native_cuda_matmul_512_f32", "warn", "gpu_unavailable")], complete=False)
    step("seed", "seed", 127)
    res = verdict("run:ok-run run:bad-run seed:seed run:never-ran")
    assert res.returncode == 1 and res.stdout.startswith("# gpu-verify part x: FAIL")
    failed = res.stdout.split("## What failed")[1].split("## Steps")[0]
    for needle in ("bad-run: incomplete", "`torch_compile_gpu_matmul_512_f32` warn: missing_dependency: torch",
                   "`native_cuda_matmul_512_f32` warn: gpu_unavailable", "never-ran: not run"):
        assert needle in failed, needle
    assert failed.count("\n- seed:") == 1 and "the seed harness was not packed" in failed
    assert "tensorflow" not in failed
