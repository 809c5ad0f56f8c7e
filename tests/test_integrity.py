"""Nothing runs, is written or is trusted before it is checked: the release,
bisect and publishing surface as an attacker or a careless user meets it.
One test (or more) per defect found by attacking it; each failed on the code
before its fix. Real workers with NumPy and tiny hand-zipped wheels, no
network (the wheels of tests/test_environments.py)."""

import hashlib
import json
import pathlib

import pytest

from conftest import ROOT
from test_environments import link_numpy_wheels, wheel
from test_publish import keys, rehash  # noqa: F401  (keys is a fixture)

pytestmark = pytest.mark.quick

WORKLOAD = '''"""A user workload whose file a tamperer may edit."""
import numpy as np


def make_inputs(n, dtype, seed):
    return (np.arange(n, dtype="float64"),)


def check(out, inputs, n, dtype, seed):
    return {"ok": bool(np.allclose(out, inputs[0] * 2)), "metric": "allclose", "error": 0.0, "tolerance": 0.0}, {}


def _build(adapter, n, dtype):
    return lambda x: x * 2


IMPLEMENTATIONS = {"numpy": _build}
'''
CASE = ["--cases", "doubled_8_f64", "--backends", "numpy", "--cold-runs", "2", "--warm-iters", "2"]


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    """numpy's wheel, and SlowImp (capitals in its name) 1.0 and 1.1+slow, whose import sleeps 0.4 s."""
    d = tmp_path_factory.mktemp("wheels")
    for v, s in (("1.0", 0.0), ("1.1+slow", 0.4)):
        wheel(d, "SlowImp", v, {"slowimp/__init__.py": f"import time\ntime.sleep({s})\n"})
    link_numpy_wheels(d)
    return d


@pytest.fixture
def workload(tmp_path):
    path = tmp_path / "doubled.py"
    path.write_text(WORKLOAD)
    return path


# 1. replicate checks the snapshot's signature before any of its code runs.
def test_1_replicate_checks_the_signature_before_running_the_snapshots_code(jitbench, keys, workload, tmp_path):
    run = tmp_path / "orig"
    res = jitbench("run", *CASE, "--workload-path", str(workload), "--out-dir", str(run), "-q", out=False)
    assert res.rc == 0, res.stderr
    assert jitbench("sign", str(run), "--key", str(keys["alice"]), out=False).rc == 0
    copy = next((run / "inputs").rglob("doubled*.py"))
    rel = copy.relative_to(run).as_posix()
    marker = tmp_path / "the-edited-code-ran"
    copy.write_text(f"open({str(marker)!r}, 'w').write('ran')\n" + copy.read_text())
    rehash(run, rel)  # the tamperer updates the sha256 and bytes in index.json: validate passes
    index = json.loads((run / "index.json").read_text())
    for i in index["inputs"]:
        if i["path"] == rel:
            i["sha256"] = hashlib.sha256(copy.read_bytes()).hexdigest()
    (run / "index.json").write_text(json.dumps(index, indent=2) + "\n")
    assert jitbench("validate", str(run), out=False).rc == 0

    replica = tmp_path / "replica"
    res = jitbench("replicate", str(run), "--out-dir", str(replica), "--allowed-signers", str(keys["allowed"]),
                   out=False)
    assert res.rc == 7, res.stderr
    assert "not signed by an allowed signer" in res.stderr and "nothing was run" in res.stderr
    assert not marker.exists() and not replica.exists()

    # Without --allowed-signers it runs, having said so first.
    res = jitbench("replicate", str(run), "--out-dir", str(replica), "-q", out=False)
    assert "will run unverified" in res.stderr.splitlines()[0], res.stderr
    assert marker.exists(), res.stderr


# 2. publish checks the snapshot id it computes from started_at with the --id rule.
def test_2_publish_never_writes_outside_the_site_from_a_forged_start_time(jitbench, workload, tmp_path):
    run = tmp_path / "run"
    assert jitbench("run", *CASE, "--workload-path", str(workload), "--out-dir", str(run), "-q", out=False).rc == 0
    outside = tmp_path / "outside"
    index = json.loads((run / "index.json").read_text())
    index["started_at"] = "/../../../../.." + str(outside)
    (run / "index.json").write_text(json.dumps(index, indent=2) + "\n")
    res = jitbench("validate", str(run), out=False)
    assert res.rc == 1 and "started_at" in res.stdout + res.stderr and "is not a UTC time" in res.stdout + res.stderr
    site = tmp_path / "site"
    res = jitbench("publish", str(run), "--to", str(site), out=False)
    assert res.rc == 2, res.stderr
    assert not outside.exists() and not list(tmp_path.glob("**/snapshots/.tmp-*"))


