"""report.md and report.html of the golden run, byte for byte: `jitbench report`
on the artifacts src/artifacts/golden_test.cc rebuilds from recorded workers
(tests/data/golden/expected) must write exactly tests/data/golden/report/. How
the report is assembled may change; what a reader gets does not, unless the
golden files are rewritten on purpose (JITBENCH_UPDATE_GOLDEN=1; the diff then
shows what changed). The figures are drawn by the figures package from the same
data every time, so their SVGs are compared too."""

import os
import shutil
import subprocess

import pytest

from conftest import JITBENCH, ROOT

pytestmark = pytest.mark.quick

GOLDEN = ROOT / "tests" / "data" / "golden"


def test_the_golden_runs_report_is_unchanged(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(GOLDEN / "expected", run)
    proc = subprocess.run([str(JITBENCH), "report", str(run)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=600)
    assert proc.returncode == 0, proc.stderr
    for name in ("report.md", "report.html"):
        got = (run / "report" / name).read_bytes()
        if os.environ.get("JITBENCH_UPDATE_GOLDEN"):
            (GOLDEN / "report" / name).write_bytes(got)
            continue
        assert got == (GOLDEN / "report" / name).read_bytes(), name
