"""Links planted everywhere a command writes (issue 49, "close the kinds"): for
each command that writes into a directory that already exists (report, sign,
publish into a site, run --resume), the paths it writes in a clean run are
collected; then, on a fresh copy of what it started from, each of those
paths and every directory above it (below the root) is replaced by a
symbolic link to a directory outside, and the command runs again. It either
refuses with one line (exit 13 naming the link it would write through, or 2
where what it reads first is a link, no longer valid, or a name taken) or
succeeds having replaced the link with a file of its own (a file written to
a temporary and renamed over it); in no case does anything outside change.
Commands that write into a new or empty directory (run, measure, noise,
compare --remeasure, merge, replicate, bisect) cannot find a link planted
inside it before they start; their outputs put inside their inputs are
refused (test_nothing_lost.py). A link can still be planted while they run,
once a slow process of theirs has started (attack_mid_run):
- `run` (the second of two cases measuring) at its case file, reference,
  log directory, index, summary and `cases/`;
- `measure` (a user module that sleeps at import; the real worker, numpy
  only) at `cases/` and `index.json`;
- `noise` at side b's `cases/` while side a measures, and at `noise.json`;
- `compare --remeasure D` at `D/new/cases` while `D/base` measures;
- `replicate` at `replication/` while the replica measures.
- `bisect` (uv environments of three fake releases: the heavy tier) at
  `steps/` while its first step measures, at the next step's directory and
  at `logs/` (bisect.json is written through the door as every command's
  files are: `run`'s index above).
Too quick to catch mid-run, attacked before they run at every path they
write or remove (plant_everywhere): `merge` (below an OUT that exists and is
empty, and OUT itself: each refused, OUT no longer empty), `envs rm` and
`envs prune` (every path below the cache they remove or write).
Fake workers but for measure."""

import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import FAKE_WORKER_DIR, JITBENCH
from test_links import CASES, outside_dir, sh, snapshot, stop_while_starting

pytestmark = pytest.mark.quick


def written(before, after, removed=False):
    """The paths (relative) that a command made or changed (and, with removed, those it
    removed), with every directory above each."""
    out = set()
    gone = {rel: None for rel in before if rel not in after} if removed else {}
    for rel, value in {**after, **gone}.items():
        if rel == "." or (rel in after and before.get(rel) == value):
            continue
        parts = rel.split(os.sep)
        out.update(os.sep.join(parts[:i]) for i in range(1, len(parts) + 1))
    return sorted(out)


def lock_free(tree):
    """A snapshot that leaves out the lock file, which every command opens (and may create) in place."""
    return {k: v for k, v in snapshot(tree).items() if not k.endswith(".jitbench.lock")}


def plant_link(victim, outside):
    """victim (a file, a directory with what it holds, or nothing yet) replaced by a symbolic link to outside;
    the directories above it made where missing (each a target of its own). Returns victim."""
    if victim.is_dir() and not victim.is_symlink():
        shutil.rmtree(victim)
    elif victim.exists() or victim.is_symlink():
        victim.unlink()
    victim.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, victim)
    return victim


def plant_everywhere(tmp_path, template, command, removed=False):
    """command(root) run on a copy of template, then once more per written (or, with removed,
    removed) path with that path a link outside."""
    clean = tmp_path / "clean"
    shutil.copytree(template, clean, symlinks=True)
    before = lock_free(clean)
    r = command(clean)
    assert r.returncode == 0, r.stderr
    targets = written(before, lock_free(clean), removed)
    assert targets, "the command wrote nothing: nothing to plant"
    for i, rel in enumerate(targets):
        root = tmp_path / f"planted{i}"
        shutil.copytree(template, root, symlinks=True)
        (tmp_path / f"o{i}").mkdir()
        outside = outside_dir(tmp_path / f"o{i}")
        keep = snapshot(outside)
        victim = plant_link(root / rel, outside)
        r = command(root)
        assert snapshot(outside) == keep, f"{rel}: written through the link"
        if r.returncode != 0:
            # A slow step's progress ticker ("... · elapsed 10 s") may come first on a loaded machine.
            lines = [ln for ln in r.stderr.strip().splitlines() if " · elapsed " not in ln]
            assert r.returncode in (2, 13) and len(lines) == 1, f"{rel}: exit {r.returncode}: {r.stderr}"
            assert r.returncode != 13 or "symbolic link" in r.stderr, f"{rel}: {r.stderr}"
        elif not removed:  # the link was replaced by the command's own file, never followed
            assert not victim.is_symlink(), f"{rel}: exit 0 with the link still there"
        # A remover may leave a link it did not make as it is (`envs prune`: "not made by jitbench: left alone").
    return targets