# 3. A requirement never reaches uv as an option.
@pytest.mark.heavy("uv environments")
def test_3_a_requirement_that_is_an_installer_option_is_refused(jitbench, wheelhouse, workload, tmp_path):
    outside = tmp_path / "outside"
    env = {"JITBENCH_ENV_CACHE": str(tmp_path / "cache")}
    common = [*CASE, "--workload-path", str(workload), "--find-links", str(wheelhouse), "--no-index"]
    res = jitbench("run", *common, "--env", f"inj:numpy;--target={outside}", env=env)
    assert res.rc == 2 and "'--target' is an installer option, not a requirement" in res.stderr, res.stderr
    suite = tmp_path / "s.toml"
    suite.write_text('[[matrix]]\nbackends = ["numpy"]\nworkloads = ["matmul"]\nsizes = [64]\ndtypes = ["f32"]\n'
                     f'[[environments]]\nname = "inj"\nrequirements = ["numpy", "--target={outside}"]\n')
    res = jitbench("plan", "--suite", str(suite))
    assert res.rc == 2 and "installer option" in res.stderr, res.stderr
    suite.write_text(suite.read_text().replace(f'"--target={outside}"', f'"  --target={outside}"'))
    res = jitbench("plan", "--suite", str(suite))  # leading spaces hide nothing
    assert res.rc == 2 and "installer option" in res.stderr, res.stderr
    for w in (f" --target={outside}", "scipy;-r /etc/passwd"):  # checked before anything is made
        res = jitbench("bisect", "--package", "numpy", "--good", "1.0", "--bad", "2.0", "--versions", "1.0,2.0",
                       "--with", w, *common, "--out-dir", str(tmp_path / "b"), env=env, out=False)
        assert res.rc == 2 and "installer option" in res.stderr and not (tmp_path / "b").exists(), res.stderr
    res = jitbench("bisect", "--package", "numpy", "--good", "1.0", "--bad", "2.0", "--versions", "1.0,2.0",
                   "--with", f"--target={outside}", *common, "--out-dir", str(tmp_path / "b"), env=env, out=False)
    assert res.rc == 2 and "installer option" in res.stderr, res.stderr
    assert not outside.exists() and not (tmp_path / "b").exists()


# 4. bisect's package and versions name directories: checked before anything is made.
@pytest.mark.parametrize("package,versions", [("../../ESCAPE", "1.0,1.1"), ("numpy", "1.0,../../x")])
def test_4_bisect_checks_the_package_and_its_versions_first(jitbench, tmp_path, package, versions):
    out = tmp_path / "a" / "b" / "out"
    good, bad = versions.split(",")
    res = jitbench("bisect", "--package", package, "--good", good, "--bad", bad, "--versions", versions,
                   *CASE, "--out-dir", str(out), out=False)
    assert res.rc == 2, res.stderr
    assert ("not a package name" if package != "numpy" else "not a release version") in res.stderr
    assert not (tmp_path / "a").exists() and not list(tmp_path.glob("**/ESCAPE*")) and not (ROOT / "ESCAPE").exists()


# 10. Environment names follow one rule: an invalid one is an error, bisect normalises its own.
def test_10_an_invalid_environment_name_is_an_error_not_a_requirement(jitbench):
    res = jitbench("plan", "--cases", "matmul_64_f32", "--backends", "numpy", "--env", "Foo:numpy==2.0")
    assert res.rc == 2 and "the name 'Foo' is not one: lower-case letters" in res.stderr, res.stderr
    res = jitbench("plan", "--cases", "matmul_64_f32", "--backends", "numpy", "--env", "My Env:numpy")
    assert res.rc == 2 and "the name 'My Env' is not one" in res.stderr, res.stderr
    ok = jitbench("plan", "--cases", "matmul_64_f32", "--backends", "numpy", "--env", "foo:numpy==2.0")
    assert ok.rc == 0 and "numpy_matmul_64_f32__env-foo" in ok.stdout, ok.stdout


