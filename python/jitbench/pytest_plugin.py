"""pytest plugin (entry point pytest11): a `jitbench` fixture whose
measure() is jitbench.measure(), every measurement's out dir under one
session dir, and options to keep a session and gate a later one on it:

    def test_step(jitbench):
        r = jitbench.measure(train_step, inputs=make_batch)
        assert r.status == "ok" and r.n_star != "never"   # N*: whole calls, or "never"

    pytest --jitbench-save main                  # keeps the session in <rootdir>/.jitbench/main
    pytest --jitbench-compare main --jitbench-fail-on-regression 10
    pytest --jitbench-count instructions ...     # every measurement also counts instructions per phase

A measurement is matched with the saved one of the same test and name (the
target's name, or name=...) and compared right after it is made, inside the
test: `jitbench compare SAVED NEW [--fail-on-regression PCT]`, its
Mann-Whitney tests and ratio intervals, each side's interference grade
(quiet / busy / contended, with the CPUs others took) and its gate. A
measurement that regressed significantly by more than PCT %, got a worse
status or lost a case fails the test that measured it (the test's report
holds the rows that failed it), and so does one that could not be compared;
a measurement the saved session lacks is reported and passes. The terminal
summary shows per measurement the table of the numbers judged (metric, base,
new, ratio [95% CI], grade B, N, verdict, gate) and which metric decided.

With --jitbench-fail-on-regression the gate re-measures before failing
(--jitbench-remeasure, the default): a row that would fail while either
side's machine was not quiet is measured again, the saved code and the new
interleaved, into a directory beside the new measurement, and fails only if
that confirms it; where the saved code cannot be measured again, compare says
why and judges the rows as measured. --no-jitbench-remeasure judges them as
measured (compare --no-remeasure). With --jitbench-count instructions each
measurement also counts its phases' instructions (`--count instructions`),
and the comparison judges those too: a count is judged by its counting
processes' spread (no test), so two processes a side decide where four are
the least a time needs, and a loaded CI runner moves it far less than a time
(docs/noise.md). Where GITHUB_STEP_SUMMARY names a file (GitHub Actions' job
summary), the table and the verdict are appended to it in Markdown; an
unwritable file is a warning. docs/ci.md has a complete workflow."""

import json
import math
import os
import pathlib
import re

import pytest

from . import _door, _gate, api
from ._binary import JitbenchError
from ._refs import resolve

SAVE_DIR = ".jitbench"  # saved sessions: <rootdir>/.jitbench/NAME
MANIFEST = "jitbench-session.json"  # in a session dir: each measurement's test, name and out dir
_STATE = pytest.StashKey()


def _measure(**kwargs):
    """The one way the fixture measures a function (jitbench.measure)."""
    return api.measure(**kwargs)


def pytest_addoption(parser):
    group = parser.getgroup("jitbench", "jitbench: JIT costs measured in fresh processes")
    group.addoption("--jitbench-save", metavar="NAME",
                    help=f"keep this session's measurements in <rootdir>/{SAVE_DIR}/NAME (replacing an earlier one)")
    group.addoption("--jitbench-compare", metavar="NAME|PATH",
                    help=f"compare each measurement with the saved one of the same test and name ({SAVE_DIR}/NAME, "
                         "or a saved session's directory) with `jitbench compare`")
    group.addoption("--jitbench-count", metavar="WHAT", choices=["instructions", "instructions:valgrind",
                                                                   "instructions:hardware"],
                    help="every measurement also counts its phases' instructions in processes of their own "
                         "(jitbench --count WHAT), which the comparison then judges beside the times")
    group.addoption("--jitbench-fail-on-regression", metavar="PCT", type=float,
                    help="with --jitbench-compare: fail the test whose measurement is significantly worse by "
                         "more than PCT %% (as `jitbench compare --fail-on-regression PCT`)")
    group.addoption("--jitbench-remeasure", dest="jitbench_remeasure", action="store_true", default=None,
                    help="with --jitbench-fail-on-regression (the default there): a measurement that would fail "
                         "while either side's machine was not quiet is measured again, BASE and NEW interleaved, "
                         "and fails only if that confirms it")
    group.addoption("--no-jitbench-remeasure", dest="jitbench_remeasure", action="store_false",
                    help="judge the measurements as they are (compare --no-remeasure)")


