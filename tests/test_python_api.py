"""The Python API (python/jitbench) and its pytest plugin: references resolved
to what a fresh process imports (or refused), a run dir read back with the
numbers its artifacts hold, the HTML a notebook shows, where the binary is
found, and the plugin's session dir, save, compare and regression gate, run
through pytest's own pytester."""

import importlib
import importlib.metadata
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import textwrap
import tomllib

import pytest
from forge import rehash

from conftest import JITBENCH, ROOT, machine_samples

sys.path.insert(0, str(ROOT / "python"))  # this tree's package, whatever .venv has installed
import jitbench as jb  # noqa: E402
from jitbench import _binary, _refs  # noqa: E402

pytestmark = pytest.mark.quick

pytest_plugins = ["pytester"]

GOLDEN = ROOT / "tests" / "data" / "golden" / "expected"
EXAMPLE = ROOT / "examples" / "workloads" / "softmax_rows.py"
CASE = "numpy_softmax_rows_128_f32"

USER_MODULE = """
import jax
import numba


def plain(x):
    return x + 1


def _raw(x):
    return x * 2


fast = jax.jit(_raw)


@jax.jit
def decorated(x):
    return x - 1


@numba.njit
def nb(x):
    return x * 3


def make_inputs():
    return (1.0,)


def make_closure():
    y = 1

    def inner(x):
        return x + y

    return inner


square = lambda x: x * x  # noqa: E731
"""


@pytest.fixture(scope="module")
def usermod(tmp_path_factory):
    root = tmp_path_factory.mktemp("usermod")
    (root / "jb_usermod.py").write_text(USER_MODULE)
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module("jb_usermod"), root
    finally:
        sys.path.remove(str(root))
        sys.modules.pop("jb_usermod", None)


# --- references -------------------------------------------------------------

@pytest.mark.heavy("jax, numba")
def test_module_functions_resolve_to_module_and_name(usermod):
    mod, root = usermod
    assert jb.resolve(mod.plain) == ("jb_usermod:plain", str(root))
    assert jb.resolve(mod.make_inputs).text == "jb_usermod:make_inputs"


@pytest.mark.heavy("jax, numba")
def test_jitted_objects_resolve_to_the_users_module_level_name(usermod):
    mod, _ = usermod
    assert jb.resolve(mod.decorated).text == "jb_usermod:decorated"
    assert jb.resolve(mod.nb).text == "jb_usermod:nb"
    # fast = jax.jit(_raw): the jitted object's name, never the plain function under it.
    assert jb.resolve(mod.fast).text == "jb_usermod:fast"
    assert _refs.unwrap(mod.fast) is mod._raw and _refs.unwrap(mod.nb) is mod.nb.py_func


@pytest.mark.heavy("jax, numba")
def test_a_wrapper_made_on_the_spot_is_refused(usermod):
    import jax

    mod, _ = usermod
    with pytest.raises(ValueError, match="no module-level object") as err:
        jb.resolve(jax.jit(mod.plain))
    assert "\n" not in str(err.value)


@pytest.mark.heavy("jax, numba")
def test_lambda_and_closure_are_refused_with_one_line(usermod):
    mod, _ = usermod
    with pytest.raises(ValueError, match="a lambda cannot be imported by a fresh process") as err:
        jb.resolve(mod.square)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="make_closure.<locals>.inner is defined inside a function") as err:
        jb.resolve(mod.make_closure())
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="lambda"):
        jb.measure(lambda x: x)  # refused before any process starts