@pytest.mark.heavy("uv environments")
def test_10_bisect_takes_a_package_with_capitals_and_a_local_version(jitbench, wheelhouse, workload, tmp_path):
    out = tmp_path / "bisect"
    slow = tmp_path / "slow" / "doubled.py"  # the same workload name, importing SlowImp
    slow.parent.mkdir()
    slow.write_text(WORKLOAD.replace("    return lambda x: x * 2", "    import slowimp  # noqa: F401\n"
                                                                   "    return lambda x: x * 2"))
    res = jitbench("bisect", "--package", "SlowImp", "--good", "1.0", "--bad", "1.1+slow", "--versions",
                   "1.0,1.1+slow", "--metric", "ttfr", "--threshold", "20", "--cases", "doubled_8_f64", "--backends",
                   "numpy", "--cold-runs", "5", "--warm-iters", "2", "--workload-path", str(slow), "--find-links",
                   str(wheelhouse), "--no-index", "--out-dir", str(out),
                   env={"JITBENCH_ENV_CACHE": str(tmp_path / "cache")}, out=False, timeout=900)
    assert res.rc == 0, res.stderr
    doc = json.loads((out / "bisect.json").read_text())
    assert doc["result"]["first_bad"] == "1.1+slow", doc["result"]
    dirs = sorted(pathlib.Path(s["dir"]).name for s in doc["steps"])
    # The ends are measured side by side, in one run named after both environments.
    assert dirs[0].startswith("slowimp-1.0-") and any("_slowimp-1.1_pslow-" in d for d in dirs), dirs


# 14. Labels are text everywhere: in figures (no mathtext), in the site (no placeholder), in summary.md (no Markdown).
def test_14_labels_are_text_in_figures_the_site_and_summary(jitbench, fake_env, tmp_path):
    from test_publish import fake_run, publish
    label = "$\\foo{$ @@LINKS0@@ `x`\n# injected heading"
    runs = [fake_run(jitbench, fake_env, tmp_path / f"r{k}", machine=label) for k in (1, 2)]
    summary = (runs[0] / "summary.md").read_text()
    assert not any(line.startswith("# injected") for line in summary.splitlines())
    command = next(line for line in summary.splitlines() if line.startswith("Command: "))
    assert "\\n# injected heading" in command and command.count("``") >= 2  # one span, fenced past the backticks
    site = tmp_path / "site"
    for run in runs:
        res = publish(jitbench, run, site)
        assert res.rc == 0, res.stderr
        assert "has no report" not in res.stderr, res.stderr  # its figures drew the label as text
    page = (site / "index.html").read_text()
    assert "@@LINKS0@@" in (site / "cases" / "numpy_matmul_64_f32.html").read_text()  # a series' name
    assert "@@LINKS0@@" in page  # the label, shown as it is ...
    rows = [r for r in page.split("<tr") if "run/summary.md" in r]
    assert len(rows) == 2 and all(r.count("run/summary.md") == 1 for r in rows)  # ... and each row keeps its own links
    assert all("@@links-" not in r for r in rows)


# 13. A user CATALOG's numbers have ranges, checked at plan time, one line naming the field.
@pytest.mark.parametrize("catalog,field", [('"cost": (-1.0, 2.0)', "CATALOG cost: its coefficient"),
                                           ('"cost": (1e308, 1e300)', "CATALOG cost: its coefficient"),
                                           ('"cost": (float("nan"), 1.0)', "CATALOG cost: its coefficient"),
                                           ('"cost": (1e-6, float("inf"))', "CATALOG cost: its exponent"),
                                           ('"loop": ("step", 1e30)', "CATALOG loop: its steps per call"),
                                           ('"work": ("n", -1.0, "things")', "CATALOG work: its scale"),
                                           ('"cost": (10**400, 1.0)', "CATALOG cost: its coefficient")])
def test_13_catalog_numbers_out_of_range_are_one_line_at_plan_time(jitbench, tmp_path, catalog, field):
    path = tmp_path / "doubled.py"
    path.write_text(WORKLOAD + f"\nCATALOG = {{{catalog}}}\n")
    res = jitbench("plan", "--workload-path", str(path), "--cases", "doubled_8_f64", "--backends", "numpy")
    assert res.rc == 0, res.stderr  # planned, with the catalog's placeholder record: its cases will fail
    lines = [ln for ln in res.stderr.splitlines() if field in ln]
    assert len(lines) == 1, res.stderr
    estimate = res.stdout.splitlines()[0].split("expected ~")[1].split(" s")[0]
    assert float(estimate) >= 0 and "inf" not in estimate, res.stdout  # not the -294905 s or inf s of a bad cost