def _under_xdist(config):
    """Whether this session is split across pytest-xdist workers (the controller with -n N, or a worker)."""
    if hasattr(config, "workerinput"):
        return True
    n = config.getoption("numprocesses", None) if config.pluginmanager.hasplugin("xdist") else None
    return bool(n) and n != 0


def pytest_configure(config):
    config.stash[_STATE] = _Session(config)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A measurement the gate failed fails the test that measured it: its
    report carries the regressed rows (and a test that failed anyway gets
    them as a section of its report)."""
    outcome = yield
    state = item.config.stash.get(_STATE, None)
    report = outcome.get_result()
    if state is None or report.when == "setup":
        return
    failures = state.take_failures(item.nodeid)
    if not failures:
        return
    text = "\n\n".join(failures)
    if report.failed:
        report.sections.append(("jitbench gate", text))
    else:
        report.outcome, report.longrepr = "failed", text


def pytest_sessionfinish(session):
    state = session.config.stash.get(_STATE, None)
    if state is not None and state.finish() and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, config):
    state = config.stash.get(_STATE, None)
    if state is not None and state.lines:
        terminalreporter.write_sep("=", "jitbench")
        for line in state.lines:
            terminalreporter.write_line(line)


@pytest.fixture
def jitbench(request, tmp_path_factory):
    """measure(...) as jitbench.measure (run_workload(...) as jitbench.run_workload),
    its out dir in this session's run dir."""
    return JitbenchFixture(request.config.stash[_STATE], request.node.nodeid, tmp_path_factory)


class JitbenchFixture:
    def __init__(self, state, nodeid, tmp_path_factory):
        self._state, self._nodeid, self._factory = state, nodeid, tmp_path_factory

    def measure(self, fn_or_target, inputs=None, check=None, cold_runs=None, warm_runs=None, envs=None,
                cache_policy=None, out_dir=None, backends=None, quiet=True, extra_args=(), name=None, count=None):
        label = name or resolve(fn_or_target, "target").text.rpartition(":")[2]
        kwargs = dict(fn_or_target=fn_or_target, inputs=inputs, check=check, cold_runs=cold_runs,
                      warm_runs=warm_runs, envs=envs, cache_policy=cache_policy, backends=backends, quiet=quiet,
                      extra_args=extra_args, name=name, count=count or self._state.count)
        return self._measured(label, out_dir, lambda out: _measure(out_dir=out, **kwargs))

    def run_workload(self, path, cases=None, backends=None, cold_runs=None, warm_runs=None, envs=None,
                     cache_policy=None, out_dir=None, quiet=True, extra_args=(), name=None, count=None):
        label = name or pathlib.Path(path).stem
        kwargs = dict(path=path, cases=cases, backends=backends, cold_runs=cold_runs, warm_runs=warm_runs,
                      envs=envs, cache_policy=cache_policy, quiet=quiet, extra_args=extra_args,
                      count=count or self._state.count)
        return self._measured(label, out_dir, lambda out: api.run_workload(out_dir=out, **kwargs))

    def _measured(self, label, out_dir, run):
        key, out = self._state.allocate(self._nodeid, label, out_dir, self._factory)
        result = run(out)
        self._state.record(key, self._nodeid, label, out, result)
        return result


def _read_manifest(manifest, value):
    """A saved session's measurements (key -> out dir), checked as the plugin
    writes them; anything else is a usage error naming the file, never a traceback."""
    def refuse(why):
        raise pytest.UsageError(f"--jitbench-compare {value}: {manifest} is not a saved session's manifest ({why}): "
                                "save the session again with --jitbench-save NAME")
    try:
        doc = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        refuse(f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else 'unreadable'}")
    entries = doc.get("measurements") if isinstance(doc, dict) else None
    if not isinstance(entries, list):
        refuse("no list of measurements")
    out = {}
    for e in entries:
        if not (isinstance(e, dict) and isinstance(e.get("key"), str) and isinstance(e.get("dir"), str) and e["dir"]):
            refuse(f"a measurement without a key and a dir: {str(e)[:80]}")
        out[e["key"]] = manifest.parent / e["dir"]
    return out


