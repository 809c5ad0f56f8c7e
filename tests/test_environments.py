"""Runs across pinned environments and `jitbench bisect`, with no network: tiny
wheels made here (a package `slowimp` whose import sleeps 0, 0, 0.5, 0.5 s in
versions 1.0-1.3), served with --find-links --no-index beside the numpy wheel
scripts/test.sh downloads, and a user workload that imports it while it sets
up. The step is at 1.2: the run across the four releases must show it there,
and bisect must name 1.2."""

import base64
import hashlib
import json
import os
import pathlib
import re
import zipfile

import pytest

from conftest import ROOT, validate

pytestmark = pytest.mark.heavy("uv environments")

NUMPY_WHEELS = ROOT / ".deps" / "wheels"
SLEEP = {"1.0": 0.0, "1.1": 0.0, "1.2": 0.5, "1.3": 0.5}

IMPORT_WORKLOAD = '''"""Imports PKG while it sets up: its import time is the WHOSE."""
import numpy as np


def make_inputs(n, dtype, seed):
    return (np.arange(n, dtype="float64"),)


def check(out, inputs, n, dtype, seed):
    ok = bool(np.allclose(out, inputs[0] * 2))
    return {"ok": ok, "metric": "allclose", "error": 0.0, "tolerance": 0.0}, {}


def _build(adapter, n, dtype):
    import PKG  # noqa: F401  (the measured import)
    return lambda x: x * 2


IMPLEMENTATIONS = {"numpy": _build}
'''


def import_workload(package, whose):
    """A user workload whose setup imports `package`: its import time is the `whose`'s (release's, commit's)."""
    return IMPORT_WORKLOAD.replace("PKG", package).replace("WHOSE", whose)


WORKLOAD = import_workload("slowimp", "release's")