# 6. verify covers the report publish drew: an edited report.html of a signed snapshot fails.
def test_6_verify_checks_a_published_snapshots_report(jitbench, fake_env, keys, tmp_path):  # noqa: F811
    from test_publish import fake_run, publish, registry
    run = fake_run(jitbench, fake_env, tmp_path / "r")
    assert jitbench("sign", str(run), "--key", str(keys["alice"]), out=False).rc == 0
    site = tmp_path / "site"
    assert publish(jitbench, run, site, "--allowed-signers", str(keys["allowed"])).rc == 0
    copy = site / registry(site)["snapshots"][0]["path"] / "run"
    ok = jitbench("verify", str(copy), "--allowed-signers", str(keys["allowed"]), out=False)
    assert ok.rc == 0 and "report files against the snapshot index" in ok.stdout, ok.stdout + ok.stderr
    snap = json.loads((copy.parent / "snapshot_index.json").read_text())
    assert "run/report/report.html" in [a["path"] for a in snap["artifacts"]]

    html = copy / "report" / "report.html"
    original = html.read_text()
    html.write_text(original.replace("</body>", "<a href='https://evil.example'>download</a></body>"))
    bad = jitbench("verify", str(copy), "--allowed-signers", str(keys["allowed"]), out=False)
    assert bad.rc == 1 and "report/report.html: sha256 differs from the snapshot index" in bad.stderr, bad.stderr
    html.write_text(original)
    (copy / "report" / "extra.html").write_text("<p>added</p>")
    bad = jitbench("verify", str(copy), "--allowed-signers", str(keys["allowed"]), out=False)
    assert bad.rc == 1 and "report/extra.html: present but not in the snapshot index" in bad.stderr, bad.stderr
    (copy / "report" / "extra.html").unlink()
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "x.html").write_text("<p>elsewhere</p>")
    (copy / "report" / "extra").symlink_to(evil)
    bad = jitbench("verify", str(copy), "--allowed-signers", str(keys["allowed"]), out=False)
    # Named by the out dir's own walk now (validate's: no link anywhere in a run), before the report's check.
    assert bad.rc == 1 and "report/extra: a symbolic link in the out dir" in bad.stderr, bad.stderr
    (copy / "report" / "extra").unlink()
    reg = json.loads((site / "registry.json").read_text())
    (site / "registry.json").write_text(json.dumps(dict(reg, snapshots=[]), indent=2))  # the entry gone
    bad = jitbench("verify", str(copy), "--allowed-signers", str(keys["allowed"]), out=False)
    assert bad.rc == 1 and "not in the site's registry.json" in bad.stderr, bad.stderr
    # Outside a site, report/ is covered by nothing, and verify says so.
    assert jitbench("report", str(run), out=False).rc == 0
    res = jitbench("verify", str(run), "--allowed-signers", str(keys["allowed"]), out=False)
    assert res.rc == 0 and "report/ is not covered" in res.stderr, res.stderr


# 15. Minor: variable names are names; the site's lock speaks of the site.
@pytest.mark.parametrize("key", ['""', '"A=B"', '"1X"'])
def test_15_a_suite_variable_must_be_a_name(jitbench, tmp_path, key):
    suite = tmp_path / "s.toml"
    suite.write_text('[[matrix]]\nbackends = ["numpy"]\nworkloads = ["matmul"]\nsizes = [64]\ndtypes = ["f32"]\n'
                     f'[[environments]]\nrequirements = ["numpy"]\nvariables = {{{key} = "1"}}\n')
    res = jitbench("plan", "--suite", str(suite))
    assert res.rc == 2 and "is not a variable's name" in res.stderr, res.stderr


def test_15_a_held_site_says_to_publish_elsewhere_not_out_dir(jitbench, fake_env, tmp_path):
    import fcntl
    from test_publish import fake_run, publish
    run = fake_run(jitbench, fake_env, tmp_path / "r")
    site = tmp_path / "site"
    site.mkdir()
    with open(site / ".jitbench.lock", "w") as lock:
        fcntl.lockf(lock, fcntl.LOCK_EX)
        res = publish(jitbench, run, site)
    assert res.rc == 2 and "publish to another site (--to)" in res.stderr and "--out-dir" not in res.stderr, res.stderr


