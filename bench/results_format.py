"""What bench/results.py and bench/results_gpu.py both write: seconds in
jitbench's own format, and a run's summary.md inside a page."""

import re


def seconds(x):
    """jitbench's own format (src/report/format.cc): µs, ms or s."""
    if x is None:
        return "—"
    if x < 1e-3:
        return f"{x * 1e6:.1f} µs"
    if x < 1:
        return f"{x * 1e3:.2f} ms"
    return f"{x:.3f} s"


def summary_body(text):
    """A run's summary.md inside a page: headings one level down, without the run's own title."""
    text = re.sub(r"^(#+) ", lambda m: "#" + m.group(1) + " ", text, flags=re.M)
    return re.sub(r"^## .*\n", "", text, count=1)
