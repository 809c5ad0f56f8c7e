"""What the command line shows a user: option types as CLI11 names them (once),
the pyperf flag and file names where they are documented, a failed check's
error against its tolerance, one line for a compare with no case in common,
progress while publish draws, and a time left from the cost model before the
first case ends (the environment build's progress: test_envs_command.py)."""

import os
import pty
import re
import select
import subprocess

import pytest

from conftest import JITBENCH, ROOT
from test_publish import fake_run

COMMANDS = ["run", "measure", "plan", "bisect", "noise", "compare", "publish", "replicate", "doctor", "envs prune"]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_each_option_type_once(jitbench, command):
    res = jitbench(*command.split(), "--help", out=False)
    assert res.rc == 0, res.stderr
    doubled = re.findall(r"\b(TEXT|INT|FLOAT|NUMBER|LABEL):\S+", res.stdout)
    assert doubled == [], res.stdout
    if command == "run":
        assert re.search(r"--cold-runs INT in \[1 - \d+\]", res.stdout), res.stdout
        assert re.search(r"--timeout FLOAT in \(0 - \d+\]", res.stdout), res.stdout
        assert re.search(r"--machine TEXT\s", res.stdout), res.stdout


def test_pyperf_help_and_requirements_name_the_flag_and_files_compare_writes(jitbench):
    help_text = " ".join(jitbench("compare", "--help", out=False).stdout.split())
    assert "PREFIX.base.json and PREFIX.new.json" in help_text
    req = (ROOT / "requirements" / "test.txt").read_text()
    assert "--pyperf PREFIX" in req and "--export-pyperf" not in req


def test_a_failed_check_shows_its_error_against_its_tolerance(jitbench, fake_env):
    res = jitbench("run", "--cases", "matmul_8_f32", "--backends", "numpy", "--cold-runs", "1", "--warm-iters", "1",
                   env=fake_env(numpy="wrong_answer"))
    assert res.rc == 2
    line = next(l for l in res.stderr.splitlines() if "numpy_matmul_8_f32" in l and "incorrect_result" in l)
    # The worker's message states the error and its bound already: said once, not repeated in brackets.
    assert "relative error 0.5 exceeds 1e-4" in line and "vs tolerance" not in line, line


def test_compare_with_no_case_in_common_exits_2_with_one_line(jitbench, fake_env, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out, cases in ((a, "matmul_8_f32"), (b, "matmul_16_f32")):
        res = jitbench("run", "--cases", cases, "--backends", "numpy", "--cold-runs", "1", "--warm-iters", "1",
                       "--out-dir", str(out), env=fake_env())
        assert res.rc == 0, res.stderr
    res = jitbench("compare", str(a), str(b), out=False)
    assert res.rc == 2 and res.stdout == ""
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and "no case in common" in lines[0] and "numpy_matmul_8_f32" in lines[0], res.stderr
    assert jitbench("compare", str(a), str(a), out=False).rc == 0


def test_publish_says_it_is_drawing_with_the_time_elapsed(jitbench, fake_env, tmp_path):
    run = fake_run(jitbench, fake_env, tmp_path / "r")
    res = jitbench("publish", str(run), "--to", str(tmp_path / "site"), env={"JITBENCH_TICK_S": "0.05"}, out=False)
    assert res.rc == 0, res.stderr
    assert re.search(r"jitbench: drawing the (snapshot's report|site's figures).* · elapsed \d+ s", res.stderr), \
        res.stderr


def on_a_terminal(argv, env):
    """stderr of argv run with a pseudo-terminal as its stderr (the progress line is drawn only there)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=120)
    os.close(master)
    return p.returncode, out.decode(errors="replace")


def test_the_first_case_shows_a_time_left_from_the_cost_model(fake_env, tmp_path):
    env = dict(os.environ, **fake_env(), NO_COLOR="1")
    rc, text = on_a_terminal([str(JITBENCH), "run", "--cases", "matmul_8_f32", "--backends", "numpy,numba",
                              "--cold-runs", "2", "--warm-iters", "2", "--out-dir", str(tmp_path / "o")], env)
    assert rc == 0, text
    first = [seg for seg in text.split("\r") if seg.replace("\x1b[K", "").startswith("[1/2]")]
    assert first, text
    assert all("~? left" not in seg for seg in first), first
    assert any(re.search(r"elapsed .+? · ~.+? left", seg) for seg in first), first
