"""docs/ci.md's GitHub Actions workflow, run here as far as it can be: its
steps read out of the page and run in order on a local git repository whose
tests are the page's own test file, measuring a tiny NumPy function. A push to
main measures and saves; a pull request whose function does far more work is
compared in a fresh checkout, after the saved session came back through the
"cache": its compare step fails, the test that measured the function is the
one reported failed (never "1 passed" and exit 1), and the file
GITHUB_STEP_SUMMARY names receives the table.

What cannot run here is stood in for, and checked to say what it should:
`uses:` steps (checkout: a `git clone`; the cache: `path:` copied out and back
under its key; the upload: its path must hold both sessions) and the install
step (jitbench, pytest and NumPy are this environment's; the wheel's install is
tests/test_pip_install.py's). No hardware counter opens on this machine, so the
counts come from jitbench's test counter (JITBENCH_TEST_FAKE_PMU=1: the
thread's CPU time) instead of valgrind."""

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import JITBENCH, ROOT, machine_samples

pytestmark = pytest.mark.quick

DOC = ROOT / "docs" / "ci.md"

KERNELS_MAIN = """import numpy as np


def smooth(x):
    return np.convolve(x, np.ones(5) / 5, mode="same")
"""

# The pull request: one element at a time, in Python: far more work per call.
KERNELS_PR = """import numpy as np


def smooth(x):
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = x[max(i - 2, 0):i + 3].sum() / 5
    return out
"""


def blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), re.S)


def workflow():
    (text,) = [b for b in blocks("yaml") if b.startswith("# .github/workflows/")]
    doc = yaml.safe_load(text)
    (job,) = doc["jobs"].values()
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"push", "pull_request"}, triggers
    return job["steps"]


def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=ci", "-c", "user.email=ci@example.invalid", *args], cwd=cwd, check=True,
                   capture_output=True, text=True)


def origin(tmp_path):
    """The repository: main with the fast function, pr with the slow one; returns their commits."""
    repo = tmp_path / "origin"
    (test_file,) = [b for b in blocks("python") if b.startswith("# tests/perf/test_jit_costs.py")]
    files = {"mylib/__init__.py": "", "mylib/kernels.py": KERNELS_MAIN, "tests/perf/test_jit_costs.py": test_file,
             "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["."]\n', ".gitignore": ".jitbench/\n"}
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "main")
    git(repo, "checkout", "-q", "-b", "pr")
    (repo / "mylib" / "kernels.py").write_text(KERNELS_PR)
    git(repo, "commit", "-q", "-am", "pr: smooth one element at a time")
    sha = {b: subprocess.run(["git", "rev-parse", b], cwd=repo, capture_output=True, text=True).stdout.strip()
           for b in ("main", "pr")}
    return repo, sha


class Runner:
    """One job of the workflow on this machine: GitHub's step semantics (a
    failed step skips the rest but `if: always()`), its expressions as far as
    the workflow uses them, the `uses:` actions stood in for."""

    def __init__(self, tmp_path, cache, context, extra_env=None):
        self.work = tmp_path / "runner" / "work" / "repo"  # the same path each job, as on a runner
        self.cache, self.context, self.extra_env = cache, context, dict(extra_env or {})
        self.summary = tmp_path / f"step_summary_{context['event_name']}.md"
        self.log, self.failed, self.uploaded = [], False, []

    def expression(self, text):
        known = {"github.sha": self.context["sha"],
                 "github.event.pull_request.base.sha": self.context.get("base_sha", "")}

        def value(m):
            assert m.group(1) in known, f"docs/ci.md uses ${{{{ {m.group(1)} }}}}, which this test does not know"
            return known[m.group(1)]
        return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", value, text) if isinstance(text, str) else text

    def should_run(self, step):
        cond = step.get("if")
        if cond is None:
            return not self.failed
        if cond == "always()":
            return True
        m = re.fullmatch(r"github\.event_name == '(\w+)'", cond)
        assert m, f"docs/ci.md: a condition this test does not know: {cond}"
        return not self.failed and m.group(1) == self.context["event_name"]

    def env(self):
        outer = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GITHUB_"))}  # this run's own
        env = dict(outer, GITHUB_STEP_SUMMARY=str(self.summary), GITHUB_EVENT_NAME=self.context["event_name"],
                   GITHUB_SHA=self.context["sha"], CI="true", JITBENCH_BIN=str(JITBENCH), JITBENCH_TEST_FAKE_PMU="1",
                   PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))
        installed = any(ep.value == "jitbench.pytest_plugin"
                        for ep in importlib.metadata.entry_points(group="pytest11"))
        if not installed:  # the wheel declares the plugin; an uninstalled source tree is loaded by name
            env["PYTEST_ADDOPTS"] = "-p jitbench.pytest_plugin"
        env.pop("PYTHONPATH", None)
        env.update(self.extra_env)
        return env

    def run(self, steps):
        for step in steps:
            if not self.should_run(step):
                self.log.append((step.get("name") or step.get("uses"), "skipped", ""))
                continue
            if "uses" in step:
                self.uses(step["uses"].split("@")[0], {k: self.expression(v) for k, v in step.get("with", {}).items()})
                self.log.append((step.get("name") or step["uses"], "stood in for", ""))
                continue
            script = step["run"]
            if "pip install" in script:
                # The install step: what it installs is already here (the test says what it must name).
                assert "--find-links ci/wheels jitbench" in script and "valgrind" in script, script
                self.log.append((step["name"], "stood in for", ""))
                continue
            proc = subprocess.run(["bash", "-e", "-c", script], cwd=self.work, env=self.env(), capture_output=True,
                                  text=True, timeout=900, stdin=subprocess.DEVNULL)
            self.log.append((step["name"], proc.returncode, proc.stdout + proc.stderr))
            self.failed |= proc.returncode != 0

    def uses(self, action, args):
        if action == "actions/checkout":
            if self.work.exists():
                shutil.rmtree(self.work)
            self.work.parent.mkdir(parents=True, exist_ok=True)
            git(self.work.parent, "clone", "-q", str(self.context["origin"]), str(self.work))
            git(self.work, "checkout", "-q", self.context["sha"])
        elif action == "actions/setup-python":
            assert sys.version_info[:2] >= (3, 11)
        elif action == "actions/cache/save":
            shutil.copytree(self.work / args["path"], self.cache / args["key"] / args["path"])
        elif action == "actions/cache/restore":
            hits = [self.cache / args["key"]] + sorted(self.cache.glob(args.get("restore-keys", "\0") + "*"))
            hit = next((h for h in hits if h.is_dir()), None)
            if hit is not None:
                shutil.copytree(hit / args["path"], self.work / args["path"])
        elif action == "actions/upload-artifact":
            assert args.get("include-hidden-files") is True, "upload-artifact leaves .jitbench/ out without it"
            self.uploaded.append(self.work / args["path"])
        else:
            raise AssertionError(f"docs/ci.md uses {action}, which this test does not stand in for")

    def output(self, name):
        (said,) = [out for step, _, out in self.log if step == name]
        return said


