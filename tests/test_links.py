"""Nothing written through a link: every path jitbench writes, removes or
re-modes below a directory it owns goes through one door (util/fs.h), which
refuses a symbolic link anywhere below the root with one line and exit 13
(README's table). The defects of issue 49 that wrote through a link, each with
the attack that found it."""

import json
import os
import signal
import stat
import subprocess
import time

import pytest

from conftest import JITBENCH

pytestmark = pytest.mark.quick

CASES = ["--cases", "mc_pi_1000_f64", "--backends", "numpy", "--cold-runs", "1", "--warm-iters", "2"]


def sh(*args, env=None, cwd=None, timeout=120):
    return subprocess.run([str(JITBENCH), *args], env=dict(os.environ, **(env or {})), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd)


def snapshot(tree):
    """Every entry below tree: its path, mode and (files) contents: what must not change."""
    out = {}
    for root, dirs, files in os.walk(tree):
        for name in dirs + files:
            p = os.path.join(root, name)
            st = os.lstat(p)
            out[os.path.relpath(p, tree)] = (stat.S_IMODE(st.st_mode),
                                             open(p, "rb").read() if stat.S_ISREG(st.st_mode) else None)
    st = os.lstat(tree)
    out["."] = (stat.S_IMODE(st.st_mode), None)
    return out


def stop_while_starting(out, env):
    """`run` into out stopped by SIGTERM while its probe runs (the fake worker's
    slow probe): an out dir a resumption starts from."""
    env = dict(os.environ, **env, FAKE_WORKER_PROBE="slow", FAKE_WORKER_SLEEP="20")
    p = subprocess.Popen([str(JITBENCH), "run", *CASES, "--out-dir", str(out)], env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    while not (out / "logs" / "probe.log").exists() and time.time() < deadline:
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    p.communicate(timeout=30)
    assert p.returncode == 128 + signal.SIGTERM


def outside_dir(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    outside.chmod(0o755)
    (outside / "numpy_mc_pi_1000_f64.pickle").write_text("precious")
    (outside / "keep.txt").write_text("keep")
    return outside


def test_resume_never_writes_through_a_planted_references_link(tmp_path, fake_env):
    # Issue 49, defect 2: a run stopped while starting, `references` then made a
    # link to a directory outside; the resumption set that directory's mode to
    # 0700, deleted a file there and wrote its pickle there.
    out = tmp_path / "out"
    stop_while_starting(out, fake_env())
    outside = outside_dir(tmp_path)
    before = snapshot(outside)
    os.symlink(outside, out / "references")
    r = sh("run", "--resume", str(out), env=fake_env())
    assert r.returncode == 13, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "references" in r.stderr and "symbolic link" in r.stderr
    assert snapshot(outside) == before
    check = sh("validate", str(out))
    assert check.returncode == 1 and "references: a symbolic link" in check.stderr, check.stderr


def fake_run(tmp_path, fake_env, name="run"):
    out = tmp_path / name
    r = sh("run", *CASES, "--out-dir", str(out), "--quiet", env=fake_env())
    assert r.returncode == 0, r.stderr
    return out


def test_publish_never_writes_through_a_planted_snapshots_link(tmp_path, fake_env):
    # Issue 49, defect 3: SITE/snapshots a link to a directory outside: the
    # snapshot landed there, exit 0 (assets/, cases/ and registry.json were refused).
    run = fake_run(tmp_path, fake_env)
    site = tmp_path / "site"
    site.mkdir()
    (site / ".jitbench-site").write_text("a jitbench publish site: registry.json lists its snapshots\n")
    outside = outside_dir(tmp_path)
    before = snapshot(outside)
    os.symlink(outside, site / "snapshots")
    r = sh("publish", str(run), "--to", str(site), "--id", "s1")
    assert r.returncode == 13, r.stderr
    assert "snapshots" in r.stderr and "symbolic link" in r.stderr
    assert snapshot(outside) == before


def test_report_names_a_planted_report_link(tmp_path, fake_env):
    # Issue 49, defect 16: DIR/report a link was refused with "cannot start Python ...".
    run = fake_run(tmp_path, fake_env)
    outside = outside_dir(tmp_path)
    before = snapshot(outside)
    os.symlink(outside, run / "report")
    r = sh("report", str(run))
    assert r.returncode == 13, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "report: a symbolic link" in r.stderr, r.stderr
    assert "cannot start Python" not in r.stderr
    assert snapshot(outside) == before
