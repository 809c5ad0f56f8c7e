import json
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
# JITBENCH_BIN: another build of jitbench (scripts/gpu-verify.sh runs the GPU
# tests with the packed one on a lent GPU machine).
JITBENCH = pathlib.Path(os.environ.get("JITBENCH_BIN") or ROOT / "build" / "jitbench")
FAKE_WORKER_DIR = ROOT / "tests" / "fake_worker"
SCHEMAS = ROOT / "schemas"


class Result:
    def __init__(self, proc, out_dir):
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out = out_dir

    def index(self):
        return json.loads((self.out / "index.json").read_text())

    def case(self, case_id):
        return json.loads((self.out / "cases" / f"{case_id}.json").read_text())


@pytest.fixture
def jitbench(tmp_path):
    """Runs the real binary; returns a Result. `out` defaults to a fresh dir."""
    counter = [0]

    def run(*args, env=None, out=True, timeout=600):
        counter[0] += 1
        out_dir = tmp_path / f"out{counter[0]}"
        argv = [str(JITBENCH), *args]
        if out and args and args[0] == "run" and "--out-dir" not in args:
            argv += ["--out-dir", str(out_dir)]
        full_env = dict(os.environ, **(env or {}))
        proc = subprocess.run(argv, capture_output=True, text=True, env=full_env, timeout=timeout,
                              stdin=subprocess.DEVNULL)
        return Result(proc, out_dir)

    return run


@pytest.fixture
def fake_env():
    def make(**modes):
        env = {"JITBENCH_WORKER_DIR": str(FAKE_WORKER_DIR), "JITBENCH_PYTHON": sys.executable}
        env["FAKE_WORKER_MODES"] = ",".join(f"{k}={v}" for k, v in modes.items())
        return env

    return make


def schema(name):
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


def validate(doc, name):
    import jsonschema

    jsonschema.Draft202012Validator(schema(name)).validate(doc)


# A tiny file system of its own (a tmpfs), to fill or make read-only.
@pytest.fixture
def small_fs(tmp_path):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)])