def run_in(cwd, *args, env=None, timeout=600):
    """build/jitbench from another directory (the fixture's runs from the checkout's)."""
    import os
    import subprocess
    from conftest import JITBENCH
    full = dict(os.environ, **(env or {}))
    for k, v in (env or {}).items():
        if v is None:
            full.pop(k, None)
    return subprocess.run([str(JITBENCH), *args], cwd=cwd, capture_output=True, text=True, env=full,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def env_records(out):
    return {e["name"]: e for e in json.loads((out / "index.json").read_text()).get("environments", [])}


# 5. The environment cache trusts nothing it finds: no shared fallback, no foreign or world-writable
#    directory, no interpreter outside the environment's own directory.
@pytest.mark.heavy("uv environments")
def test_5_the_environment_cache_has_no_shared_fallback(wheelhouse, workload, tmp_path):
    res = run_in(tmp_path, "run", *CASE, "--workload-path", str(workload), "--env", "e:numpy", "--find-links",
                 str(wheelhouse), "--no-index", "--out-dir", str(tmp_path / "out"),
                 env={"HOME": None, "XDG_CACHE_HOME": None, "JITBENCH_ENV_CACHE": None})
    assert res.returncode == 2 and "set JITBENCH_ENV_CACHE" in res.stderr, res.stderr


@pytest.mark.heavy("uv environments")
def test_5_a_foreign_or_open_cache_and_a_record_pointing_elsewhere_are_refused(wheelhouse, workload, tmp_path):
    import os
    import shutil
    if os.getuid() != 0:
        pytest.skip("needs root to give a directory to another user (CI and scripts/test.sh run as root)")
    common = [*CASE, "--workload-path", str(workload), "--env", "e:numpy", "--find-links", str(wheelhouse),
              "--no-index", "-q"]

    def run(cache, out):
        res = run_in(tmp_path, "run", *common, "--out-dir", str(tmp_path / out), env={"JITBENCH_ENV_CACHE": str(cache)})
        return res, env_records(tmp_path / out).get("e", {})

    foreign = tmp_path / "foreign"
    foreign.mkdir()
    shutil.chown(foreign, user="nobody")
    res, e = run(foreign, "o1")
    assert not e["ok"] and "belongs to another user" in e["reason"], (e, res.stderr)
    open_cache = tmp_path / "open"
    open_cache.mkdir()
    open_cache.chmod(0o777)
    res, e = run(open_cache, "o2")
    assert not e["ok"] and "writable by every user" in e["reason"], (e, res.stderr)

    cache = tmp_path / "cache"
    res, e = run(cache, "o3")
    assert e["ok"] and not e["build"]["reused"], (e, res.stderr)
    record_path = pathlib.Path(e["build"]["dir"]) / ".jitbench-env.json"
    record = json.loads(record_path.read_text())
    marker = tmp_path / "the-planted-script-ran"
    script = tmp_path / "planted.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\nexec {record['python']} \"$@\"\n")
    script.chmod(0o755)
    record["python"] = str(script)
    record_path.write_text(json.dumps(record))
    res, e = run(cache, "o4")
    assert e["ok"] and not e["build"]["reused"], (e, res.stderr)  # rebuilt, its own interpreter again
    assert not marker.exists()
    record_path.write_text("{not json")  # a corrupted record is rebuilt too, never a silent failure
    res, e = run(cache, "o5")
    assert e["ok"] and not e["build"]["reused"], (e, res.stderr)


# 7. Relative paths never enter the environment cache: what find-links hold is hashed, not their name.
@pytest.mark.heavy("uv environments")
def test_7_find_links_are_hashed_by_what_they_hold_and_paths_are_absolute(workload, tmp_path):
    for who in ("a", "b"):
        wheels = tmp_path / who / "wheels"
        wheels.mkdir(parents=True)
        wheel(wheels, "patchme", "1.0", {"patchme/__init__.py": f"WHO = {who!r}\n"})
        link_numpy_wheels(wheels)
    runs = {}
    for who in ("a", "b"):
        res = run_in(tmp_path / who, "run", *CASE, "--workload-path", str(workload), "--env", "p:patchme==1.0",
                     "--find-links", "wheels", "--no-index", "--out-dir", "out", "-q",
                     env={"JITBENCH_ENV_CACHE": "../cache"})  # relative, from each project's directory
        assert res.returncode == 0, res.stderr
        runs[who] = env_records(tmp_path / who / "out")["p"]["build"]
    assert runs["a"]["hash"] != runs["b"]["hash"] and not runs["b"]["reused"]
    for b in runs.values():
        assert pathlib.Path(b["python"]).is_absolute() and pathlib.Path(b["dir"]).is_absolute()
        assert all(pathlib.Path(f).is_absolute() for f in b["find_links"])
    # The same wheels in a folder moved elsewhere: the same environment.
    (tmp_path / "a" / "wheels").rename(tmp_path / "moved")
    res = run_in(tmp_path, "run", *CASE, "--workload-path", str(workload), "--env", "p:patchme==1.0",
                 "--find-links", "moved", "--no-index", "--out-dir", "again", "-q",
                 env={"JITBENCH_ENV_CACHE": "cache"})
    assert res.returncode == 0, res.stderr
    again = env_records(tmp_path / "again")["p"]["build"]
    assert again["hash"] == runs["a"]["hash"] and again["reused"]


# 11. --env (and bisect) replace a suite's environments, its blocks' lists too: the suite still plans.
def test_11_env_replaces_the_environments_a_suites_blocks_name(jitbench):
    releases = str(ROOT / "suites" / "releases.toml")
    res = jitbench("plan", "--suite", releases, "--backends", "jax_jit_cpu", "--env", "x:jax==0.5.0")
    assert res.rc == 0, res.stderr
    cases = [ln.split()[0] for ln in res.stdout.splitlines() if not ln.startswith("#")]
    assert cases and all(c.endswith("__env-x") for c in cases), cases
    alone = jitbench("plan", "--suite", releases, "--backends", "jax_jit_cpu")
    assert {c.split("__env-")[0] for c in cases} == {ln.split()[0].split("__env-")[0]
                                                     for ln in alone.stdout.splitlines() if not ln.startswith("#")}


