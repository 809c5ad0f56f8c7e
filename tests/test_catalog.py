"""The catalog is the one place a backend or workload is named: C++ reads its
records (build/catalog.json, embedded at build time) and asks the worker for a
user workload's, so a new workload is a Python file and nothing else."""

import json
import re
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.quick

CATALOG = ROOT / "build" / "catalog.json"

# String literals in src/ that spell a catalog name but mean something else,
# with how many times each file may use them. A new occurrence fails the test.
WORDS_OF_THE_FORMATS = {
    # "python": the interpreter, a key of the probe message, the environment
    # manifest, [[environments]] and the seed contract; also the .venv path and
    # the interpreter beside a pip-installed jitbench (bin/python).
    ("src/commands/list.cc", "python"): 1,
    ("src/commands/common/paths.cc", "python"): 2,
    ("src/config/suite.cc", "python"): 2,
    ("src/env/environments.cc", "python"): 2,
    ("src/export/json/environment_json.cc", "python"): 3,
    ("src/run/protocol.cc", "python"): 1,
    # The index's typed options: --python, the interpreter (written and read back).
    ("src/export/json/index_json.cc", "python"): 1,
    ("src/results/read.cc", "python"): 1,
    # The worker kinds of the catalog's "worker" field (programs, not backends).
    ("src/config/catalog.cc", "python"): 1,
    ("src/config/catalog.cc", "native"): 1,
    ("src/config/catalog.cc", "native_cuda"): 1,
}
# The seed contract's export names the backends the contract defines.
EXEMPT_FILES = {"src/export/json/ml_suite.cc"}

LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def code_lines(text):
    """The file's lines with comments removed (string literals kept)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    for line in text.splitlines():
        in_string, i, cut = False, 0, len(line)
        while i < len(line):
            if line[i] == "\\" and in_string:
                i += 2
                continue
            if line[i] == '"':
                in_string = not in_string
            elif not in_string and line.startswith("//", i):
                cut = i
                break
            i += 1
        yield line[:cut]


def catalog_names():
    cat = json.loads(CATALOG.read_text())
    return {b["name"] for b in cat["backends"]} | {w["name"] for w in cat["workloads"]}


def named_literals(names):
    found = {}
    for p in sorted((ROOT / "src").rglob("*")):
        rel = str(p.relative_to(ROOT))
        if p.suffix not in (".cc", ".h") or p.name.endswith("_test.cc") or rel in EXEMPT_FILES:
            continue
        for line in code_lines(p.read_text()):
            for m in LITERAL.finditer(line):
                if m.group(1) in names:
                    found[(rel, m.group(1))] = found.get((rel, m.group(1)), 0) + 1
    return found


def test_no_catalog_name_is_spelled_in_src():
    found = named_literals(catalog_names())
    extra = {k: v for k, v in found.items() if v > WORDS_OF_THE_FORMATS.get(k, 0)}
    assert not extra, f"catalog names spelled in src/ (read them from the catalog's records instead): {extra}"


def test_the_scan_finds_a_name_where_one_is_spelled(tmp_path):
    # The check itself can fail: a literal backend name in code is found, the
    # same name in a comment is not.
    lines = list(code_lines('x = 1;  // "numba" in a comment\nif (b == "numba") go();\n/* "numba" */\n'))
    hits = [m.group(1) for line in lines for m in LITERAL.finditer(line)]
    assert hits == ["numba"]


def test_records_carry_what_the_core_reads():
    cat = json.loads(CATALOG.read_text())
    backends = {b["name"]: b for b in cat["backends"]}
    for b in backends.values():
        assert b["startup_s"] > 0 and b["cost_factor"] > 0 and b["device"] in ("cpu", "gpu"), b
        if b["jit"] and b["baseline"]:
            assert b["baseline"] in backends and not backends[b["baseline"]]["jit"], b
    assert sorted(b["name"] for b in backends.values() if b["floor"]) == ["native", "native_cuda"]
    assert [b["name"] for b in backends.values() if b["default_baseline"]] == ["numpy"]
    assert backends["tensorflow"]["baseline"] == "tensorflow_eager"
    assert backends["numba"]["baseline"] == "numpy"
    workloads = {w["name"]: w for w in cat["workloads"]}
    assert workloads["matmul"]["work"] == {"field": "flops", "scale": 1e-9, "unit": "GFLOP"}
    assert workloads["matmul"]["ceiling"] == "gemm"
    assert workloads["mc_pi"]["accuracy"] == "abs_error"


STEP_COUNT = '''
import numpy as np

CATALOG = {{"summary": "counts to n, {steps} steps a call", "work": ("steps_done", 1.0, "steps"),
           "cost": (0.5, 1.0), "loop": ("count step", {steps})}}


def make_inputs(n, dtype, seed):
    return (np.arange(n, dtype=np.float64),)


def check(out, inputs, n, dtype, seed):
    ref = float(np.sum(inputs[0]))
    err = abs(float(out) - ref)
    return {{"ok": err <= 1e-9 * max(1.0, abs(ref)), "metric": "abs", "error": err, "tolerance": 1e-9,
            "reference": "float64 NumPy sum"}}, {{"steps_done": {steps}}}


def _numpy(adapter, n, dtype):
    def run(x):
        total = 0.0
        for _ in range({steps}):
            total = float(np.sum(x))
        return np.float64(total)
    return run


IMPLEMENTATIONS = {{"numpy": _numpy}}
'''


def test_a_new_workload_is_one_python_file(jitbench, tmp_path):
    """Planned, costed for sharding, run, verified, in the throughput and loop
    tables: all from the file's own record, with no C++ change."""
    (tmp_path / "step_count.py").write_text(STEP_COUNT.format(steps=10))
    suite = tmp_path / "loops.toml"
    suite.write_text('[suite]\nname = "mine"\nworkload_paths = ["step_count.py"]\ncold_runs = 2\nwarm_runs = 1\n'
                     'warm_iters = 3\n[[matrix]]\nbackends = ["numpy"]\nworkloads = ["step_count"]\n'
                     'sizes = [100, 400]\ndtypes = ["f64"]\n')
    common = ("--suite", str(suite))
    plan = jitbench("plan", *common, "--shard", "1/2", "--json", out=False)
    assert plan.rc == 0, plan.stderr
    cases = {c["case"]: c for c in json.loads(plan.stdout)["cases"]}
    # The file's cost (0.5 s * n per call) outweighs the start-up: the bigger case is 4x the work.
    # 3 processes x numpy's start-up + (3 + 3) calls x 0.5 * n.
    assert set(cases) == {"numpy_step_count_400_f64"}, cases
    assert cases["numpy_step_count_400_f64"]["expected_cost_s"] == pytest.approx(3 * 0.2 + 6 * 0.5 * 400)
    res = jitbench("run", *common)
    assert res.rc == 0, res.stderr
    case = res.case("numpy_step_count_100_f64")
    assert case["status"] == "ok" and case["verification"]["ok"], case
    analysis = json.loads((res.out / "analysis.json").read_text())
    rows = {r["case"]: r for r in analysis["throughput"]}
    row = rows["numpy_step_count_100_f64"]
    assert row["unit"] == "steps/s" and row["achieved"] == pytest.approx(10 / row["warm_median_s"])
    loops = {r["case"]: r for r in analysis["loops"]}
    loop = loops["numpy_step_count_100_f64"]
    assert loop["step"] == "count step" and loop["steps_per_call"] == 10
    assert [c["calls"] for c in loop["costs"]] == [1, 10, 100]
    summary = (res.out / "summary.md").read_text()
    assert "## Short loops" in summary and "steps/s" in summary
    assert jitbench("validate", str(res.out)).rc == 0


def test_a_record_the_worker_cannot_read_fails_the_case_with_its_reason(jitbench, tmp_path):
    path = tmp_path / "odd_record.py"
    path.write_text(STEP_COUNT.format(steps=2).replace('"cost": (0.5, 1.0),', '"cost": (0.5, 1.0), "speed": 3,'))
    res = jitbench("run", "--workload-path", str(path), "--backends", "numpy", "--cases", "odd_record_8_f64",
                   "--cold-runs", "1", "--warm-iters", "2")
    assert res.rc == 2
    assert "CATALOG has unknown fields speed" in res.stderr
    case = res.case("numpy_odd_record_8_f64")
    assert (case["status"], case["reason"]) == ("failed", "worker_failed") and "speed" in case["detail"]


def test_catalog_module_prints_a_user_record(tmp_path):
    path = tmp_path / "step_count.py"
    path.write_text(STEP_COUNT.format(steps=5))
    out = subprocess.run([sys.executable, "-m", "jitbench_worker.catalog", "--workload-file", "step_count", str(path)],
                         cwd=ROOT / "worker", capture_output=True, text=True, check=True).stdout
    record = json.loads(out)
    assert record["loop"] == {"step": "count step", "steps": 5}
    assert record["cost"] == {"coefficient": 0.5, "exponent": 1.0}
