"""`jitbench envs list|rm|prune`: the environment cache in the user's hands.

One environment is built for real (offline: the hand-made wheels of
test_environments.py and numpy's from .deps/wheels) and used by a run, which
records its use; the others are crafted as the builder leaves them (its made
mark, its record, its uses), which is cheap. Nothing jitbench did not make,
and nothing in use, is ever removed."""

import fcntl
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from conftest import JITBENCH, ROOT, validate
from test_environments import WORKLOAD, link_numpy_wheels, wheel

sys.path.insert(0, str(ROOT / "worker"))
from jitbench_worker.harness import envs as builder  # noqa: E402  (the hash rule the binary asks it for)

pytestmark = pytest.mark.quick


def record_of(name):
    """As the builder writes it: every field the hash is computed from."""
    return {"name": name, "requirements": [f"{name}pkg==1.0"], "exclude_newer": "2025-01-02T00:00:00Z",
            "spec_python": "", "find_links": [], "no_index": False}


def uv():
    return shutil.which("uv") or str(pathlib.Path(sys.executable).parent / "uv")


# Named as this jitbench names them: the hash of what each record says it was built from.
HASHES = {n: builder.current_hash(record_of(n), builder.run([uv(), "--version"]).strip())
          for n in ("old", "mid", "new")}
WHEN = {"old": "2020-01-01T00:00:00Z", "mid": "2024-06-01T00:00:00Z", "new": "2026-01-01T00:00:00Z"}
MB = 1 << 20


def envs(cache, *args, check=None):
    p = subprocess.run([str(JITBENCH), "envs", *args], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, JITBENCH_ENV_CACHE=str(cache)), stdin=subprocess.DEVNULL)
    if check is not None:
        assert p.returncode == check, (p.stdout, p.stderr)
    return p


def crafted(cache, name, size=MB, marked=True):
    """An environment as the builder leaves it, last used at WHEN[name]."""
    cache.mkdir(exist_ok=True)
    (cache / ".jitbench-env-cache").write_text("jitbench's environment cache\n")
    d = cache / HASHES[name]
    (d / "lib").mkdir(parents=True)
    if marked:
        (d / ".jitbench-env-made").write_text("made\n")
        (d / ".jitbench-env.json").write_text(json.dumps(record_of(name)))
        (d / ".jitbench-env-uses").write_text(f"{WHEN[name]}\t{name}\t/runs/{name}\n")
    (d / "lib" / "payload.so").write_bytes(b"x" * size)
    return d


def listed(cache):
    p = envs(cache, "list", "--json", check=0)
    doc = json.loads(p.stdout)
    validate(doc, "jitbench.envs.v1")
    return doc


@pytest.fixture
def three(tmp_path):
    cache = tmp_path / "cache"
    for n in HASHES:
        crafted(cache, n)
    return cache


def test_list_shows_each_environment_most_recently_used_first(three):
    doc = listed(three)
    assert doc["made_by_jitbench"] and doc["foreign"] == []
    assert [e["name"] for e in doc["environments"]] == ["new", "mid", "old"]
    old = doc["environments"][2]
    assert old["requirements"] == ["oldpkg==1.0"] and old["held"] == "2025-01-02T00:00:00Z"
    assert old["last_used"] == WHEN["old"] and old["runs"] == ["/runs/old"]
    assert MB <= old["bytes"] < MB + 4096 and old["in_use"] is False
    text = envs(three, "list", check=0).stdout
    assert "oldpkg==1.0" in text and WHEN["old"] in text and "3 environments" in text


def test_hard_linked_files_are_counted_once(three):
    before = listed(three)["total_bytes"]
    lib = three / HASHES["new"] / "lib"
    os.link(lib / "payload.so", three / HASHES["old"] / "lib" / "linked.so")  # as uv links from its cache
    os.link(lib / "payload.so", lib / "again.so")
    doc = listed(three)
    assert doc["total_bytes"] == before, "a file linked from two places was counted twice"
    by = {e["name"]: e for e in doc["environments"]}
    assert MB <= by["new"]["bytes"] < MB + 4096
    assert by["new"]["freed_bytes"] < 4096, "a file another environment links to is not freed by removing one"
    assert MB <= by["mid"]["freed_bytes"]