def wheel(where, name, version, files):
    """A py3-none-any wheel, zipped by hand, with a RECORD uv accepts."""
    dist = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{dist}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    files[f"{dist}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: jitbench-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for path, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = "\n".join(record) + "\n"
    out = where / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(out, "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
    return out


def link_numpy_wheels(d):
    """numpy's wheel (what every environment needs) beside the wheels made here."""
    numpy = sorted(NUMPY_WHEELS.glob("numpy-*.whl"))
    if not numpy:
        pytest.fail(f"no numpy wheel in {NUMPY_WHEELS}: scripts/test.sh downloads it before the tests")
    for w in numpy:
        (d / w.name).symlink_to(w)


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    d = tmp_path_factory.mktemp("wheels")
    for v, s in SLEEP.items():
        wheel(d, "slowimp", v, {"slowimp/__init__.py": f"import time\ntime.sleep({s})\n__version__ = '{v}'\n"})
    link_numpy_wheels(d)
    workload = d.parent / "slow_import.py"
    workload.write_text(WORKLOAD)
    return d, workload


@pytest.fixture(scope="module")
def env_cache(tmp_path_factory):
    return tmp_path_factory.mktemp("env-cache")


def run_env(jitbench, wheelhouse, env_cache, *args, **kw):
    wheels, workload = wheelhouse
    return jitbench(*args, "--workload-path", str(workload), "--find-links", str(wheels), "--no-index",
                    env={"JITBENCH_ENV_CACHE": str(env_cache)}, **kw)


ENVS = [a for v in SLEEP for a in ("--env", f"v{v.replace('.', '')}:slowimp=={v}")]
CASE = ["--cases", "slow_import_8_f64", "--backends", "numpy", "--cold-runs", "5", "--warm-iters", "2"]


@pytest.fixture(scope="module")
def across(tmp_path_factory, wheelhouse, env_cache):
    from conftest import JITBENCH
    import subprocess
    out = tmp_path_factory.mktemp("across") / "out"
    wheels, workload = wheelhouse
    proc = subprocess.run([str(JITBENCH), "run", *CASE, *ENVS, "--workload-path", str(workload), "--find-links",
                           str(wheels), "--no-index", "--out-dir", str(out)], capture_output=True, text=True,
                          env=dict(os.environ, JITBENCH_ENV_CACHE=str(env_cache)), timeout=900,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return out


def test_every_case_runs_in_every_environment_recorded_exactly(across):
    index = json.loads((across / "index.json").read_text())
    validate(index, "jitbench.index.v5")
    assert [c["case"] for c in index["cases"]] == [f"numpy_slow_import_8_f64__env-v{v}" for v in ("10", "11", "12", "13")]
    assert all(c["status"] == "ok" for c in index["cases"])
    envs = {e["name"]: e for e in index["environments"]}
    for v in SLEEP:
        name = f"v{v.replace('.', '')}"
        e = envs[name]
        assert e["ok"] and e["requirements"] == [f"slowimp=={v}"]
        assert e["build"]["packages"]["slowimp"] == v and "numpy" in e["build"]["packages"]
        assert e["build"]["exclude_newer"] is None and "--no-index" in e["build"]["exclude_newer_why"]
        manifest = json.loads((across / e["file"]).read_text())
        validate(manifest, "jitbench.environment.v2")
        assert manifest["python"]["executable"].startswith(e["build"]["dir"])
        assert manifest["python"]["packages"]["slowimp"] == v  # every distribution, as the workers saw them
        case = json.loads((across / "cases" / f"numpy_slow_import_8_f64__env-{name}.json").read_text())
        validate(case, "jitbench.case.v7")
        assert case["config"]["environment"] == name
        entry = next(c for c in index["cases"] if c["case"].endswith(name))
        assert entry["environment"] == e["file"]
    assert (across / "environments").is_dir()
    assert "## Environments" in (across / "summary.md").read_text()


def test_one_case_in_every_environment_runs_its_cold_processes_round_robin(across):
    """The environments of a case are compared with one another: their cold
    processes alternate (v10 v11 v12 v13 v10 ...), so that a drift of the
    machine lands on all of them, and the index records the order."""
    index = json.loads((across / "index.json").read_text())
    (group,) = index["interleaved"]
    assert group["cases"] == [c["case"] for c in index["cases"]] and "runs" not in group
    assert [(s["case"], s["cold"]) for s in group["order"]] == [(k % 4, k // 4) for k in range(20)]
    # The logs' times say the same: each round's processes ran one after another, in that order.
    starts = {}
    for k, case in enumerate(group["cases"]):
        for i in range(5):
            starts[(k, i)] = (across / "logs" / case / f"cold-{i}.log").stat().st_mtime_ns
    order = sorted(starts, key=starts.get)
    assert order == [(s["case"], s["cold"]) for s in group["order"]]


def test_the_releases_table_shows_the_step_where_it_is(across):
    analysis = json.loads((across / "analysis.json").read_text())
    validate(analysis, "jitbench.analysis.v5")
    (row,) = analysis["releases"]
    assert row["key"] == "numpy_slow_import_8_f64"
    steps = {e["environment"]: e["metrics"]["cold_ttfr_s"]["step"] for e in row["environments"]}
    assert steps["v10"] is None
    # The step is v12's half-second import sleep: the one judged slower, and the largest of the three steps
    # (not a ratio threshold: on a loaded machine the base's own start-up grows, and every ratio shrinks with it).
    assert steps["v12"]["verdict"] == "slower", steps
    assert steps["v12"]["ratio"] > max(steps["v11"]["ratio"], steps["v13"]["ratio"]), steps
    md = (across / "summary.md").read_text()
    assert "## Releases" in md and "slower**" in md
    # 5 cold runs and 1 warm process an environment: no interval by the Sampling section's rule (6 or more),
    # never a zero-width one ("1.037 [1.037–1.037]"); the steps the test cannot judge are marked once.
    table = md.split("## Releases")[1].split("\n## ")[0]
    assert re.search(r"\d× \[", table) is None, table
    assert "†" in table and "† too few processes for the test to reach p < 0.05" in table, table
    # Ratios with two decimals below 10, one below 100, none above, two significant digits below 0.1 (CI's run
    # printed "840.09×" for v12's sleep), so the row's width has a bound whatever the ratios: with times under
    # 1000 s each cell is at most "999.99 ms (**0.000001×, faster**)" (33; a † step is never bold), and a row of
    # `v1x` and "ok" at most 15 + 4 × 33 + 3 × 3 + 2.
    ratios = re.findall(r"(?<![\d.])([0-9.]+)×", table)
    assert ratios and all(re.fullmatch(r"\d\.\d\d|\d\d\.\d|\d{3,}|0\.0\d+", r) for r in ratios), ratios
    assert max(len(line) for line in table.splitlines() if line.startswith("|")) <= 158, table


def test_environments_are_built_once_and_reused(jitbench, wheelhouse, env_cache, across):
    built = sorted(p for p in env_cache.iterdir() if p.is_dir())
    assert len(built) == 4  # one per release, content-addressed
    stamps = {p: (p / ".jitbench-env.json").stat().st_mtime_ns for p in built}
    res = run_env(jitbench, wheelhouse, env_cache, "run", *CASE, *ENVS[:4])
    assert res.rc == 0, res.stderr
    for e in res.index()["environments"]:
        assert e["build"]["reused"] is True
    assert {p: (p / ".jitbench-env.json").stat().st_mtime_ns for p in built} == stamps


def test_an_environment_that_cannot_be_built_warns_and_the_others_run(jitbench, wheelhouse, env_cache):
    res = run_env(jitbench, wheelhouse, env_cache, "run", *CASE, "--env", "v10:slowimp==1.0",
                  "--env", "nope:slowimp==9.9")
    assert res.rc == 0, res.stderr
    st = {c["case"]: (c["status"], c["reason"]) for c in res.index()["cases"]}
    assert st["numpy_slow_import_8_f64__env-v10"] == ("ok", None)
    status, reason = st["numpy_slow_import_8_f64__env-nope"]
    assert status == "warn" and reason.startswith("environment_unavailable: ") and "slowimp" in reason, reason
    assert jitbench("validate", str(res.out)).rc == 0


def test_compare_pairs_two_runs_that_differ_only_in_environment(jitbench, wheelhouse, env_cache, tmp_path):
    # slowimp 1.1 then 1.2, one environment each: the case ids differ only in __env-, and compare must pair
    # them, name the package that differs, and see the 0.5 s import as a slowdown of TTFR.
    runs = []
    for v in ("1.1", "1.2"):
        res = run_env(jitbench, wheelhouse, env_cache, "run", *CASE, "--env", f"slowimp=={v}")
        assert res.rc == 0, res.stderr
        runs.append(res.out)
    csv = tmp_path / "rows.csv"
    res = jitbench("compare", str(runs[0]), str(runs[1]), "--csv", str(csv), out=False)
    assert res.rc == 0, res.stderr
    assert "slowimp" in res.stdout and "1.1" in res.stdout and "1.2" in res.stdout, res.stdout
    import csv as csvmod
    rows = list(csvmod.DictReader(csv.open()))
    ttfr = [r for r in rows if r["case"] == "numpy_slow_import_8_f64" and r["metric"] == "cold_ttfr_s"]
    assert len(ttfr) == 1, [(r["case"], r["metric"]) for r in rows]
    assert float(ttfr[0]["ratio"]) > 1.5, ttfr[0]


def test_bisect_refuses_to_decide_on_an_end_it_cannot_measure(jitbench, wheelhouse, env_cache, tmp_path):
    out = tmp_path / "bisect"
    wheels, workload = wheelhouse
    res = jitbench("bisect", "--package", "slowimp", "--good", "1.0", "--bad", "9.9", "--versions", "1.0,1.2,9.9",
                   *CASE, "--workload-path", str(workload), "--find-links", str(wheels), "--no-index",
                   "--out-dir", str(out), env={"JITBENCH_ENV_CACHE": str(env_cache)}, out=False, timeout=600)
    assert res.rc == 2, res.stderr
    assert "slowimp 9.9 gave no comparable measurement" in res.stderr, res.stderr
    doc = json.loads((out / "bisect.json").read_text())
    validate(doc, "jitbench.bisect.v5")
    assert doc["result"]["status"] == "unmeasurable" and doc["result"]["unmeasurable"] == "9.9"
    assert [s["verdict"] for s in doc["steps"]] == ["measured", "unmeasurable"]


# 1.2 and 1.3 both sleep half a second at import: "no regression" needs the whole 95% CI of their TTFR ratio
# under 1 + threshold, which five processes a side on a loaded 2-core machine cannot promise at 20% (one late
# process is enough); 100% keeps that noise from reading as a step, as test_bisect_git does for its pair.
@pytest.mark.parametrize("good,bad,threshold,expect", [("1.0", "1.3", "20", "found"),
                                                      ("1.2", "1.3", "100", "no_regression")])
def test_bisect_names_the_release_that_made_it_slower(jitbench, wheelhouse, env_cache, tmp_path, good, bad,
                                                      threshold, expect):
    out = tmp_path / "bisect"
    wheels, workload = wheelhouse
    res = jitbench("bisect", "--package", "slowimp", "--good", good, "--bad", bad, "--metric", "ttfr",
                   "--threshold", threshold, *CASE, "--workload-path", str(workload), "--find-links", str(wheels),
                   "--no-index", "--out-dir", str(out), env={"JITBENCH_ENV_CACHE": str(env_cache)}, out=False,
                   timeout=1200)
    assert res.rc == 0, res.stderr
    doc = json.loads((out / "bisect.json").read_text())
    validate(doc, "jitbench.bisect.v5")
    assert doc["result"]["status"] == expect, doc["result"]
    if expect == "found":
        assert doc["candidates"] == ["1.0", "1.1", "1.2", "1.3"]
        assert (doc["result"]["first_bad"], doc["result"]["last_good"]) == ("1.2", "1.1")
        assert "slowimp 1.2 is the first release with the regression of ttfr" in res.stdout
        assert all(r["regression"] for r in doc["result"]["confirmation"])
    else:
        assert "no regression of ttfr from slowimp 1.2 to 1.3" in res.stdout
    for step in doc["steps"]:
        assert jitbench("validate", str(out / step["dir"]), out=False).rc == 0
    # The ends (and the boundary's confirmations) are measured side by side: one run, both
    # releases' cold processes interleaved, so that a drift of the machine lands on both.
    good_end, bad_end = doc["steps"][:2]
    assert (good_end["role"], bad_end["role"]) == ("good", "bad") and good_end["dir"] == bad_end["dir"]
    (group,) = json.loads((out / good_end["dir"] / "index.json").read_text())["interleaved"]
    assert [(s["case"], s["cold"]) for s in group["order"]] == [(k % 2, k // 2) for k in range(10)]
    confirms = [s for s in doc["steps"] if s["role"] == "confirm"]
    assert all(a["dir"] == b["dir"] and a["version"] != b["version"] for a, b in zip(confirms[::2], confirms[1::2]))


def test_an_environment_cache_jitbench_did_not_make_is_left_alone(jitbench, wheelhouse, tmp_path):
    # jitbench removes half-built environments in its cache; in a directory holding someone else's files it
    # must build nothing and remove nothing.
    cache = tmp_path / "not-a-cache"
    (cache / "0123abcd").mkdir(parents=True)
    (cache / "0123abcd" / "notes.txt").write_text("mine")
    res = run_env(jitbench, wheelhouse, cache, "run", *CASE, "--env", "v10:slowimp==1.0")
    assert res.rc == 0, res.stderr
    (case,) = res.index()["cases"]
    assert case["status"] == "warn" and "holds files jitbench did not put there" in case["reason"], case
    assert (cache / "0123abcd" / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in cache.iterdir()) == ["0123abcd"]


def test_an_exact_pin_holds_its_unpinned_companions_to_its_date(monkeypatch):
    """numba==0.57.1 beside a bare "scipy" (numba's np.dot needs it): scipy is
    the release of numba's day, not today's; without an exact pin nothing is
    held, and the record says why."""
    import datetime
    import sys

    sys.path.insert(0, str(ROOT / "worker"))
    from jitbench_worker.harness import envs

    day = datetime.datetime(2023, 6, 22, 17, 42, tzinfo=datetime.timezone.utc)
    asked = []
    monkeypatch.setattr(envs, "release_date", lambda n, v: asked.append((n, v)) or day)
    held, why = envs.hold_date({"requirements": ["numba==0.57.1", "scipy"]})
    assert asked == [("numba", "0.57.1")]
    assert held == "2023-06-23T17:42:00Z" and "2023-06-22" in why
    held, why = envs.hold_date({"requirements": ["numba>=0.57", "scipy"]})
    assert held is None and "no requirement is an exact pin" in why
    held, why = envs.hold_date({"requirements": ["numba==0.57.1"], "no_index": True})
    assert held is None and "--no-index" in why


def test_replicate_rebuilds_the_pinned_environments_and_reads_the_input_copies(jitbench, wheelhouse, env_cache,
                                                                               across, tmp_path):
    # The workload file is gone from where it was: the replica measures the copy the run kept.
    moved = tmp_path / "elsewhere.py"
    wheelhouse[1].rename(moved)
    try:
        res = jitbench("replicate", str(across), "--out-dir", str(tmp_path / "replica"), "-q",
                       env={"JITBENCH_ENV_CACHE": str(env_cache)}, out=False)
    finally:
        moved.rename(wheelhouse[1])
    assert res.rc in (0, 8), res.stderr  # 8: a timing differs; the gates are what this test is about
    rep = json.loads((tmp_path / "replica" / "replication" / "replication.json").read_text())
    assert all(g["passed"] for g in rep["gates"]), rep["gates"]
    assert "pinned environments rebuilt" in rep["environment"]["recreated"]
    assert "1 input file(s)" in [g for g in rep["gates"] if g["name"] == "same_inputs"][0]["detail"]
    index = json.loads((tmp_path / "replica" / "index.json").read_text())
    assert sorted(e["name"] for e in index["environments"]) == sorted(
        e["name"] for e in json.loads((across / "index.json").read_text())["environments"])
    assert all(e["build"]["reused"] for e in index["environments"])  # the same hashes: the cache's environments


# -- bisect --anatomy across fake releases ---------------------------------------
# fakerel's releases tell the fake worker (FAKE_WORKER_RELEASE) how to behave: from 1.2 on the whole first
# call takes 3x as long (what bisect judges) and the anatomy's pass_a 3x (what it names); fakelie's 1.2+ also
# lie in their anatomy processes (items beyond their parent: the case fails inconsistent_timings).
FAKE_RELEASES = {"1.0": 1, "1.1": 1, "1.2": 3, "1.3": 3}


@pytest.fixture(scope="module")
def fake_releases(tmp_path_factory):
    d = tmp_path_factory.mktemp("fake-release-wheels")
    for v, f in FAKE_RELEASES.items():
        wheel(d, "fakerel", v, {"fakerel/__init__.py": f"SCALE = {f}\nSLOW_PASS = {f}\n"})
        wheel(d, "fakelie", v, {"fakelie/__init__.py": f"SCALE = {f}\nSLOW_PASS = {f}\nLIE_ANATOMY = {f > 1}\n"})
    link_numpy_wheels(d)
    return d


def bisect_anatomy(jitbench, fake_env, wheels, env_cache, out, package):
    env = dict(fake_env(), FAKE_WORKER_RELEASE=package, JITBENCH_ENV_CACHE=str(env_cache))
    return jitbench("bisect", "--package", package, "--good", "1.0", "--bad", "1.3", "--metric", "ttfr",
                    "--threshold", "20", "--cases", "matmul_8_f32", "--backends", "numba", "--cold-runs", "5",
                    "--warm-iters", "2", "--anatomy", "--anatomy-runs", "2", "--find-links", str(wheels),
                    "--no-index", "--out-dir", str(out), env=env, out=False, timeout=1200)


def anatomy_runs_of_step(out, step):
    """The anatomy processes of the run a step points at (the releases measured side by side share it)."""
    runs = []
    for case in (out / step["dir"] / "cases").glob("*.json"):
        anatomy = json.loads(case.read_text())["anatomy"]
        runs += anatomy["runs"] if anatomy else []
    return runs


def test_bisect_anatomy_names_the_sub_phase_that_moved_at_the_boundary(jitbench, fake_env, fake_releases,
                                                                       env_cache, tmp_path):
    """Only the boundary's two confirmation runs take the anatomy; each side
    pools its 2 x 2 processes; the compile moved, of which pass_a."""
    out = tmp_path / "bisect"
    res = bisect_anatomy(jitbench, fake_env, fake_releases, env_cache, out, "fakerel")
    assert res.rc == 0, res.stderr
    doc = json.loads((out / "bisect.json").read_text())
    validate(doc, "jitbench.bisect.v5")
    assert (doc["result"]["first_bad"], doc["result"]["last_good"]) == ("1.2", "1.1"), doc["result"]
    for step in doc["steps"]:
        has = bool(anatomy_runs_of_step(out, step))
        assert has == (step["role"] == "confirm"), (step["role"], step["dir"])
    (case,) = doc["result"]["boundary_anatomy"]
    paths = [i["path"] for i in case["items"]]
    assert paths[:2] == [["compile"], ["compile", "pass_a"]], paths
    first = case["items"][0]
    assert (first["n_base"], first["n_new"]) == (4, 4)  # two confirmation runs x --anatomy-runs 2, per side
    assert first["ratio_ci95"] is None  # 4 a side: no interval (the Sampling rule asks 6)
    assert "inside the compile: compile +120.0 µs" in res.stdout and "of which pass_a +120.0 µs" in res.stdout, \
        res.stdout


def test_a_failed_anatomy_process_does_not_change_what_bisect_finds(jitbench, fake_env, fake_releases, env_cache,
                                                                    tmp_path):
    """fakelie 1.2's anatomy processes lie, which fails its confirmation
    cases; the measured runs are still judged (the boundary holds), and the
    anatomy says why it has nothing."""
    out = tmp_path / "bisect"
    res = bisect_anatomy(jitbench, fake_env, fake_releases, env_cache, out, "fakelie")
    assert res.rc == 0, res.stderr
    doc = json.loads((out / "bisect.json").read_text())
    validate(doc, "jitbench.bisect.v5")
    assert doc["result"]["status"] == "found", doc["result"]
    assert (doc["result"]["first_bad"], doc["result"]["last_good"]) == ("1.2", "1.1"), doc["result"]
    confirm_hi = [s for s in doc["steps"] if s["role"] == "confirm" and s["version"] == "1.2"]
    assert confirm_hi and all(c["status"] == "failed" for s in confirm_hi for c in s["cases"]), confirm_hi
    assert doc["result"]["boundary_anatomy"] == []
    assert "no case has ok anatomy processes on both sides of the boundary" in res.stdout, res.stdout


def test_the_releases_table_says_which_sub_phase_moved_from_the_environment_above(jitbench, fake_env, fake_releases,
                                                                                  env_cache):
    """A run across fakerel 1.0 and 1.2 with --anatomy: summary.md's Releases
    section has, below the case's table, 1.2's line naming the compile and
    pass_a, with each side's n and range (2 processes a side: no CI)."""
    env = dict(fake_env(), FAKE_WORKER_RELEASE="fakerel", JITBENCH_ENV_CACHE=str(env_cache))
    res = jitbench("run", "--cases", "matmul_8_f32", "--backends", "numba", "--cold-runs", "3", "--warm-iters", "2",
                   "--anatomy", "--anatomy-runs", "2", "--env", "r10:fakerel==1.0", "--env", "r12:fakerel==1.2",
                   "--find-links", str(fake_releases), "--no-index", env=env, timeout=900)
    assert res.rc == 0, res.stderr
    releases = (res.out / "summary.md").read_text().split("## Releases")[1].split("\n## ")[0]
    below = releases.split("Inside the compile, against the environment above")[1]
    lines = [line for line in below.splitlines() if line.startswith("- ")]
    assert lines == ["- `r12`: compile +120.0 µs (×2.20; n = 2, all 100.0 µs → n = 2, all 220.0 µs), of which "
                     "pass_a +120.0 µs (×3.00; n = 2, all 60.0 µs → n = 2, all 180.0 µs), 100% of the change "
                     "(shares without an interval: fewer than 6 anatomy processes a side)"], below
    # The two environments' anatomy processes took turns (r10 0, r12 0, r10 1, r12 1), as their cold ones do.
    logs = sorted((res.out / "logs").glob("numba_matmul_8_f32__env-r1*/anatomy-*.log"),
                  key=lambda p: p.stat().st_mtime_ns)
    assert [f"{p.parent.name[-3:]}/{p.name}" for p in logs] == [
        "r10/anatomy-0.log", "r12/anatomy-0.log", "r10/anatomy-1.log", "r12/anatomy-1.log"]


def test_the_environments_section_counts_the_cases_each_environment_ran(jitbench, fake_env, fake_releases, env_cache,
                                                                         tmp_path):
    """A suite whose blocks name their environments: summary.md says how many
    cases ran in each, never that every case ran in every one."""
    suite = tmp_path / "blocks.toml"
    suite.write_text('[suite]\nname = "blocks"\ncold_runs = 1\nwarm_iters = 2\n'
                     '[[environments]]\nname = "r10"\nrequirements = ["fakerel==1.0"]\n'
                     '[[environments]]\nname = "r12"\nrequirements = ["fakerel==1.2"]\n'
                     '[[matrix]]\nbackends = ["numba"]\nworkloads = ["matmul"]\nsizes = [8]\ndtypes = ["f32"]\n'
                     'environments = ["r10"]\n'
                     '[[matrix]]\nbackends = ["numba"]\nworkloads = ["matmul"]\nsizes = [16]\ndtypes = ["f32"]\n'
                     'environments = ["r10", "r12"]\n')
    env = dict(fake_env(), FAKE_WORKER_RELEASE="fakerel", JITBENCH_ENV_CACHE=str(env_cache))
    res = jitbench("run", "--suite", str(suite), "--find-links", str(fake_releases), "--no-index", env=env,
                   timeout=900)
    assert res.rc == 0, res.stderr
    section = (res.out / "summary.md").read_text().split("## Environments")[1].split("\n## ")[0]
    assert "- `environments/env-r10.json` (2 cases): " in section, section
    assert "- `environments/env-r12.json` (1 case): " in section, section


TARGET = '''import numpy as np
import slowimp  # its release's import time is what moves


def make_inputs():
    return (np.arange(8.0),)


def step(x):
    return x * 2.0
'''


def test_bisect_of_your_function_names_the_release_that_made_its_import_slower(jitbench, wheelhouse, env_cache,
                                                                               tmp_path):
    # `bisect file.py:fn`: each step a `measure` run of the user's own function in that release's environment.
    wheels, _ = wheelhouse
    target = tmp_path / "mine.py"
    target.write_text(TARGET)
    out = tmp_path / "bisect"
    res = jitbench("bisect", f"{target}:step", "--package", "slowimp", "--good", "1.1", "--bad", "1.2",
                   "--cold-runs", "5", "--warm-iters", "2", "--metric", "ttfr", "--threshold", "20",
                   "--find-links", str(wheels), "--no-index", "--out-dir", str(out),
                   env={"JITBENCH_ENV_CACHE": str(env_cache)}, out=False, timeout=1200)
    assert res.rc == 0, res.stderr
    assert "slowimp 1.2 is the first release with the regression of ttfr" in res.stdout, res.stdout
    doc = json.loads((out / "bisect.json").read_text())
    validate(doc, "jitbench.bisect.v5")
    assert doc["result"]["status"] == "found" and doc["result"]["first_bad"] == "1.2", doc["result"]
    for step in doc["steps"]:  # each step a measure run of the function, under its own name
        assert jitbench("validate", str(out / step["dir"]), out=False).rc == 0
        cases = json.loads((out / step["dir"] / "index.json").read_text())["cases"]
        assert cases and all("_step_" in c["case"] for c in cases), cases
