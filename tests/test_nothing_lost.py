"""Nothing lost, nothing trusted unread (issue 49): a failed command keeps
what was there, an output is never put inside an input it reads, and a run
still being written is named as such. Fake workers: every test here needs
nothing beyond the binary and numpy."""

import json
import os
import subprocess
import time

import pytest
from forge import rehash

from conftest import JITBENCH

pytestmark = pytest.mark.quick

CASES = ["--cases", "mc_pi_1000_f64", "--backends", "numpy", "--cold-runs", "1", "--warm-iters", "2"]


def sh(*args, env=None, cwd=None, timeout=120):
    return subprocess.run([str(JITBENCH), *args], env=dict(os.environ, **(env or {})), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd)


def fake_run(tmp_path, fake_env, name="run", *extra):
    out = tmp_path / name
    r = sh("run", *CASES, *extra, "--out-dir", str(out), "--quiet", env=fake_env())
    assert r.returncode == 0, r.stderr
    return out


def keygen(path, passphrase=""):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", "alice", "-f", str(path)], check=True)
    return path


def test_a_failed_sign_keeps_the_earlier_signature(tmp_path, fake_env):
    # Issue 49, defect 4: `sign R --key good; sign R --key /nonexistent` (or a
    # key with a passphrase and no terminal) deleted the old index.json.sig.
    run = fake_run(tmp_path, fake_env)
    good = keygen(tmp_path / "good")
    assert sh("sign", str(run), "--key", str(good)).returncode == 0
    sig = (run / "index.json.sig").read_bytes()
    for key in (tmp_path / "nonexistent", keygen(tmp_path / "locked", passphrase="secret phrase")):
        r = sh("sign", str(run), "--key", str(key))
        assert r.returncode == 2 and "could not sign" in r.stderr and "kept" in r.stderr, r.stderr
        assert (run / "index.json.sig").read_bytes() == sig
    assert not [p for p in run.iterdir() if p.name.endswith(".tmp")]


def test_an_output_inside_a_run_it_reads_is_refused(tmp_path, fake_env):
    # Issue 49, defect 5: `compare m1 mk --remeasure m1/x` and `replicate SNAP
    # --out-dir SNAP/rep` exited 0 and left m1 failing validate. Refused, as
    # merge refuses an OUT inside a shard; so is every other output put inside
    # a run the command reads.
    m1, mk = fake_run(tmp_path, fake_env, "m1"), fake_run(tmp_path, fake_env, "mk")
    attempts = [
        (["compare", str(m1), str(mk), "--remeasure", str(m1 / "x")], "--remeasure", "BASE"),
        (["compare", str(m1), str(mk), "--csv", str(mk / "rows.csv")], "--csv", "NEW"),
        (["compare", str(m1), str(mk), "--pyperf", str(m1 / "pp")], "--pyperf", "BASE"),
        (["replicate", str(m1), "--out-dir", str(m1 / "rep")], "--out-dir", "SNAPSHOT"),
        (["publish", str(m1), "--to", str(m1 / "site")], "--to", "RUN"),
        (["run", *CASES, "--shard", "1/1", "--costs", str(m1), "--out-dir", str(m1 / "again")], "--out-dir", "--costs"),
    ]
    for argv, flag, what in attempts:
        r = sh(*argv, env=fake_env())
        assert r.returncode == 2, (argv, r.stderr)
        assert f"{flag} '" in r.stderr and f"is inside {what}" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    for run in (m1, mk):
        check = sh("validate", str(run))
        assert check.returncode == 0, check.stderr
    # A link to the inside is the inside.
    os.symlink(m1, tmp_path / "alias")
    r = sh("compare", str(m1), str(mk), "--remeasure", str(tmp_path / "alias" / "x"), env=fake_env())
    assert r.returncode == 2 and "is inside BASE" in r.stderr, r.stderr


def test_validate_names_every_link_fifo_and_loop_by_its_own_path(tmp_path, fake_env):
    # Issue 49, defect 11: an unlisted directory link (extra -> /etc, loop -> .)
    # and a FIFO went unseen; an unlisted file link was named by its target's path.
    run = fake_run(tmp_path, fake_env)
    os.symlink("/etc", run / "extra")
    os.symlink(".", run / "loop")
    os.mkfifo(run / "logs" / "pipe")
    os.symlink("../summary.md", run / "cases" / "alias.json")
    r = sh("validate", str(run), timeout=30)
    assert r.returncode == 1, r.stderr
    for rel, what in [("extra", "a symbolic link"), ("loop", "a symbolic link"), ("logs/pipe", "a FIFO"),
                      ("cases/alias.json", "a symbolic link")]:
        assert f"invalid: {rel}: {what}" in r.stderr, r.stderr
    assert "summary.md: present but not listed" not in r.stderr


