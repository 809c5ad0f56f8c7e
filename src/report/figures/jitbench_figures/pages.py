"""report.html and the publish site's pages, rendered with Jinja2 from the
JSON jitbench computed (src/export/docs/report_doc.cc, src/export/docs/site_json.cc).
jitbench decides every number and word; this module only lays them out
through the templates beside it (templates/), so no page is assembled by
string concatenation. The site's charts are drawn in the browser by dygraphs,
whose JavaScript comes from its PyPI package and is written once into the
site's assets/ (no CDN: the site opens from a file:// URL)."""

import importlib.resources
import json
import pathlib
import re

from . import missing

try:
    import jinja2
    from markupsafe import Markup, escape
except ImportError as exc:  # jitbench reads this line from the log
    raise SystemExit(missing("jinja2", exc)) from exc

HERE = pathlib.Path(__file__).parent
CHART_LIBRARY = "dygraph.min.js"  # assets/ name of dygraphs' bundled JavaScript


def inline(md):
    """Markdown-inline text as escaped HTML, as src/report/table.cc's inline_html:
    `x` -> <code>x</code>, **x** -> <b>x</b>, \\| -> |."""
    out, code, bold, i = [], False, False, 0
    md = "" if md is None else str(md)
    while i < len(md):
        if md[i] == "\\" and md[i + 1:i + 2] == "|":
            out.append("|")
            i += 2
            continue
        if md[i] == "`":
            out.append("</code>" if code else "<code>")
            code = not code
        elif not code and md[i:i + 2] == "**":
            out.append("</b>" if bold else "<b>")
            bold = not bold
            i += 1
        else:
            out.append(str(escape(md[i])))
        i += 1
    if code:
        out.append("</code>")
    if bold:
        out.append("</b>")
    return Markup("".join(out))


def text(s):
    """Plain text (no Markdown) as an element's content: &, < and > escaped; quotes need no escaping there."""
    return Markup(str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def value(v, metric):
    """A metric's value in engineering units: µs, ms or s to 3 significant digits; MiB for peak RSS; an
    instruction count (instructions_<phase>) with k, M, G to 4 significant digits.
    assets/site.js's formatValue writes the same."""
    if metric == "peak_rss_kib":
        return f"{v / 1024:.0f} MiB"
    if metric.startswith("instructions_"):
        return count_text(v)
    a = abs(v)
    if a == 0:
        return "0"
    scale, unit = (1, "s") if a >= 1 else (1e3, "ms") if a >= 1e-3 else (1e6, "µs")
    return f"{v * scale:.3g} {unit}"


def _script_json(value):
    """JSON safe inside <script type="application/json">: no '<' at all, so nothing can close or
    re-open a script there (JSON.parse reads \\u003c back as '<')."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def environment():
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.filters["inline"] = inline
    env.filters["text"] = text
    env.filters["script_json"] = _script_json
    env.filters["value"] = value
    return env


def render_report(data, svgs, icicles=()):
    """report.html: the page jitbench described (data["report_page"]) with the SVGs drawn; icicles, one per
    case with a compile anatomy ({"case", "svg"}), go to its "Inside the compile" section with each case's
    headline from figure_data."""
    page = data["report_page"]
    figures = [dict(f, svg=Markup(svgs[f["key"]])) for f in page["figures"] if svgs.get(f["key"])]
    headlines = {t["case"]: t["headline"] for t in data.get("anatomy") or []}
    anatomy = [{"case": i["case"], "headline": headlines.get(i["case"], ""), "svg": Markup(i["svg"])}
               for i in icicles if i["svg"]]
    css = (HERE / "assets" / "report.css").read_text(encoding="utf-8")
    return environment().get_template("report.html").render(page=page, figures=figures, anatomy=anatomy, css=css)


def _slugs(case_ids):
    """A file name per case: its id with anything but [A-Za-z0-9_.-] replaced, unique."""
    seen, out = set(), {}
    for cid in case_ids:
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", cid)[:120] or "case"
        slug, k = base, 1
        while slug.lower() in seen:
            k += 1
            slug = f"{base}-{k}"
        seen.add(slug.lower())
        out[cid] = slug
    return out


def count_text(v):
    """An instruction count: 892.1 M, 1.570 G (as the binary's format_count)."""
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= scale:
            x = v / scale
            return f"{x:.{1 if abs(x) >= 100 else 2 if abs(x) >= 10 else 3}f} {prefix}"
    return f"{v:.0f}"


def unit_of(metric):
    """What a metric's chart is in: instruction counts are charted apart from times, never on a time axis."""
    return "MiB" if metric == "peak_rss_kib" else "instructions" if metric.startswith("instructions_") else "s"


def _case_view(site, case, slug):
    """What one case page's script draws: one chart per metric, one column per
    machine · software series, one row per snapshot (None where the series has
    no point: a gap in its own machine's snapshots, skipped in another's)."""
    snaps = site["snapshots"]
    series = []  # (machine, software) in first-seen order
    for s in case["series"]:
        key = (s["machine"], s["software"])
        if key not in series:
            series.append(key)
    metrics = []
    for metric in site["metrics"]:
        lines = [s for s in case["series"] if s["metric"] == metric and s["points"]]
        if not lines:
            continue  # a metric this case never had: no empty panel
        cols = []
        for machine, software in series:
            line = next((s for s in lines if (s["machine"], s["software"]) == (machine, software)), None)
            points = {p["snapshot"]: p for p in (line["points"] if line else [])}
            own = [k for k, sn in enumerate(snaps) if (sn["machine"], sn["software"]) == (machine, software)]
            cols.append({"points": [points.get(k) for k in range(len(snaps))], "own": own})
        metrics.append({"metric": metric, "unit": unit_of(metric), "columns": cols})
    labels = [f"{m} · software {sw[:8]}" for m, sw in series]
    return {"case": case["id"], "slug": slug, "labels": labels,
            "snapshots": [{"n": k + 1, "id": s["id"], "at": s["published_at"]} for k, s in enumerate(snaps)],
            "metrics": metrics}


def render_site(data):
    """{path relative to the site: text} for the index, one page per case and the assets."""
    site = data["site"]
    env = environment()
    slugs = _slugs([c["id"] for c in site["cases"]])
    for steps in (site["since_last"], site["flagged"]):
        for f in steps:
            f["page"] = f"cases/{slugs[f['case']]}.html#m-{f['metric']}" if f["case"] in slugs else ""
    files = {}
    cases = []
    for case in site["cases"]:
        view = _case_view(site, case, slugs[case["id"]])
        steps = [f for f in site["flagged"] if f["case"] == case["id"]]
        files[f"cases/{view['slug']}.html"] = env.get_template("site_case.html").render(
            site=site, view=view, steps=steps, chart=CHART_LIBRARY)
        cases.append({"id": case["id"], "slug": view["slug"], "metrics": len(view["metrics"]),
                      "flagged": len(steps), "series": len(view["labels"])})
    files["index.html"] = env.get_template("site_index.html").render(site=site, cases=cases)
    files[f"assets/{CHART_LIBRARY}"] = chart_library()
    for name in ("site.js", "site.css"):
        files[f"assets/{name}"] = (HERE / "assets" / name).read_text(encoding="utf-8")
    return files


def chart_library():
    """dygraphs' JavaScript, as its PyPI package ships it (pinned in requirements/cpu.txt)."""
    try:
        return (importlib.resources.files("dygraphs") / "assets" / "dygraph-combined.js").read_text(encoding="utf-8")
    except (ImportError, FileNotFoundError) as exc:
        raise SystemExit(missing("dygraphs", exc)) from exc
