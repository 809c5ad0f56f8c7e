import json
import pathlib
import sys

try:
    from . import figures
except ImportError as exc:  # jitbench reads this line from the log
    raise SystemExit(f"missing_dependency: matplotlib ({exc}); run scripts/setup.sh") from exc


def main(argv):
    if len(argv) != 2:
        print("usage: python -m jitbench_figures DATA.json OUT_DIR")
        return 2
    data = json.loads(pathlib.Path(argv[0]).read_text())
    out = pathlib.Path(argv[1])
    if "site_history" in data:  # a publish site's per-case history (jitbench publish)
        drawn = figures.site_history(data)
    else:  # a run's report (jitbench report)
        drawn = {key: draw(data) for key, draw in figures.FIGURES.items()}
    for key, svg in drawn.items():
        if svg:
            (out / f"{key}.svg").write_text(svg, encoding="utf-8")
    return 0


sys.exit(main(sys.argv[1:]))