def test_a_run_still_being_written_is_named_with_its_pid(tmp_path, fake_env):
    # Issue 49, defect 12: report / run --resume on a run in progress said "not a valid out dir".
    out = tmp_path / "busy"
    env = dict(os.environ, **fake_env(numpy="slow"), FAKE_WORKER_SLEEP="30")
    p = subprocess.Popen([str(JITBENCH), "run", *CASES, "--out-dir", str(out), "--quiet"], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.time() + 30
        while not (out / "logs" / "numpy_mc_pi_1000_f64").is_dir() and time.time() < deadline:
            time.sleep(0.05)
        for argv in (["report", str(out)], ["run", "--resume", str(out)], ["compare", str(out), str(out)]):
            r = sh(*argv)
            assert r.returncode == 2, r.stderr
            assert f"in use by another jitbench (pid {p.pid})" in r.stderr, r.stderr
    finally:
        p.kill()
        p.communicate()


@pytest.mark.parametrize("edit", ["child_longer_than_parent", "negative"])
def test_an_anatomy_that_breaks_the_nesting_rule_is_refused_on_read(tmp_path, fake_env, edit):
    # Issue 49, defect 15: validate and report accepted anatomy items the run
    # itself fails (a child of 1e9 s under a 1.5 s parent, a negative duration).
    out = tmp_path / "anat"
    r = sh("run", "--cases", "mc_pi_1000_f64", "--backends", "jax_jit_cpu", "--cold-runs", "1", "--warm-iters", "2",
           "--anatomy", "--anatomy-runs", "1", "--out-dir", str(out), "--quiet", env=fake_env())
    assert r.returncode == 0, r.stderr
    rel = "cases/jax_jit_cpu_mc_pi_1000_f64.json"
    case = json.loads((out / rel).read_text())
    items = case["anatomy"]["runs"][0]["worker"]["anatomy"]["items"]
    child = next(it for it in items if len(it["path"]) == 2)
    child["s"] = 1e9 if edit == "child_longer_than_parent" else -1.0
    child.pop("intervals", None)
    (out / rel).write_text(json.dumps(case, indent=2) + "\n")
    rehash(out, rel)
    for argv in (["validate", str(out)], ["report", str(out)], ["compare", str(out), str(out)]):
        r = sh(*argv)
        assert r.returncode in (1, 2) and "anatomy" in r.stderr and "nesting rule" in r.stderr, (argv, r.stderr)


def test_replicate_with_no_testable_metric_is_inconclusive_not_replicated(tmp_path, fake_env):
    # Issue 49, defect 20: n = 2 a side tests no metric, yet replicate said
    # "replicated" (exit 0). It says inconclusive, with the runs it would take
    # (as bisect does), and exits 12.
    from conftest import validate

    run = fake_run(tmp_path, fake_env, "few", "--warm-runs", "2")  # 1 cold run; 2 warm
    out = tmp_path / "replica"
    r = sh("replicate", str(run), "--out-dir", str(out), "-q", env=fake_env())
    assert r.returncode == 12, (r.stdout, r.stderr)
    rep = json.loads((out / "replication" / "replication.json").read_text())
    validate(rep, "jitbench.replication.v2")
    assert rep["verdict"]["overall"] == "inconclusive" and rep["verdict"]["metrics_tested"] == 0
    assert rep["verdict"]["runs_needed"] == 4  # the least n a side whose smallest p is below 0.05: 2/C(8,4)
    assert "inconclusive" in r.stdout and "at least 4 cold processes" in r.stdout, r.stdout
    assert sh("validate", str(out)).returncode == 0


PLAIN = '''
import atexit
import numpy as np

atexit.register(lambda: print('{"level": "info", "msg": "bye"}'))  # a module that logs JSON at exit


def make_inputs():
    return (np.ones((8, 8)),)


def @NAME@(x):
    return x @ x
'''


def test_measure_reads_its_record_from_the_channel_not_the_log(tmp_path):
    # Issue 49, defect 8: a user module printing a JSON line at exit was taken for the worker's record.
    (tmp_path / "plain.py").write_text(PLAIN.replace("@NAME@", "f"))
    r = sh("measure", "plain.py:f", "--cold-runs", "1", "--warm-iters", "2", "--out-dir", str(tmp_path / "m"), "-q",
           cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "m" / "index.json").read_text())["cases"][0]["case"] == "numpy_f_1_f64"


def test_measure_from_a_directory_that_is_not_utf8_says_so(tmp_path):
    # Issue 49, defect 9: it said "the worker wrote no workload file".
    odd = os.path.join(os.fsencode(tmp_path), b"caf\xe9")
    os.mkdir(odd)
    with open(os.path.join(odd, b"plain.py"), "w") as f:
        f.write(PLAIN.replace("@NAME@", "f"))
    r = subprocess.run([str(JITBENCH), "measure", "plain.py:f", "--out-dir", str(tmp_path / "m")], cwd=odd,
                       capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL, timeout=120)
    assert r.returncode == 2 and "working directory is not valid UTF-8" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "m").exists()


def test_a_function_name_no_file_can_hold_is_refused_before_anything_runs(tmp_path):
    # Issue 49, defect 10: a 245-character name failed after every process ran, exit 4, "free space".
    name = "f" * 245
    (tmp_path / "plain.py").write_text(PLAIN.replace("@NAME@", name))
    out = tmp_path / "m"
    r = sh("measure", f"plain.py:{name}", "--out-dir", str(out), cwd=tmp_path)
    assert r.returncode == 2 and "bytes, more than the 200" in r.stderr and "--name" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not out.exists()