@pytest.fixture(scope="module")
def template(tmp_path_factory, fake_env_module):
    base = tmp_path_factory.mktemp("template")
    r = sh("run", *CASES, "--out-dir", str(base / "run"), "--quiet", env=fake_env_module())
    assert r.returncode == 0, r.stderr
    return base / "run"


@pytest.fixture(scope="module")
def fake_env_module():
    return lambda **modes: {"JITBENCH_WORKER_DIR": str(FAKE_WORKER_DIR), "JITBENCH_PYTHON": sys.executable,
                            "FAKE_WORKER_MODES": ",".join(f"{k}={v}" for k, v in modes.items())}


def test_report_never_writes_through_a_planted_link(tmp_path, template):
    targets = plant_everywhere(tmp_path, template, lambda root: sh("report", str(root)))
    assert "report" in targets and os.path.join("report", "report.html") in targets


def test_sign_never_writes_through_a_planted_link(tmp_path, template):
    key = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice", "-f", str(key)], check=True)
    targets = plant_everywhere(tmp_path, template, lambda root: sh("sign", str(root), "--key", str(key)))
    assert "index.json.sig" in targets


def test_publish_never_writes_through_a_planted_link(tmp_path, template, fake_env_module):
    site = tmp_path / "site-template"
    site.mkdir()
    assert sh("publish", str(template), "--to", str(site), "--id", "s0").returncode == 0
    snap = tmp_path / "second"  # another run, published into a copy of that site: what it writes is the site
    r = sh("run", *CASES, "--out-dir", str(snap), "--quiet", env=fake_env_module())
    assert r.returncode == 0, r.stderr
    targets = plant_everywhere(tmp_path, site, lambda root: sh("publish", str(snap), "--to", str(root), "--id", "s1"))
    assert "snapshots" in targets and "registry.json" in targets


def test_resume_never_writes_through_a_planted_link(tmp_path, fake_env_module):
    stopped = tmp_path / "stopped"
    stop_while_starting(stopped, fake_env_module())
    targets = plant_everywhere(tmp_path, stopped,
                               lambda root: sh("run", "--resume", str(root), "--quiet", env=fake_env_module()))
    assert "references" in targets and "cases" in targets


SLOW = "numba_mc_pi_1000_f64"  # the second case, whose processes sleep while links are planted
TWO_CASES = ["--cases", "mc_pi_1000_f64", "--backends", "numpy,numba", "--cold-runs", "1", "--warm-iters", "2",
             "--quiet"]


def run_planting_mid_run(out, env, rel, outside):
    """`run` of two cases into out; once the slow second case has started, rel is made a link to outside."""
    p = started_until(["run", *TWO_CASES, "--out-dir", str(out)], env, out, f"logs/{SLOW}/cold-0.log")
    victim = plant_link(out / rel, outside)
    _, err = p.communicate(timeout=120)
    return p.returncode, err, victim


@pytest.mark.parametrize("rel", [f"cases/{SLOW}.json", f"references/{SLOW}.pickle", f"logs/{SLOW}", "logs",
                                 "index.json", "summary.md", "cases"])
def test_run_never_writes_through_a_link_planted_mid_run(tmp_path, fake_env_module, rel):
    # A link planted while the run is measuring (after its directories were
    # made and checked): what the run writes next must not follow it.
    env = dict(fake_env_module(numba="slow"), FAKE_WORKER_SLEEP="1.5")
    outside = outside_dir(tmp_path)
    keep = snapshot(outside)
    rc, err, victim = run_planting_mid_run(tmp_path / "out", env, rel, outside)
    assert snapshot(outside) == keep, f"{rel}: written through the link (exit {rc}: {err})"
    if rc == 0:
        assert not victim.is_symlink(), f"{rel}: exit 0 with the link still there"
    else:
        assert rc == 13 and "symbolic link" in err, f"{rel}: exit {rc}: {err}"


