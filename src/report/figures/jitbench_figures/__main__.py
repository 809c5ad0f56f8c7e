import json
import pathlib
import sys

from . import missing


def main(argv):
    if len(argv) != 2:
        print("usage: python -m jitbench_figures DATA.json OUT_DIR")
        return 2
    data = json.loads(pathlib.Path(argv[0]).read_text())
    out = pathlib.Path(argv[1])
    if "site" in data:  # a publish site's pages (jitbench publish): drawn in the browser, no matplotlib
        from . import pages
        for rel, text in pages.render_site(data).items():
            (out / "site" / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / "site" / rel).write_text(text, encoding="utf-8")
        return 0
    try:
        from . import figures
    except ImportError as exc:  # jitbench reads this line from the log
        raise SystemExit(missing("matplotlib", exc)) from exc
    drawn = {key: draw(data) for key, draw in figures.FIGURES.items()}  # a run's report (jitbench report)
    for key, svg in drawn.items():
        if svg:
            (out / f"{key}.svg").write_text(svg, encoding="utf-8")
    icicles = figures.anatomy_icicles(data)  # one per case with a compile anatomy (jitbench run --anatomy)
    for k, icicle in enumerate(icicles):
        (out / f"anatomy-{k}.svg").write_text(icicle["svg"], encoding="utf-8")
    if "report_page" in data:
        from . import pages
        (out / "report.html").write_text(pages.render_report(data, drawn, icicles), encoding="utf-8")
    return 0


sys.exit(main(sys.argv[1:]))