# Figures no process can have, each edited into the first cold run's interference (the index rehashed).
QUIET = {"other_cpu_s": 0.01, "steal_s": 0.0, "nivcsw": 3, "worker_cpu_s": 0.5, "wall_s": 0.5, "load_start": 0.1,
         "load_end": 0.1, "n_cpus": 2, "interfered": False}
IMPOSSIBLE = {
    # Refused by the case schema (minimum 0) before the reader's own check (which names it too): either way, read.
    "negative_steal": ({"steal_s": -0.5}, "[interference]"),
    "flagged_where_its_figures_are_quiet": ({"interfered": True}, "interference cannot be a process's (interfered "
                                                                  "is true where its figures say quiet"),
    "quiet_where_its_figures_are_not": ({"other_cpu_s": 0.9}, "interference cannot be a process's (interfered is "
                                                              "false where its figures say interfered with"),
}


@pytest.mark.parametrize("edit", list(IMPOSSIBLE))
def test_interference_no_process_can_have_is_refused_on_read(tmp_path, fake_env, edit):
    # Readers check what writers check: the sampler cannot measure others on more CPUs than the machine has,
    # a negative steal, or a flag its own rule contradicts; an edited file can say so.
    out = fake_run(tmp_path, fake_env)
    rel = "cases/numpy_mc_pi_1000_f64.json"
    case = json.loads((out / rel).read_text())
    fields, said = IMPOSSIBLE[edit]
    case["cold"]["runs"][0]["interference"] = {**QUIET, **fields}
    (out / rel).write_text(json.dumps(case, indent=2) + "\n")
    rehash(out, rel)
    r = sh("validate", str(out))  # a negative figure is the schema's too: named either way
    assert r.returncode == 1 and "interference" in r.stderr, r.stderr
    for argv in (["report", str(out)], ["compare", str(out), str(out)]):
        r = sh(*argv)
        assert r.returncode == 2 and said in r.stderr, (argv, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    # The same figures, possible: read as they are.
    case["cold"]["runs"][0]["interference"] = QUIET
    (out / rel).write_text(json.dumps(case, indent=2) + "\n")
    rehash(out, rel)
    assert sh("validate", str(out)).returncode == 0


def test_others_beyond_the_machines_capacity_are_read_capped_not_refused(tmp_path, fake_env):
    # A run written before the sampler capped its figures (its snapshots bracket spawn to reap, which can be
    # longer than the process) may hold others on more CPUs than the machine has: it is read as the sampler
    # writes now, capped at the machine's capacity, never refused as edited (its other runs stay readable).
    out = fake_run(tmp_path, fake_env)
    rel = "cases/numpy_mc_pi_1000_f64.json"
    case = json.loads((out / rel).read_text())
    for run in case["cold"]["runs"]:  # others on 8 CPUs for 5 s of a 2-CPU machine's
        run["interference"] = {**QUIET, "wall_s": 5.0, "other_cpu_s": 40.0, "interfered": True}
    (out / rel).write_text(json.dumps(case, indent=2) + "\n")
    rehash(out, rel)
    assert sh("validate", str(out)).returncode == 0
    csv = tmp_path / "cmp.csv"
    r = sh("compare", str(out), str(out), "--csv", str(csv))
    assert r.returncode == 0, r.stderr
    lines = csv.read_text().splitlines()
    row = next(line for line in lines if "cold_ttfr_s" in line and "numpy_mc_pi" in line)
    header = lines[0].split(",")
    others = float(row.split(",")[header.index("base_others_cpus")])
    assert 2.0 <= others <= 2.1, row  # 2 CPUs, and the snapshots' granularity (0.4 s over 5 s)


def test_compare_json_with_no_case_in_common_prints_the_document_and_the_reason(tmp_path, fake_env):
    # `compare A B --format json` printed nothing when the runs share no case: a script got no document.
    from conftest import validate

    a = fake_run(tmp_path, fake_env, "a")
    b = tmp_path / "b"
    r = sh("run", "--cases", "matmul_16_f32", "--backends", "numpy", "--cold-runs", "1", "--warm-iters", "2",
           "--out-dir", str(b), "--quiet", env=fake_env())
    assert r.returncode == 0, r.stderr
    text = sh("compare", str(a), str(b))
    r = sh("compare", str(a), str(b), "--format", "json")
    assert r.returncode == text.returncode == 2, (r.stderr, text.stderr)
    doc = json.loads(r.stdout)
    validate(doc, "jitbench.compare.v1")
    assert doc["rows"] == [] and doc["exit_code"] == 2 and "no case in common" in doc["reason"]
    assert doc["removed"] == ["numpy_mc_pi_1000_f64"] and doc["added"] == ["numpy_matmul_16_f32"]
    assert r.stderr.strip() == text.stderr.strip() and len(r.stderr.strip().splitlines()) == 1
