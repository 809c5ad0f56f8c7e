"""The README's table of which backend implements which workload must match
the workload modules' IMPLEMENTATIONS (and the native worker's list)."""

import re
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "worker"))

from jitbench_worker import workloads  # noqa: E402

pytestmark = pytest.mark.quick


def native_workloads(source):
    """What a native worker's make_workload() accepts, read from its source."""
    text = (ROOT / "native" / source).read_text().split("make_workload(")[-1].split("\n}\n")[0]
    return set(re.findall(r'name == "(\w+)"', text))


NATIVE = {"native": native_workloads("cpu_workloads.cc"), "native_cuda": native_workloads("cuda_workloads.cc")}


def test_readme_table_matches_implementations():
    text = (ROOT / "README.md").read_text()
    table = text.split("<!-- implementations-table -->")[1].split("<!-- /implementations-table -->")[0]
    lines = [l for l in table.strip().splitlines() if l.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    frameworks = header[1:]
    rows = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = dict(zip(frameworks, cells[1:]))
    for name in workloads.names():
        w = workloads.get(name)
        key = next((k for k in rows if name in re.split(r",\s*", k)), None)
        if key is None:
            key = "the 14 transform workloads"
        have = set(w.IMPLEMENTATIONS) | {b for b, names in NATIVE.items() if name in names}
        said = {f for f, cell in rows[key].items() if cell != "—"}
        assert have == said, (name, sorted(have), sorted(said))
    assert NATIVE["native"] == {"matmul", "mc_pi", "null"} and NATIVE["native_cuda"] == {"matmul", "mc_pi"}
    transforms = [n for n in workloads.names() if set(workloads.get(n).IMPLEMENTATIONS) == {"jax"}]
    assert len(transforms) == 14