def _python(code, *args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    return subprocess.run([sys.executable, *args] if args else [sys.executable, "-c", code], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)


@pytest.mark.heavy("numba")
def test_a_scripts_function_resolves_to_its_file(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import numba
        import jitbench

        @numba.njit
        def step(x):
            return x + 1

        def make_batch():
            return (1.0,)

        print(jitbench.resolve(step).text)
        print(jitbench.resolve(make_batch).text)
    """))
    proc = _python(None, str(script), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [f"{script}:step", f"{script}:make_batch"]
    # No file behind __main__ (python -c, a notebook): nothing a fresh process can import.
    proc = _python("import jitbench\ndef f(): pass\n"
                   "try:\n    jitbench.resolve(f)\nexcept ValueError as e:\n    print(e)")
    assert "interactive session (__main__ has no file)" in proc.stdout, proc.stdout + proc.stderr


def test_strings_are_checked_for_their_form(tmp_path):
    assert jb.resolve("pkg.mod:fn").text == "pkg.mod:fn"
    script = tmp_path / "m.py"
    script.write_text("def f(): pass\n")
    assert jb.resolve(f"{script}:f").text == f"{script}:f"
    for bad, why in [("fn", "is not"), ("pkg mod:fn", "neither a module name"), (f"{tmp_path}/no.py:f", "not exist"),
                     ("pkg.mod:1x", "is not")]:
        with pytest.raises(ValueError, match=why):
            jb.resolve(bad)


# --- Result from a run dir ---------------------------------------------------

def test_result_holds_the_numbers_of_the_golden_run():
    r = jb.load(GOLDEN)
    analysis = json.loads((GOLDEN / "analysis.json").read_text())
    index = json.loads((GOLDEN / "index.json").read_text())
    assert [c.name for c in r.cases] == [e["case"] for e in index["cases"]]
    by_case = {c["case"]: c for c in analysis["cases"]}
    break_even = {b["jit_case"]: b for b in analysis["break_even"]}
    for case, entry in zip(r.cases, index["cases"]):
        doc = json.loads((GOLDEN / entry["path"]).read_text())
        assert case.status == doc["status"] == entry["status"] and case.reason == doc["reason"]
        ok_runs = [x for x in doc["cold"]["runs"] if x["status"] == "ok"]
        for metric, key in [(case.ttfr, "ttfr_s"), (case.import_, "import_s"), (case.first_call, "first_call_s")]:
            summary = doc["cold"]["summary"][key] or {"median": None, "n": 0}  # null: no ok run
            assert metric.median == summary["median"]
            assert metric.samples == [x[key] for x in ok_runs] and len(metric.samples) == summary["n"]
            # summary.md's interval rule: a 95% interval from 6 processes or more, else the range (2 here).
            assert metric.ci is None and metric.n == summary["n"]
            assert metric.range == ((min(metric.samples), max(metric.samples)) if metric.samples else None)
        assert case.ttfr.median == entry["cold_ttfr_median_s"]
        assert case.warm_call.median == entry["warm_call_median_s"] == (doc["warm"]["summary"] or {}).get("median")
        # Its samples are the warm processes' medians (calls within one process are not independent).
        assert case.warm_call.samples == (doc["warm"].get("process_medians_s") or [])
        assert case.warm_calls == [len(x["calls_s"] or []) for x in doc["warm"].get("runs") or []]
        sums = [x["first_call_breakdown"]["sum_phases_s"] for x in ok_runs
                if (x["first_call_breakdown"] or {}).get("phases")]
        assert case.compile.samples == sums and case.compile.median == (statistics.median(sums) if sums else None)
        if case.name in by_case:
            fc = by_case[case.name]["first_call"]
            assert case.phases == {**fc["phases_median_s"], "unattributed": fc["unattributed_median_s"]}
        row = break_even.get(case.name)
        # N*: whole calls, the first included, or "never" -- one number or one word.
        assert case.n_star == (None if row is None else row["calls"] if row["verdict"] == "calls" else "never")
        assert case.n_star is None or case.n_star == "never" or (isinstance(case.n_star, int) and case.n_star >= 1)
        assert (case.n_star_reason is None) == (row is not None and row["calls"] is not None)
    # The top level is the first JIT case; its N* is that of analysis.json.
    assert r.case.name == "numba_matmul_512_f32" and r.n_star == break_even["numba_matmul_512_f32"]["calls"]
    assert r.ttfr is r.case.ttfr and r.status == "ok" and r.compile.median > 0
    never = next(c for c in r.cases if c.name == "numba_retrace_raw_4096_f32")
    assert never.n_star == "never" and never.n_star_reason.startswith("never")
    gpu = next(c for c in r.cases if c.name == "jax_jit_gpu_matmul_512_f32")
    assert gpu.ttfr.median is None and gpu.ttfr.ci is None and "gpu_unavailable" in gpu.n_star_reason


def test_the_top_level_is_the_first_jit_case(tmp_path):
    # python_mc_pi (no JIT, no eager baseline of anything) listed first: still not the top.
    run = shutil.copytree(GOLDEN, tmp_path / "run")
    index = json.loads((run / "index.json").read_text())
    index["cases"].sort(key=lambda e: e["case"] != "python_mc_pi_100000_f64")
    (run / "index.json").write_text(json.dumps(index))
    r = jb.load(run)
    assert r.cases[0].name == "python_mc_pi_100000_f64" and not r.cases[0].is_jit
    assert r.case.name == "numba_matmul_512_f32"


def test_load_refuses_a_dir_that_is_no_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="no index.json"):
        jb.load(tmp_path)


def _forged(tmp_path, name, edit):
    """The golden run with one case file edited and re-hashed in the index, as a careful forger would."""

    run = shutil.copytree(GOLDEN, tmp_path / name)
    rel = "cases/numpy_matmul_512_f32.json"
    doc = json.loads((run / rel).read_text())
    edit(doc)
    (run / rel).write_text(json.dumps(doc, indent=2) + "\n")
    rehash(run, rel)
    return run


@pytest.mark.parametrize("edit", [
    lambda d: d["cold"].__setitem__("runs", "x"),   # an AttributeError traceback before
    lambda d: d.__setitem__("status", 5),            # loaded before
    lambda d: d.pop("cold"),                          # loaded as ok with n = 0 before
    # load()'s samples took a run's ttfr_s, which no reader checked against the run's own phases
    lambda d: d["cold"]["runs"][0].__setitem__("ttfr_s", d["cold"]["runs"][0]["ttfr_s"] / 2),
], ids=["runs_not_a_list", "status_a_number", "cold_block_gone", "a_runs_ttfr_halved"])
def test_load_refuses_what_validate_refuses_in_one_line(tmp_path, edit):
    # Issue 49, defect 7: jitbench.load() (and the notebook view) read a tampered run without the CLI's checks.
    run = _forged(tmp_path, "forged", edit)
    assert subprocess.run([str(JITBENCH), "validate", str(run)], capture_output=True).returncode == 1
    with pytest.raises(jb.InvalidRun) as refused:
        jb.load(run)
    assert "\n" not in str(refused.value) and "cases/numpy_matmul_512_f32.json" in str(refused.value)


def test_html_shows_status_ttfr_and_the_phase_figure(monkeypatch, tmp_path):
    r = jb.load(GOLDEN)
    page = r._repr_html_()
    # 2 processes: the range, as summary.md shows it (no 95% interval under 6); N* in whole calls, the first included.
    assert "<td>numba_matmul_512_f32</td><td>ok</td><td>2.323 s (n = 2, range 2.084 s – 2.563 s)</td>" in page
    assert "warn: gpu_unavailable" in page and "<td>19058 against numpy_matmul_512_f32</td>" in page
    assert "<svg" in page and "typing_lowering" in page  # the figure, drawn by the report's figures package
    # Without the figures package: the table, and one line saying why.
    monkeypatch.setenv("JITBENCH_FIGURES_DIR", str(tmp_path))
    page = jb.load(GOLDEN)._repr_html_()
    assert "<svg" not in page and "2.323 s" in page
    assert f"figure not drawn: the figures package is not at {tmp_path}" in page


# --- the binary ------------------------------------------------------------

def _executable(path, text="#!/bin/sh\nexit 0\n"):
    path.write_text(text)
    path.chmod(0o755)
    return path


def test_binary_discovery_order(monkeypatch, tmp_path):
    env_bin = _executable(tmp_path / "env-jitbench")
    (tmp_path / "path").mkdir()
    path_bin = _executable(tmp_path / "path" / "jitbench")
    source_bin = _executable(tmp_path / "source-jitbench")
    monkeypatch.setattr(_binary, "SOURCE_BUILD", source_bin)
    monkeypatch.setenv("JITBENCH_BIN", str(env_bin))
    monkeypatch.setenv("PATH", str(tmp_path / "path"))
    assert jb.find_binary() == str(env_bin)
    monkeypatch.delenv("JITBENCH_BIN")
    assert jb.find_binary() == str(path_bin)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `jitbench` there
    assert jb.find_binary() == str(source_bin)
    monkeypatch.setattr(_binary, "SOURCE_BUILD", tmp_path / "absent")
    with pytest.raises(jb.JitbenchError, match="no jitbench binary: set JITBENCH_BIN"):
        jb.find_binary()
    monkeypatch.setenv("JITBENCH_BIN", str(tmp_path / "nothing"))
    with pytest.raises(jb.JitbenchError, match="is not an executable file"):
        jb.find_binary()


FAKE_BIN = """#!{python}
# A stand-in for `jitbench measure`: records its command line and PYTHONPATH,
# then writes a real run's artifacts (the golden run) as its out dir.
import json, os, shutil, sys
args = sys.argv[1:]
if args[:1] == ["validate"]:  # jitbench.load() checks what it reads with the real binary's validate
    os.execv({real!r}, [{real!r}, *args])
with open(os.environ["FAKE_JITBENCH_LOG"], "a") as f:
    f.write(json.dumps({{"argv": args, "pythonpath": os.environ.get("PYTHONPATH", "")}}) + "\\n")
if os.environ.get("FAKE_JITBENCH_REFUSE"):
    sys.exit("jitbench measure: no function 'nope' in module 'jb_usermod'")
shutil.copytree({golden!r}, args[args.index("--out-dir") + 1], dirs_exist_ok=True)
"""


@pytest.fixture
def fake_bin(tmp_path, monkeypatch):
    log = tmp_path / "fake.log"
    _executable(tmp_path / "fake-jitbench", FAKE_BIN.format(python=sys.executable, golden=str(GOLDEN),
                                                            real=str(JITBENCH)))
    monkeypatch.setenv("JITBENCH_BIN", str(tmp_path / "fake-jitbench"))
    monkeypatch.setenv("FAKE_JITBENCH_LOG", str(log))
    return lambda: [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.heavy("jax, numba")
def test_measure_passes_the_references_and_options(usermod, fake_bin, tmp_path):
    mod, root = usermod
    r = jb.measure(mod.fast, inputs=mod.make_inputs, check="jb_usermod:plain", cold_runs=3, warm_runs=2,
                   envs=["old:jax==0.4.26", "new:jax==0.10.2"], cache_policy=["cold_cache", "warm_cache"],
                   backends="jax_jit_cpu", out_dir=tmp_path / "m", extra_args=["--target-ci", "5"])
    (call,) = fake_bin()
    assert call["argv"] == ["measure", "jb_usermod:fast", "--inputs", "jb_usermod:make_inputs", "--check",
                            "jb_usermod:plain", "--cold-runs", "3", "--warm-runs", "2", "--cache-policy",
                            "cold_cache,warm_cache", "--backends", "jax_jit_cpu", "--env", "old:jax==0.4.26",
                            "--env", "new:jax==0.10.2", "--quiet", "--target-ci", "5", "--out-dir", str(tmp_path / "m")]
    assert call["pythonpath"].split(os.pathsep)[0] == str(root)  # the workers import jb_usermod from there
    assert r.out_dir == tmp_path / "m" and r.status == "ok" and r.returncode == 0


@pytest.mark.heavy("jax, numba")
def test_measure_says_why_jitbench_refused(usermod, fake_bin, monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_JITBENCH_REFUSE", "1")
    with pytest.raises(jb.JitbenchError, match="no function 'nope' in module 'jb_usermod'"):
        jb.measure("jb_usermod:nope", out_dir=tmp_path / "m")


@pytest.mark.heavy("jax")
def test_measure_end_to_end(tmp_path, monkeypatch):
    (tmp_path / "jb_e2e.py").write_text(textwrap.dedent("""
        import jax
        import numpy as np

        @jax.jit
        def step(x):
            return (x * 2.0).sum()

        def make_inputs():
            return (np.ones((64, 64), np.float32),)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    mod = importlib.import_module("jb_e2e")
    r = jb.measure(mod.step, inputs=mod.make_inputs, cold_runs=2, warm_runs=1, out_dir=tmp_path / "out")
    assert r.returncode == 0 and r.status == "ok", r.output
    assert len(r.cases) == 2 and r.case.is_jit and r.ttfr.median > 0 and r.compile.samples
    assert r.n_star is not None or r.n_star_reason


# --- real runs: run_workload and compare -------------------------------------

def _softmax(out_dir, cold=5, warm_runs=4):
    return jb.run_workload(EXAMPLE, cases="softmax_rows_128_f32", backends="numpy", cold_runs=cold,
                           warm_runs=warm_runs, out_dir=out_dir, extra_args=["--warm-iters", "10"])


def test_run_workload_and_compare(tmp_path, monkeypatch):
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    r = _softmax(tmp_path / "a", cold=3, warm_runs=1)
    assert r.returncode == 0 and r.status == "ok" and [c.name for c in r.cases] == [CASE]
    # One warm process of 10 calls: one sample (its median), and the count it used recorded.
    assert len(r.ttfr.samples) == 3 and len(r.warm_call.samples) == 1 and r.case.warm_calls == [10]
    assert r.compile.median is None and r.n_star is None  # numpy: no phases, no JIT
    cmp = jb.compare(r, tmp_path / "a", fail_on_regression=5)
    assert cmp.returncode == 0 and not cmp.regressed and not cmp.regressions
    metrics = {row.metric for row in cmp.rows if row.case == CASE}
    assert {"cold_ttfr_s", "warm_call_s"} <= metrics and not cmp.significant()
    with pytest.raises(jb.JitbenchError, match="compare exited 2"):
        jb.compare(tmp_path / "a", tmp_path / "nothing")


# --- the pytest plugin -------------------------------------------------------

def _plugin_args():
    # Installed (scripts/setup.sh): pytest loads it by its entry point; else by name.
    installed = any(ep.value == "jitbench.pytest_plugin" for ep in importlib.metadata.entry_points(group="pytest11"))
    return [] if installed else ["-p", "jitbench.pytest_plugin"]


def test_the_plugin_is_declared_as_a_pytest11_entry_point():
    meta = tomllib.loads((ROOT / "python" / "pyproject.toml").read_text())
    assert meta["project"]["entry-points"]["pytest11"] == {"jitbench": "jitbench.pytest_plugin"}
    plugin = importlib.import_module("jitbench.pytest_plugin")
    assert callable(plugin.pytest_addoption) and hasattr(plugin, "jitbench")


def test_fixture_measure_puts_every_out_dir_in_one_session_dir(pytester, fake_bin):
    pytester.makepyfile(test_fix="""
        import json

        def test_a(jitbench):
            r = jitbench.measure("pkg.mod:step", inputs="pkg.mod:make", cold_runs=2)
            assert r.status == "ok" and r.ttfr.median > 0
            open("dirs.txt", "a").write(str(r.out_dir) + "\\n")

        def test_b(jitbench):
            for _ in range(2):
                r = jitbench.measure("pkg.mod:step", name="again")
                open("dirs.txt", "a").write(str(r.out_dir) + "\\n")
    """)
    result = pytester.runpytest(*_plugin_args())
    result.assert_outcomes(passed=2)
    dirs = [pathlib.Path(p) for p in (pytester.path / "dirs.txt").read_text().split()]
    assert len(set(dirs)) == 3 and len({d.parent for d in dirs}) == 1
    manifest = json.loads((dirs[0].parent / "jitbench-session.json").read_text())
    assert [m["key"] for m in manifest["measurements"]] == [
        "test_fix.py::test_a::step", "test_fix.py::test_b::again", "test_fix.py::test_b::again#2"]
    assert [c["argv"][:2] for c in fake_bin()] == [["measure", "pkg.mod:step"]] * 3


PLUGIN_TEST = f"""
def test_softmax(jitbench):
    r = jitbench.run_workload({str(EXAMPLE)!r}, cases="softmax_rows_128_f32", backends="numpy", cold_runs=5,
                              warm_runs=4, extra_args=["--warm-iters", "10"])
    assert r.status == "ok"
"""


def test_plugin_saves_compares_and_fails_on_a_regression(pytester, monkeypatch):
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    pytester.makepyfile(test_perf=PLUGIN_TEST)
    saved = pytester.runpytest(*_plugin_args(), "--jitbench-save", "base")
    saved.assert_outcomes(passed=1)
    base = pytester.path / ".jitbench" / "base"
    assert (base / "jitbench-session.json").is_file() and not list(base.parent.glob(".base.partial-*"))
    assert any("saved as base" in line for line in saved.outlines)
    # The same code: no regression beyond a threshold far above noise.
    same = pytester.runpytest(*_plugin_args(), "--jitbench-compare", "base", "--jitbench-fail-on-regression", "300")
    assert same.ret == 0, same.outlines
    same.stdout.fnmatch_lines(["*compared with*base*", "test_perf.py::test_softmax::softmax_rows: * metrics differ*"])
    # 20 ms of sleep in every call of the code (a copy of the workload, the same name): the test that measured it
    # fails as compare's gate does, with its rows, whether or not the gate measured both again first.
    slower = pytester.path / "slower" / EXAMPLE.name
    slower.parent.mkdir()
    slower.write_text(EXAMPLE.read_text().replace('float(os.environ.get("JITBENCH_EXAMPLE_SLEEP_S", "0"))', "0.02"))
    assert "_SLEEP_S = 0.02" in slower.read_text()
    pytester.makepyfile(test_perf=PLUGIN_TEST.replace(str(EXAMPLE), str(slower)))
    slow = pytester.runpytest(*_plugin_args(), "--jitbench-compare", str(base), "--jitbench-fail-on-regression", "10")
    slow.assert_outcomes(failed=1)
    assert slow.ret == pytest.ExitCode.TESTS_FAILED
    slow.stdout.fnmatch_lines(["*jitbench: test_perf.py::test_softmax::softmax_rows REGRESSED beyond 10%, decided by "
                               f"*{CASE} warm_call_s (time) slower*"])
    slow.stdout.fnmatch_lines(["*FAILED test_perf.py::test_softmax*"])
    slow.stdout.fnmatch_lines([f"*REGRESSION {CASE} *worse*", "*the gate failed the test(s) test_perf.py::test_softmax*"])
    # Without the gate: reported, not failed.
    report_only = pytester.runpytest(*_plugin_args(), "--jitbench-compare", "base")
    assert report_only.ret == 0
    report_only.stdout.fnmatch_lines(["*softmax_rows: * metrics differ significantly: *slower*"])


def test_plugin_re_measures_before_failing_and_passes_what_that_clears(pytester, monkeypatch, tmp_path):
    """A slowdown of the machine, not of the code (every call sleeps 20 ms through the environment, which the
    gate's re-measurement meets on both sides), measured while the machine was contended (its snapshots say a hog
    ran): the plugin's gate measures BASE and NEW again, interleaved, and the test passes; with
    --no-jitbench-remeasure the same measurement fails it, and the options that help are named."""
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    pytester.makepyfile(test_perf=PLUGIN_TEST)
    assert pytester.runpytest(*_plugin_args(), "--jitbench-save", "base").ret == 0
    monkeypatch.setenv("JITBENCH_EXAMPLE_SLEEP_S", "0.02")
    for name, value in machine_samples(tmp_path / "hog", ["hog"] * 400).items():
        monkeypatch.setenv(name, value)
    gate = ["--jitbench-compare", "base", "--jitbench-fail-on-regression", "50"]
    res = pytester.runpytest(*_plugin_args(), *gate)
    res.assert_outcomes(passed=1)
    res.stdout.fnmatch_lines(["*gate: ok: no metric regressed beyond 50%*cleared by re-measurement*",
                              "*contended (others*",
                              "*re-measured 1 case(s), BASE and NEW interleaved, in *.remeasure*"])
    off = pytester.runpytest(*_plugin_args(), *gate, "--no-jitbench-remeasure")
    off.assert_outcomes(failed=1)
    off.stdout.fnmatch_lines(["*not quiet: *without --no-jitbench-remeasure the gate measures such rows again*"])


MEASURE_TEST = """
import numpy as np


def make_inputs():
    return (np.arange(64, dtype=np.float32).reshape(8, 8),)


def plain(x):
    return np.tanh(x @ x).sum(axis=0)


def test_plain(jitbench):
    r = jitbench.measure(plain, inputs=make_inputs, cold_runs=2, warm_runs=1)
    assert r.status == "ok", r.reason
    assert [c.name for c in r.cases] == ["numpy_plain_1_f32"]
    assert r.ttfr.median > 0 and len(r.ttfr.samples) == 2
"""


def test_the_fixture_measures_a_function_of_the_test_module_in_fresh_processes(pytester, monkeypatch):
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    pytester.makepyfile(test_mine=MEASURE_TEST)
    res = pytester.runpytest_subprocess(*_plugin_args())
    res.assert_outcomes(passed=1)


def test_save_never_removes_what_it_did_not_save(pytester, monkeypatch):
    """`--jitbench-save ..` was the project itself, removed to make room."""
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    pytester.makepyfile(test_mine=MEASURE_TEST)
    for name in ("..", ".", ".hidden"):
        res = pytester.runpytest_subprocess(*_plugin_args(), "--jitbench-save", name)
        assert res.ret == pytest.ExitCode.USAGE_ERROR, name
    assert (pytester.path / "test_mine.py").is_file()
    foreign = pytester.path / ".jitbench" / "base"
    foreign.mkdir(parents=True)
    (foreign / "notes.txt").write_text("mine")
    res = pytester.runpytest_subprocess(*_plugin_args(), "--jitbench-save", "base")
    res.assert_outcomes(passed=1)
    assert (foreign / "notes.txt").read_text() == "mine"
    res.stdout.fnmatch_lines(["*not saved: *base holds something that is not a saved session*"])
    (foreign / "notes.txt").unlink()
    foreign.rmdir()
    assert pytester.runpytest_subprocess(*_plugin_args(), "--jitbench-save", "base").ret == 0
    assert (foreign / "jitbench-session.json").is_file()
    assert pytester.runpytest_subprocess(*_plugin_args(), "--jitbench-save", "base").ret == 0  # its own: replaced
    assert (foreign / "jitbench-session.json").is_file() and not list(foreign.parent.glob(".base.replaced-*"))


def test_save_never_writes_through_a_planted_link(pytester, monkeypatch, tmp_path_factory):
    """Issue 49: the plugin's .jitbench/ writes, removals and renames go
    through the door (python/jitbench/_door.py): a link planted there is
    refused, naming it, and nothing outside changes."""
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    pytester.makepyfile(test_mine=MEASURE_TEST)
    outside = tmp_path_factory.mktemp("outside")
    (pytester.path / ".jitbench").symlink_to(outside, target_is_directory=True)
    res = pytester.runpytest_subprocess(*_plugin_args(), "--jitbench-save", "base")
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    res.stdout.fnmatch_lines(["*.jitbench: a component is a symbolic link*never writes through a link*"])
    assert list(outside.iterdir()) == []


def test_plugin_option_errors(pytester):
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    res = pytester.runpytest(*_plugin_args(), "--jitbench-fail-on-regression", "10")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*--jitbench-fail-on-regression PCT needs --jitbench-compare*"])
    res = pytester.runpytest(*_plugin_args(), "--jitbench-compare", "never-saved")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*no saved session at*never-saved*--jitbench-save NAME*"])
    # Unused, the plugin changes nothing.
    assert pytester.runpytest(*_plugin_args()).ret == 0


@pytest.mark.parametrize("manifest", ["{not json", "[1, 2]", '{"measurements": [{"key": 3}]}', "\udcff"],
                         ids=["not_json", "a_list", "an_entry_without_dir", "not_utf8"])
def test_a_corrupt_saved_session_is_a_usage_error_naming_its_file(pytester, manifest):
    # Issue 49, defect 13: a corrupt .jitbench/NAME/jitbench-session.json was an INTERNALERROR traceback.
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    saved = pytester.path / ".jitbench" / "base"
    saved.mkdir(parents=True)
    (saved / "jitbench-session.json").write_bytes(manifest.encode("utf-8", "surrogateescape"))
    res = pytester.runpytest_subprocess(*_plugin_args(), "--jitbench-compare", "base")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["*--jitbench-compare base: *jitbench-session.json is not a saved session's manifest*"])
    assert "INTERNALERROR" not in res.stdout.str() + res.stderr.str()


def test_an_out_dir_that_holds_a_run_is_refused_not_read_back_as_the_new_result(tmp_path, monkeypatch):
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    (tmp_path / "again.py").write_text(MEASURE_TEST.split("def test_plain")[0])
    out = tmp_path / "out"
    first = jb.measure(f"{tmp_path / 'again.py'}:plain", cold_runs=2, warm_runs=1, out_dir=out)
    assert first.status == "ok"
    with pytest.raises(jb.JitbenchError, match="already holds files"):
        jb.measure(f"{tmp_path / 'again.py'}:plain", cold_runs=2, warm_runs=1, out_dir=out)


def test_a_script_that_measures_at_its_top_level_is_refused_not_started_again(tmp_path, monkeypatch):
    """Without an `if __name__ == "__main__":` guard, importing the script to
    measure its function called measure again, about a hundred levels deep."""
    monkeypatch.setenv("JITBENCH_BIN", str(JITBENCH))
    script = tmp_path / "unguarded.py"
    script.write_text("import jitbench\nimport numpy as np\n\n\ndef f(x):\n    return x + 1\n\n\n"
                      "def mk():\n    return (np.ones(2),)\n\n\n"
                      "r = jitbench.measure(f, inputs=mk, cold_runs=1, warm_runs=1)\n")
    res = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert res.returncode != 0
    assert 'if __name__ == "__main__":' in res.stderr, res.stderr[-2000:]
    assert res.stderr.count("jitbench measure exited") == 1, res.stderr[-3000:]  # one level, not a chain


def test_the_gate_says_which_metrics_it_could_not_judge(tmp_path):
    """Two cold runs a side cannot reach p < 0.05: compare marks those metrics
    'too few runs', and the plugin's session says so rather than pass silently."""
    from jitbench.pytest_plugin import _Session

    cmp = jb.compare(GOLDEN, GOLDEN, fail_on_regression=10)
    untestable = cmp.untestable()
    assert untestable and all(r.verdict == "too few runs" for r in untestable)
    assert {r.metric for r in untestable} >= {"cold_ttfr_s"}, {r.metric for r in untestable}
    session = _Session.__new__(_Session)
    session.saved, session.saved_dir, session.fail_pct, session.remeasure = {"k": GOLDEN}, tmp_path, 10.0, None
    session.lines, session.failed, session.compared, session.pending = [], [], [], {}
    session._compare("k", "t.py::t", GOLDEN)
    said = [l for l in session.lines if "NOT JUDGED" in l]
    assert len(said) == 1 and f"NOT JUDGED {len(untestable)} of {len(cmp.rows)} metrics" in said[0], session.lines
    assert "cold_ttfr_s" in said[0] and "cold_runs=4" in said[0], said[0]  # which metrics, and what they need
    assert session.failed == [] and session.pending == {}


def test_the_api_follows_summary_md_interval_rule():
    """A 95% interval of the median from 6 independent samples or more (order statistics, as
    src/stats computes it), else none and the range: the rule summary.md states."""
    from jitbench.result import Metric, median_interval

    assert median_interval([3.0, 1.0, 2.0, 5.0, 4.0]) is None  # 5 processes: no interval
    assert median_interval([3.0, 1.0, 2.0, 6.0, 5.0, 4.0]) == (1.0, 6.0)  # 6: the extremes (1/64 < 2.5% a tail)
    assert median_interval(list(map(float, range(1, 21)))) == (6.0, 15.0)  # 20: x_(6), x_(15)
    m = Metric(2.0, median_interval([1.0, 2.0, 3.0]), [1.0, 2.0, 3.0])
    assert m.ci is None and m.range == (1.0, 3.0) and "range" in repr(m) and "[" not in repr(m)