def test_rm_by_name_and_by_hash(three):
    p = envs(three, "rm", "mid", check=0)
    assert HASHES["mid"] in p.stdout and not (three / HASHES["mid"]).exists()
    envs(three, "rm", HASHES["old"][:8], check=0)
    assert [e["name"] for e in listed(three)["environments"]] == ["new"]
    p = envs(three, "rm", "nosuch", check=2)
    assert len(p.stderr.strip().splitlines()) == 1 and "envs list" in p.stderr


def test_rm_refuses_a_directory_jitbench_did_not_make(three):
    mine = three / "my-venv"
    mine.mkdir()
    (mine / "precious").write_text("mine")
    shutil.rmtree(three / HASHES["old"])
    unmarked = crafted(three, "old", marked=False)  # named like an environment, no mark and no record
    doc = listed(three)
    assert sorted(doc["foreign"]) == sorted(["my-venv", HASHES["old"]])
    for target in ("my-venv", HASHES["old"]):
        p = envs(three, "rm", target, check=2)
        assert "not made by jitbench" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    envs(three, "prune", "--older-than", "0", check=0)
    assert (mine / "precious").read_text() == "mine" and unmarked.exists()


def test_a_root_jitbench_did_not_make_is_left_alone(tmp_path):
    root = tmp_path / "somewhere"
    crafted(root, "old")
    (root / ".jitbench-env-cache").unlink()
    doc = listed(root)
    assert not doc["made_by_jitbench"] and doc["environments"] == []
    envs(root, "rm", HASHES["old"], check=2)
    envs(root, "prune", "--older-than", "0", check=2)
    assert (root / HASHES["old"] / "lib" / "payload.so").exists()


