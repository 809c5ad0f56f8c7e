"""In a notebook, `jitbench.measure(...)` as a cell's last expression shows a
small table of the run (status, TTFR median [CI], phases, warm call, N*): a
notebook is executed headless with nbclient on this venv's own kernel."""

import re

import nbclient  # requirements/test.txt
import nbformat
import pytest

pytestmark = pytest.mark.heavy("a Jupyter kernel")

MODULE = '''
import numpy as np


def make_inputs():
    return (np.arange(256, dtype=np.float32).reshape(16, 16),)


def plain(x):
    return np.tanh(x @ x).sum(axis=0)
'''


def test_a_measured_function_displays_as_a_table_in_a_notebook(tmp_path):
    (tmp_path / "nbmod.py").write_text(MODULE)
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import jitbench"),
        nbformat.v4.new_code_cell(f"r = jitbench.measure({str(tmp_path / 'nbmod.py')!r} + ':plain', cold_runs=2, "
                                  f"warm_runs=1, out_dir={str(tmp_path / 'out')!r})\nr"),
    ]
    # "python3" is ipykernel's own kernel: this interpreter (sys.executable), where jitbench is installed.
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    outputs = nb.cells[1].outputs
    html = "".join(o.get("data", {}).get("text/html", "") for o in outputs if o.get("output_type") == "execute_result")
    assert html, [o.get("output_type") for o in outputs]
    # the case named as summary.md names a measured function ("plain ..."), not by its id
    assert re.search(r"<td>plain\b[^<]*</td>", html) and "<td>ok</td>" in html and "TTFR median" in html, html[:500]
    assert "<svg" in html, "the TTFR-by-phase figure was not drawn: " + html[-500:]
    assert (tmp_path / "out" / "index.json").is_file()
