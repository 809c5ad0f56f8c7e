# The harness tests' fixtures and helpers. ROOT and the test tiers' hooks for every test folder are
# in the repository's conftest.py (tests/ and worker/tests/ share them).
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

    def run(*args, env=None, out=True, timeout=600, cwd=None):
        counter[0] += 1
        out_dir = tmp_path / f"out{counter[0]}"
        argv = [str(JITBENCH), *args]
        if out and args and args[0] == "run" and "--out-dir" not in args:
            argv += ["--out-dir", str(out_dir)]
        full_env = dict(os.environ, **(env or {}))
        proc = subprocess.run(argv, capture_output=True, text=True, env=full_env, timeout=timeout,
                              stdin=subprocess.DEVNULL, cwd=cwd)
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


def _proc_stat(busy, idle, steal=0, n_cpus=2):
    cpus = "".join(f"cpu{i} 1 0 0 1 0 0 0 0 0 0\n" for i in range(n_cpus))
    return f"cpu  {busy} 0 0 {idle} 0 0 0 {steal} 0 0\n{cpus}intr 0\nctxt 1\n"


def machine_samples(directory, kinds):
    """The /proc/stat snapshots jitbench reads instead of the machine's own
    (JITBENCH_TEST_MACHINE_SAMPLES, docs/noise.md): two per measured worker
    process, in the order they run. Each kind is "quiet" (nothing else ran),
    "hog" (1000 s of other CPU time: far above any idle capacity; graded
    contended), "steal" (500 s of steal time), "busy" (0.2 s of steal and
    0.6 s of busy time: graded busy for a process of 0.8-3.6 s, so run a
    worker that sleeps about 1 s, FAKE_WORKER_SLEEP) or None (no snapshot:
    not reported). Returns the env."""
    directory.mkdir(parents=True, exist_ok=True)
    for i, kind in enumerate(kinds):
        if kind is None:
            continue
        before, after = 2 * i, 2 * i + 1
        (directory / f"stat.{before}").write_text(_proc_stat(1000, 1000))
        (directory / f"loadavg.{before}").write_text("0.50 0.40 0.30 1/100 1\n")
        busy = 1000 + {"hog": 100_000, "busy": 60}.get(kind, 0)
        steal = {"steal": 50_000, "busy": 20}.get(kind, 0)
        (directory / f"stat.{after}").write_text(_proc_stat(busy, 1100, steal))
        (directory / f"loadavg.{after}").write_text("2.75 0.40 0.30 3/100 1\n")
    return {"JITBENCH_TEST_MACHINE_SAMPLES": str(directory)}


# A machine on which nothing else runs, for tests whose outcome would change
# with interference (an ahead-of-time cross-check that disagrees).
@pytest.fixture
def quiet_machine(tmp_path):
    return machine_samples(tmp_path / "quiet-machine", ["quiet"] * 200)


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


CHROMIUM = "/usr/bin/chromium"  # Debian's, installed by scripts/setup.sh --for-tests: Playwright downloads none


class BrowserPage:
    """A Playwright page that records every console error and uncaught exception."""

    def __init__(self, page):
        self.page, self.errors = page, []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))


@pytest.fixture(scope="session")
def _chromium():
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is installed by scripts/setup.sh --for-tests")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in requirements/test.txt")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield browser
        browser.close()


@pytest.fixture
def browser_page(_chromium):
    """A fresh page in headless Chromium (Playwright driving Debian's executable)."""
    context = _chromium.new_context(viewport={"width": 1250, "height": 1000})
    yield BrowserPage(context.new_page())
    context.close()