class _Session:
    """One pytest session's measurements: where they go, what they are
    compared with, and what is kept at the end."""

    def __init__(self, config):
        opt = config.getoption
        self.rootdir = pathlib.Path(config.rootpath)
        self.save_name = opt("--jitbench-save")
        self.fail_pct = opt("--jitbench-fail-on-regression")
        self.count = opt("--jitbench-count")
        self.remeasure = opt("jitbench_remeasure")  # None: compare's default (on with a threshold)
        compare = opt("--jitbench-compare")
        if self.save_name is not None and not re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]*", self.save_name):
            raise pytest.UsageError(f"--jitbench-save {self.save_name!r}: a name of letters, digits, '.', '_', '-', "
                                    "starting with a letter, a digit, '_' or '-'")
        if self.fail_pct is not None and (compare is None or not self.fail_pct > 0 or math.isinf(self.fail_pct)):
            raise pytest.UsageError("--jitbench-fail-on-regression PCT needs --jitbench-compare and a finite PCT > 0 "
                                    "(as `jitbench compare --fail-on-regression`)")
        if (self.save_name is not None or compare is not None) and _under_xdist(config):
            raise pytest.UsageError("--jitbench-save / --jitbench-compare cannot run under pytest-xdist (-n): each "
                                    "worker would keep and judge only its own measurements; run the jitbench tests "
                                    "without -n (e.g. `pytest -p no:xdist` or `-n 0`)")
        if self.remeasure is not None and self.fail_pct is None:
            raise pytest.UsageError("--jitbench-remeasure / --no-jitbench-remeasure choose what the gate does: give "
                                    "--jitbench-fail-on-regression PCT too")
        self.saved_dir, self.saved = (self._saved_session(compare) if compare else (None, {}))
        self.dir = None
        self.dir_rel = "."  # self.dir below self.dir_root, where the door walks without following a link
        self.dir_root = None
        self.entries = []
        self.lines = []
        self.failed = []  # the tests whose measurements failed the gate
        self.compared = []  # (key, Comparison, or why it could not be compared) in the order measured
        self.pending = {}  # nodeid -> the gate's failures not yet put on that test's report
        self.results = []  # (key, Result) in the order measured

    def _saved_session(self, value):
        path = pathlib.Path(value)
        if os.sep not in value and "/" not in value and not path.is_dir():
            path = self.rootdir / SAVE_DIR / value
        manifest = path / MANIFEST
        if not manifest.is_file():
            raise pytest.UsageError(f"--jitbench-compare {value}: no saved session at {path} (make one with "
                                    "--jitbench-save NAME)")
        return path, _read_manifest(manifest, value)

    def _session_dir(self, factory):
        if self.dir is None:
            if self.save_name:  # measured in place, renamed to NAME at the end
                self.dir_root, self.dir_rel = self.rootdir, f"{SAVE_DIR}/.{self.save_name}.partial-{os.getpid()}"
                _door.remove(self.dir_root, self.dir_rel)
                _door.make_dir(self.dir_root, self.dir_rel)
                self.dir = self.rootdir / self.dir_rel
            else:
                self.dir = self.dir_root = factory.mktemp("jitbench-session")
        return self.dir

    def allocate(self, nodeid, label, out_dir, factory):
        key = f"{nodeid}::{label}"
        used = {e["key"] for e in self.entries}
        n = 2
        while key in used:
            key, n = f"{nodeid}::{label}#{n}", n + 1
        session_dir = self._session_dir(factory)
        if out_dir is not None:  # the caller's choice, recorded by its absolute path
            return key, pathlib.Path(out_dir).resolve()
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{nodeid}-{label}")[-100:]
        return key, session_dir / f"{len(self.entries):03d}-{slug}"

    def record(self, key, nodeid, label, out, result=None):
        self.results.append((key, result))
        inside = out.parent == self.dir
        self.entries.append({"key": key, "nodeid": nodeid, "name": label, "dir": out.name if inside else str(out)})
        _door.write_file(self.dir_root, f"{self.dir_rel}/{MANIFEST}",
                         json.dumps({"measurements": self.entries}, indent=1) + "\n")
        if self.saved_dir is not None:
            self._compare(key, nodeid, out)

    def _compare(self, key, nodeid, out):
        saved = self.saved.get(key)
        if saved is None:
            self.lines.append(f"{key}: no saved measurement in {self.saved_dir} (not compared)")
            return
        try:
            cmp = api.compare(saved, out, fail_on_regression=self.fail_pct,
                              remeasure=False if self.remeasure is False else None)
        except JitbenchError as exc:
            why = f"not compared with {saved}: {exc}"
            self.compared.append((key, why))
            self.lines.append(f"{key}: {why}")
            self._fail(nodeid, f"jitbench: {key} {why}")
            return
        self.compared.append((key, cmp))
        self.lines += _gate.describe(key, cmp, self.fail_pct, self.remeasure)
        if cmp.regressed:
            self._fail(nodeid, "\n".join(_gate.failure(key, cmp, self.fail_pct)))

    def _fail(self, nodeid, text):
        """The gate failed on a measurement of this test: the test's report says so (pytest_runtest_makereport)."""
        self.failed.append(nodeid)
        self.pending.setdefault(nodeid, []).append(text)

    def take_failures(self, nodeid):
        return self.pending.pop(nodeid, [])

    def finish(self):
        """Keeps the session (--jitbench-save), appends the verdict to the job
        summary; True when the session must fail."""
        head = []
        if self.dir is not None:
            head.append(f"{len(self.entries)} measurement(s) in {self._keep()}")
        if self.saved_dir is not None:
            head.append(_gate.heading(self.saved_dir, self.fail_pct, self.remeasure))
        self.lines[:0] = head
        unreported = sorted(self.pending)  # measured where no test report could carry it
        if unreported:
            self.lines.append("jitbench: the session fails: the gate failed on measurements of "
                              + ", ".join(unreported))
        elif self.failed:
            self.lines.append("jitbench: the gate failed the test(s) "
                              + ", ".join(dict.fromkeys(self.failed)) + " (their reports show the rows)")
        summary = None
        if self.saved_dir is not None:
            summary = _gate.markdown(self.saved_dir, self.fail_pct, self.compared)
        elif self.save_name and self.results:  # what was saved, for the record
            summary = _gate.markdown_saved(self.save_name, self.results)
        warning = _gate.append_step_summary(summary) if summary else None
        if warning:
            self.lines.append(warning)
        return bool(unreported)

    def _keep(self):
        if not self.save_name:
            return self.dir
        target = self.rootdir / SAVE_DIR / self.save_name
        if target.resolve().parent != (self.rootdir / SAVE_DIR).resolve():
            return f"{self.dir} (not saved: {target} is not a directory of {self.rootdir / SAVE_DIR})"
        old = None
        rel = f"{SAVE_DIR}/{self.save_name}"
        if target.exists() or _door.is_link(self.rootdir, rel):
            # Only a session this plugin saved is replaced; anything else there is the user's, and stays.
            if _door.is_link(self.rootdir, rel) or not (target / MANIFEST).is_file():
                return f"{self.dir} (not saved: {target} holds something that is not a saved session; move it)"
            old = f"{SAVE_DIR}/.{self.save_name}.replaced-{os.getpid()}"
            _door.rename(self.rootdir, rel, old)
        _door.rename(self.rootdir, self.dir_rel, rel)
        if old is not None:
            _door.remove(self.rootdir, old)
        self.dir, self.dir_rel = target, rel
        return f"{target} (saved as {self.save_name})"