def test_rm_and_prune_refuse_an_environment_in_use(three):
    with open(three / (HASHES["old"] + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_SH)  # as a run holds the environment it measures in
        assert {e["name"]: e["in_use"] for e in listed(three)["environments"]} == {"new": False, "mid": False,
                                                                                   "old": True}
        p = envs(three, "rm", "old", check=2)
        assert "in use" in p.stderr
        p = envs(three, "prune", "--older-than", "0", check=0)
        assert "1 in use left alone" in p.stdout
        assert (three / HASHES["old"]).exists() and not (three / HASHES["mid"]).exists()


def test_prune_older_than_and_max_size_take_the_least_recently_used_first(three):
    p = envs(three, "prune", "--older-than", "365", "--dry-run", check=0)
    assert "would remove" in p.stdout and all((three / h).exists() for h in HASHES.values())
    envs(three, "prune", "--older-than", "365", check=0)  # old (2020) and mid (2024); new (2026-01) stays
    assert [e["name"] for e in listed(three)["environments"]] == ["new"]
    for n in ("old", "mid"):
        crafted(three, n)
    envs(three, "prune", "--max-size", str(2.5 * MB / 1e9), check=0)  # room for two: the oldest goes
    assert [e["name"] for e in listed(three)["environments"]] == ["new", "mid"]


def test_records_without_the_specs_python_are_kept_by_prune(three):
    """A record from before the spec's Python was kept: its hash is unknown, not stale."""
    for n in ("old", "mid"):
        path = three / HASHES[n] / ".jitbench-env.json"
        record = json.loads(path.read_text())
        del record["spec_python"]
        path.write_text(json.dumps(record))
    by = {e["name"]: e["current"] for e in listed(three)["environments"]}
    assert by == {"old": None, "mid": None, "new": True}
    envs(three, "prune", "--stale", check=0)
    assert sorted(e["name"] for e in listed(three)["environments"]) == ["mid", "new", "old"]


def test_an_ambiguous_prefix_is_refused(three):
    (three / (HASHES["old"][:4] + "0" * 12)).mkdir()  # shares old's first 4 characters
    twin = three / (HASHES["old"][:4] + "0" * 12)
    (twin / ".jitbench-env-made").write_text("made\n")
    p = envs(three, "rm", HASHES["old"][:4], check=2)
    assert "names 2 environments" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert (three / HASHES["old"]).exists() and twin.exists()


def test_rm_does_not_ask_the_builder_for_hashes(three, tmp_path):
    """Only list and prune need the hashes; rm works with no Python worker to ask."""
    env = dict(os.environ, JITBENCH_ENV_CACHE=str(three), TMPDIR=str(tmp_path / "no-tmp"))  # TMPDIR is not there
    run = lambda *a: subprocess.run([str(JITBENCH), "envs", *a], capture_output=True, text=True, timeout=60, env=env,
                                    stdin=subprocess.DEVNULL)
    p = run("list")  # asks the builder, its log under $TMPDIR: refused, saying so
    assert p.returncode == 2 and "TMPDIR" in p.stderr, p.stderr
    p = run("rm", "old")  # asks nothing
    assert p.returncode == 0, p.stderr
    assert not (three / HASHES["old"]).exists()


def test_rm_leaves_data_a_symbolic_link_inside_points_to(three, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "precious").write_text("mine")
    os.symlink(data, three / HASHES["old"] / "lib" / "data-link")
    envs(three, "rm", "old", check=0)
    assert not (three / HASHES["old"]).exists() and (data / "precious").read_text() == "mine"


def test_prune_exits_2_when_a_removal_fails(three):
    old, lib = three / HASHES["old"], three / HASHES["old"] / "lib"
    if os.geteuid() == 0:
        os.chown(old, 12345, 12345)  # another user's: refused
    else:
        lib.chmod(0o555)  # its payload cannot be unlinked
    try:
        p = envs(three, "prune", "--older-than", "365", check=2)
        assert "could not be removed" in p.stderr
        assert not (three / HASHES["mid"]).exists()  # the others still go
    finally:
        lib.chmod(0o755)
        os.chown(old, os.getuid(), os.getgid()) if os.geteuid() == 0 else None


def test_prune_removes_half_built_ones(three):
    (three / HASHES["mid"] / ".jitbench-env.json").unlink()  # a builder died before its record
    assert [e["complete"] for e in listed(three)["environments"]] == [True, False, True]
    envs(three, "prune", check=0)
    assert sorted(e["name"] for e in listed(three)["environments"]) == ["new", "old"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One environment built for real and used by a run."""
    d = tmp_path_factory.mktemp("envs-real")
    wheels = d / "wheels"
    wheels.mkdir()
    wheel(wheels, "slowimp", "1.0", {"slowimp/__init__.py": "__version__ = '1.0'\n"})
    link_numpy_wheels(wheels)
    (d / "slow_import.py").write_text(WORKLOAD)
    cache, out = d / "cache", d / "out"
    p = subprocess.run([str(JITBENCH), "run", "--cases", "slow_import_8_f64", "--backends", "numpy", "--cold-runs",
                        "1", "--warm-iters", "1", "--env", "one:slowimp==1.0", "--workload-path",
                        str(d / "slow_import.py"), "--find-links", str(wheels), "--no-index", "--out-dir", str(out)],
                       capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL,
                       env=dict(os.environ, JITBENCH_ENV_CACHE=str(cache), JITBENCH_TICK_S="0.05"))
    assert p.returncode == 0, p.stderr
    return cache, out, p.stderr


@pytest.mark.heavy("uv environment")
def test_a_run_records_its_use_and_its_hash_is_current(built):
    cache, out, _ = built
    doc = listed(cache)
    [e] = doc["environments"]
    assert e["name"] == "one" and e["complete"] and e["current"] is True and not e["in_use"]
    assert e["runs"] == [str(out)] and e["last_used"]
    assert e["requirements"] == ["slowimp==1.0"]
    assert (pathlib.Path(e["dir"]) / ".jitbench-env-made").exists()


@pytest.mark.heavy("uv environment")
def test_an_environment_no_current_jitbench_computes_is_pruned(built, tmp_path):
    cache, _, _ = built
    copy = tmp_path / "cache"
    subprocess.run(["cp", "-a", str(cache), str(copy)], check=True)
    [e] = listed(copy)["environments"]
    record_path = copy / e["hash"] / ".jitbench-env.json"
    record = json.loads(record_path.read_text())
    record["requirements"] = ["slowimp==0.9"]  # as an earlier hashing rule or uv would have left it
    record_path.write_text(json.dumps(record))
    [stale] = listed(copy)["environments"]
    assert stale["current"] is False
    envs(copy, "prune", check=0)  # without --stale a stale hash alone removes nothing
    assert len(listed(copy)["environments"]) == 1
    envs(copy, "prune", "--stale", check=0)
    assert listed(copy)["environments"] == []


@pytest.mark.heavy("uv environment")
def test_an_environment_whose_find_links_dir_is_gone_is_kept(built, tmp_path):
    """Its hash cannot be computed (unknown, not stale): prune, even --stale, keeps it."""
    cache, _, _ = built
    copy = tmp_path / "cache"
    subprocess.run(["cp", "-a", str(cache), str(copy)], check=True)
    [e] = listed(copy)["environments"]
    record_path = copy / e["hash"] / ".jitbench-env.json"
    record = json.loads(record_path.read_text())
    record["find_links"] = [str(tmp_path / "wheels-gone")]
    record_path.write_text(json.dumps(record))
    [unknown] = listed(copy)["environments"]
    assert unknown["current"] is None
    envs(copy, "prune", "--stale", check=0)
    assert len(listed(copy)["environments"]) == 1


@pytest.mark.heavy("uv environment")
def test_an_environment_build_shows_progress_with_the_time_elapsed(built):
    _, _, stderr = built
    assert "jitbench: environment one (1 of 1): slowimp==1.0" in stderr
    assert re.search(r"jitbench: environment one: building or checking .* · elapsed \d+ s", stderr), stderr


@pytest.mark.heavy("uv environment")
def test_a_run_holds_its_environment_until_it_exits(built, tmp_path):
    """While a run measures in an environment, rm refuses it and prune passes
    it by (the run holds its lock); once the run has exited, it is free."""
    import time
    cache, out, _ = built
    wheels = out.parent / "wheels"
    slow = tmp_path / "slow_import.py"  # the same workload, each process a second longer
    slow.write_text(WORKLOAD.replace("def make_inputs(n, dtype, seed):\n",
                                     "def make_inputs(n, dtype, seed):\n    import time; time.sleep(1)\n"))
    run = subprocess.Popen([str(JITBENCH), "run", "--cases", "slow_import_8_f64", "--backends", "numpy",
                            "--cold-runs", "4", "--warm-iters", "1", "--env", "one:slowimp==1.0", "--workload-path",
                            str(slow), "--find-links", str(wheels), "--no-index", "--out-dir", str(tmp_path / "o"),
                            "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, JITBENCH_ENV_CACHE=str(cache)), stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not listed(cache)["environments"][0]["in_use"]:
            assert run.poll() is None, run.stderr.read()
            time.sleep(0.2)
        assert listed(cache)["environments"][0]["in_use"]
        p = envs(cache, "rm", "one", check=2)
        assert "in use" in p.stderr
        assert "in use left alone" in envs(cache, "prune", "--older-than", "0", "--dry-run", check=0).stdout
    finally:
        assert run.wait(timeout=300) == 0, run.stderr.read()
    [e] = listed(cache)["environments"]
    assert not e["in_use"] and e["runs"][-1] == str(tmp_path / "o")


def test_rm_of_a_foreign_entry_never_removes_an_environment_a_run_named_so(three):
    # Issue 49, defect 6: `envs rm cccc...` (an entry jitbench did not make)
    # matched a use line's name of another environment and removed that one.
    foreign = three / ("c" * 16)
    foreign.mkdir()
    (foreign / "precious").write_text("mine")
    with open(three / HASHES["mid"] / ".jitbench-env-uses", "a") as f:
        f.write(f"{WHEN['new']}\t{'c' * 16}\t/runs/x\n")
    p = envs(three, "rm", "c" * 16, check=2)
    assert "not made by jitbench" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert (three / HASHES["mid"]).exists() and (foreign / "precious").read_text() == "mine"


@pytest.mark.parametrize("how", ["world_writable_root", "linked_root", "world_writable_env"])
def test_rm_and_prune_refuse_what_the_builder_refuses(three, tmp_path, how):
    # Issue 49, defect 17: envs rm/prune removed in a world-writable root,
    # through a symlinked root and in a world-writable environment, which the
    # builder refuses to use (envs.py, check_owned): one rule for both.
    cache = three
    if how == "world_writable_root":
        three.chmod(0o777)
    elif how == "linked_root":
        cache = tmp_path / "linked"
        os.symlink(three, cache)
    else:
        (three / HASHES["old"]).chmod(0o777)
    target = three / HASHES["old"]
    for argv in (["rm", "old"], ["prune", "--older-than", "0"]):
        p = envs(cache, *argv)
        assert p.returncode == (13 if how == "linked_root" else 2), (p.stdout, p.stderr)
        assert target.exists() and (target / "lib" / "payload.so").exists()
    with pytest.raises(builder.Unbuildable):  # the builder's rule, which this one is
        builder.check_owned(str(cache if how != "world_writable_env" else target),
                            "environment cache" if how != "world_writable_env" else "environment")
