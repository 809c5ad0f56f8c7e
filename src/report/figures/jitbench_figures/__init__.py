"""The figures of `jitbench report`, drawn with matplotlib as SVG, and the pages
(report.html, the publish site) rendered with Jinja2 (pages.py). jitbench
computes what to draw (src/export/docs/figure_data.cc) and passes it here as a JSON
file; this package only draws: `python -m jitbench_figures DATA.json OUT_DIR`
writes OUT_DIR/<key>.svg for every figure it has data for."""

import sys

# The one way to get what the figures and pages need, said the same by the
# report, publish and the notebook view: the wheel's `figures` extra
# (pyproject.toml; python/pyproject.toml has the same for a source tree's .venv).
FIGURES_EXTRA = "pip install 'jitbench[figures]'"


def missing(package, exc):
    """The line jitbench reads from the log when a package of the figures is missing."""
    return (f"missing_dependency: {package} ({exc}): install the report's figures with "
            f"`{sys.executable} -m {FIGURES_EXTRA}`")