def test_11_without_env_each_block_runs_in_the_environments_it_names(jitbench):
    """suites/releases.toml: the JAX blocks name JAX environments, the numba
    blocks numba ones; without --env no case is planned in the other's (they
    were, as warn / missing_dependency, when the suite's own environments were
    taken for a replacement)."""
    res = jitbench("plan", "--suite", str(ROOT / "suites" / "releases.toml"))
    assert res.rc == 0, res.stderr
    cases = [ln.split()[0] for ln in res.stdout.splitlines() if ln.strip() and not ln.startswith("#")]
    jax = [c for c in cases if c.startswith("jax_jit_cpu_")]
    numba = [c for c in cases if c.startswith("numba_")]
    assert jax and numba and len(jax) + len(numba) == len(cases), cases
    assert all("__env-jax-" in c for c in jax), [c for c in jax if "__env-jax-" not in c]
    assert all("__env-numba-" in c for c in numba), [c for c in numba if "__env-numba-" not in c]


# 8. A signal during an environment's build leaves its cases unmeasured: --resume measures them,
#    and a resumed run stopped so keeps the cases it had.
@pytest.mark.heavy("uv environments")
def test_8_an_interrupted_environment_build_is_measured_on_resume(wheelhouse, workload, tmp_path):
    import os
    import shutil
    import signal
    import subprocess
    import time
    from conftest import JITBENCH
    slow = tmp_path / "slow-uv"  # a uv that says it started, then waits: the signal lands inside the build
    slow.mkdir()
    started = tmp_path / "uv-started"
    real_uv = shutil.which("uv", path=str(ROOT / ".venv" / "bin")) or shutil.which("uv")
    (slow / "uv").write_text(f"#!/bin/sh\ntouch {started}\nsleep 3\nexec {real_uv} \"$@\"\n")
    (slow / "uv").chmod(0o755)
    env = dict(os.environ, JITBENCH_ENV_CACHE=str(tmp_path / "cache"), PATH=f"{slow}:{os.environ['PATH']}")
    out = tmp_path / "out"
    two = [*CASE[:1], "doubled_8_f64,doubled_16_f64", *CASE[2:]]

    def interrupted_while_building(*argv):
        started.unlink(missing_ok=True)
        proc = subprocess.Popen([str(JITBENCH), *argv], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        deadline = time.time() + 120
        while not started.exists() and time.time() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, "the environment was built before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + signal.SIGINT, err
        assert "interrupted while building the environments" in err
        return json.loads((out / "index.json").read_text())

    index = interrupted_while_building("run", *two, "--workload-path", str(workload), "--env", "e:numpy",
                                       "--find-links", str(wheelhouse), "--no-index", "--out-dir", str(out))
    assert index["cases"] == [] and index["stopped"]["reason"] == "interrupted"
    reason = {e["name"]: e for e in index.get("environments", [])}["e"]["reason"] or ""
    assert "interrupted" in reason and "timed_out" not in reason

    # Resumed without the slow uv, stopped after its first case; resumed again, stopped in the rebuild.
    proc = subprocess.Popen([str(JITBENCH), "run", "--resume", str(out)], env=dict(env, PATH=os.environ["PATH"]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        try:
            if len(json.loads((out / "index.json").read_text())["cases"]) == 1:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    kept = [c["case"] for c in json.loads((out / "index.json").read_text())["cases"] if c["status"] == "ok"]
    assert kept, "no case was measured before the signal"
    shutil.rmtree(tmp_path / "cache")  # the rebuild must happen again
    index = interrupted_while_building("run", "--resume", str(out))
    assert [c["case"] for c in index["cases"]] == kept  # kept as they were; the rest not recorded as failures

    res = subprocess.run([str(JITBENCH), "run", "--resume", str(out)], env=dict(env, PATH=os.environ["PATH"]),
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    index = json.loads((out / "index.json").read_text())
    assert [c["status"] for c in index["cases"]] == ["ok", "ok"] and index["complete"]


# 9. merge keeps a pinned-environment run whole: its environments, inputs and cwd.
@pytest.mark.heavy("uv environments")
def test_9_merge_keeps_the_environments_inputs_and_cwd_of_its_shards(jitbench, wheelhouse, workload, tmp_path):
    import statistics
    common = ["run", *CASE, "--workload-path", str(workload), "--env", "a:numpy", "--env", "b:numpy",
              "--env-var", "b:JITBENCH_EXAMPLE=1", "--find-links", str(wheelhouse), "--no-index", "-q"]
    env = {"JITBENCH_ENV_CACHE": str(tmp_path / "cache")}
    shards = [tmp_path / f"s{k}" for k in (1, 2)]
    for k, d in enumerate(shards, 1):
        res = run_in(tmp_path, *common, "--shard", f"{k}/2", "--out-dir", str(d), env=env)
        assert res.returncode == 0, res.stderr
    merged = tmp_path / "merged"
    res = jitbench("merge", str(merged), *map(str, shards), out=False)
    assert res.rc == 0, res.stderr
    assert jitbench("validate", str(merged), out=False).rc == 0
    index = json.loads((merged / "index.json").read_text())
    assert sorted(e["name"] for e in index["environments"]) == ["a", "b"]
    assert index["cwd"] == str(tmp_path) and index["inputs"][0]["path"].startswith("inputs/")
    assert (merged / index["inputs"][0]["path"]).read_bytes() == (shards[0] / index["inputs"][0]["path"]).read_bytes()
    for c in index["cases"]:
        name = c["case"].rsplit("__env-", 1)[1]
        assert c["environment"] == f"environments/env-{name}.json" and (merged / c["environment"]).is_file()
        source = next(d for d in shards if (d / c["path"]).exists())
        assert (merged / c["path"]).read_bytes() == (source / c["path"]).read_bytes(), c["case"]
    analysis = json.loads((merged / "analysis.json").read_text())
    for a in analysis["cases"]:  # recomputed from the case files the shards wrote
        case = json.loads((merged / "cases" / f"{a['case']}.json").read_text())
        firsts = [r["first_call_s"] for r in case["cold"]["runs"] if r["status"] == "ok"]
        assert a["first_call"]["median_s"] == pytest.approx(statistics.median(firsts), rel=1e-12)
    assert "environments" in (merged / "summary.md").read_text().lower()

    # The same name, another build in one shard: refused.
    other = tmp_path / "other"
    res = run_in(tmp_path, "run", *CASE, "--workload-path", str(workload), "--env", "a:numpy", "--env", "b:numpy",
                 "--env-var", "b:JITBENCH_EXAMPLE=1", "--find-links", str(wheelhouse), "--no-index", "-q",
                 "--shard", "2/2", "--out-dir", str(other), env={"JITBENCH_ENV_CACHE": str(tmp_path / "cache2")})
    assert res.returncode == 0, res.stderr
    idx = json.loads((other / "index.json").read_text())
    first_a = json.loads((shards[0] / "index.json").read_text())["environments"][0]
    for change in ({"variables": {"FOO": "1"}}, {"build": dict(first_a["build"], hash="0" * 16)}):
        edited = json.loads(json.dumps(idx))
        edited["environments"] = [dict(first_a, **change)]  # shard 2 names shard 1's environment, made otherwise
        (other / "index.json").write_text(json.dumps(edited, indent=2) + "\n")
        res = jitbench("merge", str(tmp_path / "m2"), str(shards[0]), str(other), out=False)
        assert res.rc == 2 and "environment 'a' is not the same" in res.stderr, res.stderr


FLAKY = """import os, time
# Slow for the first {slow} imports only (a counter file per release; every
# release does the same file work): a release that looks bad once, by noise.
path = os.environ.get("FLAKY_COUNTER", "") and os.environ["FLAKY_COUNTER"] + "-{version}"
n = int(open(path).read() or 0) if path and os.path.exists(path) else 0
if path:
    open(path, "w").write(str(n + 1))
time.sleep(0.5 if n < {slow} else 0.1)  # a base of 0.1 s: timer noise stays small against it
"""


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """slowimp 1.0 (0.1 s), 1.1 (0.5 s for its first 6 imports, then 0.1 s), 1.2 and 1.3 (0.5 s), numpy's wheel."""
    d = tmp_path_factory.mktemp("releases")
    for v, slow in (("1.0", 0), ("1.1", 6), ("1.2", 10**9), ("1.3", 10**9)):
        wheel(d, "slowimp", v, {"slowimp/__init__.py": FLAKY.format(slow=slow, version=v)})
    link_numpy_wheels(d)
    return d


def slow_workload(tmp_path):
    path = tmp_path / "w" / "doubled.py"
    path.parent.mkdir()
    path.write_text(WORKLOAD.replace("    return lambda x: x * 2", "    import slowimp  # noqa: F401\n"
                                                                   "    return lambda x: x * 2"))
    return path


def bisect_releases(jitbench, releases, tmp_path, good, bad, cold_runs, counter=""):
    out = tmp_path / "bisect"
    res = jitbench("bisect", "--package", "slowimp", "--good", good, "--bad", bad, "--metric", "ttfr",
                   "--threshold", "20", "--cases", "doubled_8_f64", "--backends", "numpy", "--cold-runs",
                   str(cold_runs), "--warm-iters", "2", "--workload-path", str(slow_workload(tmp_path)),
                   "--find-links", str(releases), "--no-index", "--out-dir", str(out),
                   env={"JITBENCH_ENV_CACHE": str(tmp_path / "cache"), "FLAKY_COUNTER": counter}, out=False,
                   timeout=1200)
    assert res.rc == 0, res.stderr
    doc = json.loads((out / "bisect.json").read_text())
    from conftest import validate
    validate(doc, "jitbench.bisect.v5")
    return res, doc


# 12. A boundary not confirmed is measured again, then given up, and the search goes on.
@pytest.mark.heavy("uv environments")
def test_12_a_release_bad_by_noise_is_overturned_and_the_search_goes_on(jitbench, releases, tmp_path):
    counter = tmp_path / "imports-of-1.1"
    res, doc = bisect_releases(jitbench, releases, tmp_path, "1.0", "1.3", 5, str(counter))
    first = [s for s in doc["steps"] if s["version"] == "1.1"][0]
    assert first["role"] == "step" and first["verdict"] == "bad"  # the noise: 1.1 looked bad once
    assert doc["result"]["overturned"] == ["1.1"], doc["result"]
    assert doc["result"]["status"] == "found", doc["result"]
    assert (doc["result"]["first_bad"], doc["result"]["last_good"]) == ("1.2", "1.1")
    assert "remeasure" in {s["role"] for s in doc["steps"]}


# 12. Ends too few to decide say inconclusive and how many runs more, never "no regression".
@pytest.mark.heavy("uv environments")
def test_12_underpowered_ends_are_inconclusive_not_no_regression(jitbench, releases, tmp_path):
    res, doc = bisect_releases(jitbench, releases, tmp_path, "1.0", "1.2", 3)
    assert doc["result"]["status"] == "inconclusive", doc["result"]
    more = doc["result"]["more_runs_needed"]
    assert f"about {more} more runs per end needed, {3 + more} in all (--cold-runs {3 + more};" in res.stdout, res.stdout
    assert "no regression" not in res.stdout


# 15. The builder's own words reach the reason; a reused environment carries this run's name.
def test_15_the_builders_reason_is_kept_and_a_reused_build_is_named_as_asked(wheelhouse, workload, tmp_path):
    common = ["run", *CASE, "--workload-path", str(workload), "--find-links", str(wheelhouse), "--no-index", "-q"]
    res = run_in(tmp_path, *common, "--env", "e:numpy", "--out-dir", "o1", env={"JITBENCH_ENV_CACHE": "/dev/null"})
    e = env_records(tmp_path / "o1")["e"]
    assert not e["ok"] and "is not a directory" in e["reason"] and "gave no answer" not in e["reason"], e
    cache = {"JITBENCH_ENV_CACHE": str(tmp_path / "cache")}
    assert run_in(tmp_path, *common, "--env", "first:numpy", "--out-dir", "o2", env=cache).returncode == 0
    res = run_in(tmp_path, *common, "--env", "second:numpy", "--out-dir", "o3", env=cache)
    assert res.returncode == 0, res.stderr
    b = env_records(tmp_path / "o3")["second"]["build"]
    assert b["reused"] and b["name"] == "second"


def test_7_a_find_links_directory_that_is_not_there_is_said(workload, tmp_path):
    res = run_in(tmp_path, "run", *CASE, "--workload-path", str(workload), "--env", "p:numpy", "--find-links",
                 "no-such-wheels", "--no-index", "--out-dir", "out", "-q", env={"JITBENCH_ENV_CACHE": "cache"})
    e = env_records(tmp_path / "out")["p"]
    assert not e["ok"] and f"--find-links {tmp_path / 'no-such-wheels'} is not a directory" in e["reason"], e


def test_15_a_workload_file_that_hangs_at_plan_time_says_it_timed_out(jitbench, tmp_path):
    path = tmp_path / "doubled.py"
    path.write_text("import time\ntime.sleep(60)\n" + WORKLOAD)
    res = jitbench("plan", "--workload-path", str(path), "--cases", "doubled_8_f64", "--backends", "numpy",
                   env={"JITBENCH_WORKLOAD_LOAD_TIMEOUT_S": "2"}, timeout=60)
    assert "loading it timed out after 2 s" in res.stderr, res.stderr
    bad = jitbench("plan", "--workload-path", str(path), "--cases", "doubled_8_f64", "--backends", "numpy",
                   env={"JITBENCH_WORKLOAD_LOAD_TIMEOUT_S": "soon"})
    assert bad.rc == 2 and "give whole seconds" in bad.stderr