def started_until(argv, env, root, started, cwd=None, wait=60):
    """jitbench argv started; returned (running) once a file matching the glob `started` exists below root."""
    p = subprocess.Popen([str(JITBENCH), *argv], env=dict(os.environ, **env), cwd=cwd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + wait
    while not list(root.glob(started)) and p.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    assert list(root.glob(started)), f"{started} never appeared: {p.communicate(timeout=120)}"
    return p


def attack_mid_run(argv, env, root, started, rel, outside, cwd=None, done=(0,), wait=60):
    """jitbench argv, writing below root; once a file matching the glob `started` exists
    below root (a slow process of the command has begun), root/rel is made a link to
    outside. The command must not write through it: it finishes (an exit code of `done`)
    having replaced the link with its own file, or refuses in one line naming it (exit 13)."""
    keep = snapshot(outside)
    p = started_until(argv, env, root, started, cwd=cwd, wait=wait)
    victim = plant_link(root / rel, outside)
    _, err = p.communicate(timeout=180 + wait)
    assert snapshot(outside) == keep, f"{rel}: written through the link (exit {p.returncode}: {err})"
    if p.returncode in done:
        assert not victim.is_symlink(), f"{rel}: exit {p.returncode} with the link still there"
    else:
        # One line of refusal, after whatever progress or notes the command wrote before it.
        errors = [ln for ln in err.strip().splitlines() if "symbolic link" in ln]
        assert p.returncode == 13 and len(errors) == 1, \
            f"{rel}: exit {p.returncode}: {err}"
    return p.returncode, err


SLOW_MODULE = '''
import time
import numpy as np

time.sleep(1.5)  # each process imports this: slow enough to plant a link while it runs


def make_inputs():
    return (np.ones((8, 8)),)


def f(x):
    return x @ x
'''


@pytest.mark.parametrize("rel", ["cases", "index.json"])
def test_measure_never_writes_through_a_link_planted_mid_run(tmp_path, rel):
    (tmp_path / "slow.py").write_text(SLOW_MODULE)
    out = tmp_path / "m"
    attack_mid_run(["measure", "slow.py:f", "--cold-runs", "1", "--warm-iters", "2", "--out-dir", str(out), "-q"],
                   {}, out, "logs/*/cold-0.log", rel, outside_dir(tmp_path), cwd=tmp_path)


NOISE = ["--backends", "numpy", "--cases", "mc_pi_1000_f64", "--cold-runs", "2", "--warm-iters", "2", "-q"]


@pytest.mark.parametrize("rel", ["b/cases", "noise.json"])
def test_noise_never_writes_through_a_link_planted_mid_run(tmp_path, fake_env_module, rel):
    out = tmp_path / "noise"
    env = dict(fake_env_module(numpy="slow"), FAKE_WORKER_SLEEP="1")
    attack_mid_run(["noise", *NOISE, "--out-dir", str(out)], env, out, "a/logs/*/cold-0.log", rel,
                   outside_dir(tmp_path))


def test_compare_remeasure_never_writes_through_a_link_planted_mid_run(tmp_path, template, fake_env_module):
    out = tmp_path / "again"
    env = dict(fake_env_module(numpy="slow"), FAKE_WORKER_SLEEP="1")
    attack_mid_run(["compare", str(template), str(template), "--remeasure", str(out)], env, out,
                   "base/logs/*/cold-0.log", "new/cases", outside_dir(tmp_path))


def test_replicate_never_writes_through_a_link_planted_mid_run(tmp_path, template, fake_env_module):
    out = tmp_path / "replica"
    env = dict(fake_env_module(numpy="slow"), FAKE_WORKER_SLEEP="1")
    # One cold process a side tests no timing metric: inconclusive (exit 12) is a replication that finished.
    attack_mid_run(["replicate", str(template), "--out-dir", str(out), "-q"], env, out, "logs/*/cold-0.log",
                   "replication", outside_dir(tmp_path), done=(0, 8, 12))


def test_merge_never_writes_through_a_planted_link(tmp_path, fake_env_module):
    # merge takes well under a second: the links are planted before it runs, at every path it writes (below an
    # OUT that exists and is empty, and OUT itself), where each is refused (OUT no longer empty).
    shards = tmp_path / "shards"
    for k in (1, 2):
        r = sh("run", *TWO_CASES, "--shard", f"{k}/2", "--out-dir", str(shards / f"s{k}"), env=fake_env_module())
        assert r.returncode == 0, r.stderr
    (shards / "out").mkdir()
    targets = plant_everywhere(tmp_path, shards, lambda root: sh("merge", str(root / "out"), str(root / "s1"),
                                                                 str(root / "s2")))
    assert "out" in targets and os.path.join("out", "index.json") in targets


@pytest.mark.parametrize("argv", [("rm", "old"), ("prune", "--older-than", "1")], ids=["rm", "prune"])
def test_envs_never_removes_through_a_planted_link(tmp_path, argv):
    # envs removes quickly: the links are planted before it runs, at every path it removes or writes in the cache.
    from test_envs_command import crafted

    cache = tmp_path / "cache-template"
    crafted(cache, "old")
    crafted(cache, "new")
    cmd = lambda root: subprocess.run([str(JITBENCH), "envs", *argv], capture_output=True, text=True, timeout=60,
                                      env=dict(os.environ, JITBENCH_ENV_CACHE=str(root)), stdin=subprocess.DEVNULL)
    targets = plant_everywhere(tmp_path, cache, cmd, removed=True)
    assert any(t.endswith("payload.so") for t in targets), targets


@pytest.fixture(scope="module")
def two_releases(tmp_path_factory):
    """Wheels of a package whose 1.2 makes the fake worker three times slower (1.1 is 1.0 again: a step
    between the ends), and an environment cache the bisect tests share (each environment is built once)."""
    from test_environments import link_numpy_wheels, wheel

    d = tmp_path_factory.mktemp("link-release-wheels")
    for v, f in {"1.0": 1, "1.1": 1, "1.2": 3}.items():
        wheel(d, "linkrel", v, {"linkrel/__init__.py": f"SCALE = {f}\nSLOW_PASS = 1\n"})
    link_numpy_wheels(d)
    return d, tmp_path_factory.mktemp("link-env-cache")


# A cold process of bisect's first step (both ends side by side) has begun.
BISECT_STEP_STARTED = "steps/*/logs/*/cold-0.log"


def slow_bisect(tmp_path, fake_env_module, two_releases):
    """bisect of linkrel 1.0 -> 1.2 whose processes take a second each: its argv, env and out dir."""
    wheels, cache = two_releases
    out = tmp_path / "bisect"
    env = dict(fake_env_module(numba="slow"), FAKE_WORKER_SLEEP="1", FAKE_WORKER_RELEASE="linkrel",
               JITBENCH_ENV_CACHE=str(cache))
    argv = ["bisect", "--package", "linkrel", "--good", "1.0", "--bad", "1.2", "--metric", "ttfr", "--threshold",
            "20", "--cases", "matmul_8_f32", "--backends", "numba", "--cold-runs", "5", "--warm-iters", "2",
            "--find-links", str(wheels), "--no-index", "--out-dir", str(out), "--quiet"]
    return argv, env, out


@pytest.mark.heavy("uv environments")
@pytest.mark.parametrize("rel", ["steps", "steps/linkrel-1.1-1", "logs"])
def test_bisect_never_writes_through_a_link_planted_mid_run(tmp_path, fake_env_module, two_releases, rel):
    # While the first step's run measures (both ends side by side), rel becomes a link: the step's run, the next
    # step's (1.1's) directory, already there, and its log must not follow it. steps/ is bisect's own: a step's run is
    # started in a directory bisect made through the door, and read only once it is still there.
    argv, env, out = slow_bisect(tmp_path, fake_env_module, two_releases)
    attack_mid_run(argv, env, out, BISECT_STEP_STARTED, rel, outside_dir(tmp_path), wait=300)


@pytest.mark.heavy("uv environments")
def test_bisect_reads_no_step_directory_moved_or_replaced_while_it_measured(tmp_path, fake_env_module, two_releases):
    # No link at all: steps/ is moved away mid-step and a directory of the same name, holding a step directory of
    # the same name, put in its place. Bisect must not read it as the step's run (nor blame the release).
    argv, env, out = slow_bisect(tmp_path, fake_env_module, two_releases)
    p = started_until(argv, env, out, BISECT_STEP_STARTED, wait=300)
    (step,) = list((out / "steps").iterdir())
    (out / "steps").rename(out / "steps.moved")
    (out / "steps" / step.name).mkdir(parents=True)
    (out / "steps" / step.name / "index.json").write_text("{}")
    _, err = p.communicate(timeout=300)
    assert p.returncode == 13 and "is no longer the directory this bisect made for the step" in err, err
    assert len(err.strip().splitlines()) == 1, err
