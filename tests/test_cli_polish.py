"""What the command line shows a user: option types as CLI11 names them (once),
the pyperf flag and file names where they are documented, a failed check's
error against its tolerance, one line for a compare with no case in common,
progress while publish draws, and a time left from the cost model before the
first case ends (the environment build's progress: test_envs_command.py)."""

import json
import os
import pty
import re
import select
import subprocess

import pytest

from conftest import JITBENCH, ROOT
from test_publish import fake_run

pytestmark = pytest.mark.quick

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


def failed_check_line(jitbench, fake_env, error):
    """The run's line for a case whose worker says its check failed, with `error` against a tolerance of 1e-4,
    in a message that names neither (the fake worker's off_by)."""
    res = jitbench("run", "--cases", "matmul_8_f32", "--backends", "numpy", "--cold-runs", "1", "--warm-iters", "1",
                   env={**fake_env(numpy="off_by"), "FAKE_WORKER_ERROR": error})
    assert res.rc == 2, res.stderr
    return next(l for l in res.stderr.splitlines() if "numpy_matmul_8_f32" in l and "incorrect_result" in l)


def test_a_failed_check_whose_message_names_no_numbers_gets_its_error_against_its_tolerance(jitbench, fake_env):
    line = failed_check_line(jitbench, fake_env, "0.25")
    assert "result differs from the reference [error 0.25 vs tolerance 0.0001, relative_error]" in line, line
    assert "within it" not in line, line


def test_a_failed_check_within_its_tolerance_says_it_failed_for_another_reason(jitbench, fake_env):
    line = failed_check_line(jitbench, fake_env, "5e-05")
    assert "[error 5e-05 vs tolerance 0.0001, relative_error; within it: the check failed for the reason above" \
        in line, line


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


def seconds_of(text):
    """format_seconds' words back to seconds: "1.234 s", "350.00 ms", "12.0 µs"."""
    value, unit = re.fullmatch(r"([\d.]+) (µs|ms|s)", text).groups()
    return float(value) * {"µs": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def test_the_first_case_shows_a_time_left_from_the_cost_model(jitbench, fake_env, tmp_path):
    # A suite file, so that `plan` prices the same counts the run uses.
    suite = tmp_path / "eta.toml"
    suite.write_text('[suite]\nname = "eta"\ncold_runs = 2\nwarm_iters = 2\n\n[[matrix]]\n'
                     'backends = ["numpy", "numba"]\nworkloads = ["matmul"]\nsizes = [8]\ndtypes = ["f32"]\n')
    plan = json.loads(jitbench("plan", "--suite", str(suite), "--json", out=False).stdout)
    assert len(plan["cases"]) == 2, plan
    modelled = sum(c["expected_cost_s"] for c in plan["cases"])
    # The fake worker takes a fraction of the model's seconds: a time left near the model's total is the model's.
    env = dict(os.environ, **fake_env(), NO_COLOR="1")
    rc, text = on_a_terminal([str(JITBENCH), "run", "--suite", str(suite), "--out-dir", str(tmp_path / "o")], env)
    assert rc == 0, text
    segments = [seg.replace("\x1b[K", "") for seg in text.replace("\n", "\r").split("\r")]
    first_done = next(i for i, seg in enumerate(segments) if re.match(r"\[1/2\] \S+ +ok", seg))
    before = [seg for seg in segments[:first_done] if seg.startswith("[1/2]")]
    assert before, text  # progress drawn while the first case runs, before its result line
    assert all("~? left" not in seg for seg in before), before
    left = [seconds_of(m.group(1)) for seg in before if (m := re.search(r"elapsed .+? · ~(.+?) left$", seg))]
    assert left, before
    assert 0.5 * modelled <= left[0] <= modelled * 1.05, (left, modelled)