def test_the_workflow_of_docs_ci_md_gates_a_pull_request_that_regressed(tmp_path):
    steps = workflow()
    repo, sha = origin(tmp_path)
    cache = tmp_path / "actions-cache"
    main = Runner(tmp_path, cache, {"event_name": "push", "sha": sha["main"], "origin": repo})
    main.run(steps)
    ran = {name: rc for name, rc, _ in main.log}
    assert ran["Measure main and save it"] == 0, main.output("Measure main and save it")[-3000:]
    assert ran["Compare the pull request with main"] == "skipped"
    assert (cache / f"jitbench-main-{sha['main']}" / ".jitbench" / "main" / "jitbench-session.json").is_file()
    assert not main.failed
    assert "### jitbench: measurements saved as `main`" in main.summary.read_text()  # the times, for the record
    assert "| tests/perf/test_jit_costs.py::test_smooth::smooth |" in main.summary.read_text()

    # A shared runner: the pull request's job measured beside others (every process contended), so its time rows
    # need measuring again, which main's changed module does not allow: the counts decide, whatever this machine did.
    busy = machine_samples(tmp_path / "pr-machine", ["hog"] * 400)
    pr = Runner(tmp_path, cache, {"event_name": "pull_request", "sha": sha["pr"], "base_sha": sha["main"],
                                  "origin": repo}, extra_env=busy)
    pr.run(steps)
    out = pr.output("Compare the pull request with main")
    ran = {name: rc for name, rc, _ in pr.log}
    assert ran["Measure main and save it"] == "skipped" and ran["Restore main's measurements"] == "stood in for"
    assert ran["Compare the pull request with main"] == 1, out[-3000:]
    # The test that measured the regressed function failed, with its rows; not "1 passed" and exit 1.
    assert re.search(r"\b1 failed\b", out) and not re.search(r"\b1 passed\b", out), out[-3000:]
    assert "FAILED tests/perf/test_jit_costs.py::test_smooth" in out, out[-3000:]
    assert "gate: REGRESSED beyond 10%, decided by" in out, out[-3000:]
    assert re.search(r"case\s+metric\s+base\s+new\s+ratio \[95% CI\]\s+grade B, N\s+verdict\s+gate", out)
    assert re.search(r"decided by [^\n]*instructions_\w+ \(instruction count\) more instructions", out), out[-3000:]
    # The pull request changed the function's module: main's code is not there to measure again, said so; the
    # counts decide (docs/ci.md).
    assert "cannot re-measure BASE: its target imports" in out and "mylib/kernels.py, which changed" in out
    # The job summary received the table, and the verdict.
    summary = pr.summary.read_text()
    assert "| test | case | metric | base | new | ratio [95% CI] | grade B, N | verdict | gate |" in summary
    assert "| tests/perf/test_jit_costs.py::test_smooth::smooth |" in summary
    assert "**The gate fails**: tests/perf/test_jit_costs.py::test_smooth::smooth" in summary, summary
    # always(): the record is kept, both sessions in it.
    assert ran["Keep the measurements (the times, for the record)"] == "stood in for"
    (uploaded,) = pr.uploaded
    assert (uploaded / "main" / "jitbench-session.json").is_file()
    assert (uploaded / "pr" / "jitbench-session.json").is_file()
