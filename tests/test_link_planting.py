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
refused (test_nothing_lost.py). A link can still be planted while they run:
`run` is attacked mid-run (the second of two cases measuring) at its case
file, reference, log directory, index, summary and `cases/`; the others
write through the same door (util/fs.h, checked by test_architecture.py).
Fake workers."""

import os
import shutil
import subprocess
import sys
import time

import pytest

from conftest import FAKE_WORKER_DIR, JITBENCH
from test_links import CASES, outside_dir, sh, snapshot, stop_while_starting

pytestmark = pytest.mark.quick


def written(before, after):
    """The paths (relative) that a command made or changed, with every directory above each."""
    out = set()
    for rel, value in after.items():
        if rel == "." or before.get(rel) == value:
            continue
        parts = rel.split(os.sep)
        out.update(os.sep.join(parts[:i]) for i in range(1, len(parts) + 1))
    return sorted(out)


def lock_free(tree):
    """A snapshot that leaves out the lock file, which every command opens (and may create) in place."""
    return {k: v for k, v in snapshot(tree).items() if not k.endswith(".jitbench.lock")}


def plant_everywhere(tmp_path, template, command):
    """command(root) run on a copy of template, then once more per written path with that path a link outside."""
    clean = tmp_path / "clean"
    shutil.copytree(template, clean, symlinks=True)
    before = lock_free(clean)
    r = command(clean)
    assert r.returncode == 0, r.stderr
    targets = written(before, lock_free(clean))
    assert targets, "the command wrote nothing: nothing to plant"
    for i, rel in enumerate(targets):
        root = tmp_path / f"planted{i}"
        shutil.copytree(template, root, symlinks=True)
        (tmp_path / f"o{i}").mkdir()
        outside = outside_dir(tmp_path / f"o{i}")
        keep = snapshot(outside)
        victim = root / rel
        if victim.is_dir() and not victim.is_symlink():
            shutil.rmtree(victim)
        elif victim.exists() or victim.is_symlink():
            victim.unlink()
        victim.parent.mkdir(parents=True, exist_ok=True)  # a directory above is a target of its own
        os.symlink(outside, victim)
        r = command(root)
        assert snapshot(outside) == keep, f"{rel}: written through the link"
        if r.returncode != 0:
            # A slow step's progress ticker ("... · elapsed 10 s") may come first on a loaded machine.
            lines = [ln for ln in r.stderr.strip().splitlines() if " · elapsed " not in ln]
            assert r.returncode in (2, 13) and len(lines) == 1, f"{rel}: exit {r.returncode}: {r.stderr}"
            assert r.returncode != 13 or "symbolic link" in r.stderr, f"{rel}: {r.stderr}"
        else:  # the link was replaced by the command's own file, never followed
            assert not victim.is_symlink(), f"{rel}: exit 0 with the link still there"
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
    p = subprocess.Popen([str(JITBENCH), "run", *TWO_CASES, "--out-dir", str(out)], env=dict(os.environ, **env),
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started = out / "logs" / SLOW / "cold-0.log"
    deadline = time.time() + 60
    while not started.exists() and p.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    assert started.exists(), "the slow case never started"
    victim = out / rel
    if victim.is_dir() and not victim.is_symlink():
        shutil.rmtree(victim)
    elif victim.exists() or victim.is_symlink():
        victim.unlink()
    victim.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(outside, victim)
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
