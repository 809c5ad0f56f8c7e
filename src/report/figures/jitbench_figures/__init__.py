"""The figures of `jitbench report`, drawn with matplotlib as SVG, and the pages
(report.html, the publish site) rendered with Jinja2 (pages.py). jitbench
computes what to draw (src/export/figure_data.cc) and passes it here as a JSON
file; this package only draws: `python -m jitbench_figures DATA.json OUT_DIR`
writes OUT_DIR/<key>.svg for every figure it has data for."""
