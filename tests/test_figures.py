"""The report's figures as a reader sees them: every time axis in engineering
units (µs, ms, s), warn cases drawn with their mark, every phase in the
releases figure, one full-width break-even panel per piece of work."""
import json
import re
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.quick

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src" / "report" / "figures"))
figures = pytest.importorskip("jitbench_figures.figures")


def texts(svg):
    return [re.sub(r"\s+", " ", t).strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


def ttfr_data():
    parts = [["import", 0.0004], ["setup", 0.00002], ["compile", 0.0003], ["unattributed", 0.00005]]
    return {"ttfr": [{"case": "a_work", "parts": parts, "warn": None},
                     {"case": "b_work", "parts": parts, "warn": "interpreter_only"}],
            "warm": [{"case": "a_work", "calls_s": [1e-5, 1.2e-5, 1.1e-5], "warn": None},
                     {"case": "b_work", "calls_s": [2e-5, 3e-5, 2.5e-5], "warn": "interpreter_only"}]}


def test_time_axes_are_in_engineering_units_not_raw_seconds():
    for draw in (figures.ttfr_by_phase, figures.warm_distributions):
        labels = texts(draw(ttfr_data()))
        ticks = [t for t in labels if re.fullmatch(r"[-\d.]+\s?(µs|ms|s|ns)", t.replace("\u2009", " "))]
        assert ticks, labels
        assert not any(re.fullmatch(r"0\.0+\d+|\d(\.\d+)?e-?\d+|1e-?\d+", t) for t in labels), labels  # no 0.00010, 1e-5


def test_a_log_axis_without_units_prints_numbers_not_mathtext_source():
    # text.parse_math is off (labels are users' text): matplotlib's default log labels would print "$\\mathdefault{10^{-2}}$".
    accuracy = [{"backend": b, "n": n, "warm_median_s": t * n / 1e5, "abs_error": e}
                for b, t in (("numpy", 4e-3), ("numba", 1e-3)) for n, e in ((10**5, 3e-3), (10**7, 2e-4))]
    labels = texts(figures.mc_pi_error_vs_time({"accuracy": accuracy}))
    assert not any("$" in t or "mathdefault" in t for t in labels), labels
    assert any(re.fullmatch(r"1e[−-]0?\d+", t) for t in labels), labels


def test_a_warn_case_is_drawn_with_its_mark():
    for draw in (figures.ttfr_by_phase, figures.warm_distributions):
        labels = texts(draw(ttfr_data()))
        assert "\u26a0 b_work (warn: interpreter_only)" in labels, labels
        assert "a_work" in labels  # an ok case keeps its plain label


def release_data():
    metrics = ["cold_import_s", "phase_trace_s", "phase_compile_s", "cold_first_call_s", "cold_ttfr_s", "warm_call_s"]
    point = {"median": 0.002, "lo": 0.0018, "hi": 0.0023, "significant_step": False}
    return {"releases": [{"key": "jax_jit_cpu_matmul_64_f32", "environments": ["old", "new"],
                          "metric_order": metrics, "metrics": {m: [point, point] for m in metrics}}]}


def test_the_releases_figure_draws_every_phase():
    labels = texts(figures.releases(release_data()))
    assert "trace (phase)" in labels and "compile (phase)" in labels, labels
    assert "warm call" in labels and any(t.endswith("ms") for t in labels), labels


def test_break_even_panels_are_full_width_with_the_legend_beside_the_lines(monkeypatch):
    row = {"jit": "numba", "eager": "numpy", "verdict": "calls", "calls": 300.0, "ttfr_jit_s": 1.0,
           "warm_jit_s": 1e-4, "ttfr_eager_s": 0.1, "warm_eager_s": 3e-3}
    data = {"break_even": [dict(row, work="matmul_64_f32"), dict(row, work="mc_pi_1000_f64")]}
    monkeypatch.setattr(figures, "_svg", lambda fig: fig)  # the figure itself, to measure its layout
    fig = figures.break_even(data)
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 2
    fig_box = fig.get_window_extent()
    for ax in panels:
        box, legend = ax.get_window_extent(), ax.get_legend().get_window_extent()
        assert box.width > 0.6 * fig_box.width  # one panel per row, not a third of it
        assert legend.x0 >= box.x1  # the legend beside the lines, never over them
        ticks = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
        assert ticks and all(t.endswith("s") for t in ticks), ticks


def test_a_run_s_warn_case_reaches_the_figures_flagged(jitbench, fake_env, quiet_machine):
    """figure_data keeps a warn case that has timings (here its phase split is
    in doubt: crosscheck_disagrees), with its reason; the report draws it
    marked and says so."""
    res = jitbench("run", "--cases", "matmul_8_f32", "--cold-runs", "2", "--warm-iters", "3", "--backends",
                   "jax_jit_cpu,numpy", env=dict(fake_env(jax_jit_cpu="phases_disagree", numpy="ok"), **quiet_machine))
    case = json.loads((res.out / "cases" / "jax_jit_cpu_matmul_8_f32.json").read_text())
    assert (case["status"], case["reason"]) == ("warn", "crosscheck_disagrees")
    assert jitbench("report", str(res.out), out=False).rc == 0
    page = (res.out / "report" / "report.html").read_text()
    for fig in ("ttfr", "warm"):
        section = page.split(f"id='fig-{fig}'")[1].split("</section>")[0]
        labels = texts(section)
        assert "\u26a0 jax_jit_cpu_matmul_8_f32 (warn: crosscheck_disagrees)" in labels, (fig, labels)
        assert "numpy_matmul_8_f32" in labels
    assert "drawn in the figures with a red \u26a0 mark" in page


# -- Inside the compile: one icicle per case with a compile anatomy ---------
def icicle_tree():
    """As figure_data's "anatomy" gives it: the kept tree depth first, each parent's children longest
    first, then other, then unattributed. The medians of compile's children add up to more than
    compile's (medians are not additive): the last one must be clipped."""
    def node(path, s, kind="item", source=None):
        return {"path": path, "median_s": s, "kind": kind,
                "source": "" if kind in ("unattributed", "other") else source or f"xla event {path[-1]}"}
    return {"case": "jax_jit_cpu_matmul_64_f32", "warn": None, "headline": "3 anatomy processes",
            "nodes": [node(["compile"], 0.040, "phase", "jitbench phase"),
                      node(["compile", "backend_compile"], 0.030),
                      node(["compile", "backend_compile", "RunBackend"], 0.020),
                      node(["compile", "backend_compile", "unattributed"], 0.010, "unattributed"),
                      node(["compile", "cache lookup"], 0.015),
                      node(["compile", "unattributed"], 0.0, "unattributed"),
                      node(["trace"], 0.004, "phase", "jitbench phase"),
                      node(["trace", "unattributed"], 0.004, "unattributed")]}


def test_icicle_children_start_at_their_parents_left_edge_and_are_clipped_to_its_width():
    boxes = {tuple(n["path"]): (x0, w, clipped) for x0, w, n, clipped in figures.icicle_layout(icicle_tree()["nodes"])}
    assert boxes[("compile",)][:2] == (0.0, 0.040) and boxes[("trace",)][:2] == pytest.approx((0.040, 0.004))
    assert boxes[("compile", "backend_compile")] == (0.0, 0.030, False)
    assert boxes[("compile", "backend_compile", "RunBackend")] == (0.0, 0.020, False)
    # 30 ms + 15 ms in a 40 ms parent: the second child keeps only what is left of it, and says so.
    assert boxes[("compile", "cache lookup")] == pytest.approx((0.030, 0.010, True))
    # unattributed is one box after its siblings, never spread between them.
    assert boxes[("compile", "backend_compile", "unattributed")] == pytest.approx((0.020, 0.010, False))
    assert boxes[("trace", "unattributed")] == pytest.approx((0.040, 0.004, False))


def test_an_icicle_names_its_levels_sources_its_items_and_its_clipping_in_engineering_units():
    [icicle] = figures.anatomy_icicles({"anatomy": [icicle_tree()]})
    svg = icicle["svg"]
    labels = texts(svg)
    assert icicle["case"] == "jax_jit_cpu_matmul_64_f32" and "jax_jit_cpu_matmul_64_f32" in labels
    assert "1 · jitbench phase" in labels and "2 · xla event" in labels, labels  # each level's source
    assert "backend_compile" in labels and "30 ms" in labels, labels  # the top item, inside its box
    assert "cache lookup \u2702" in labels, labels  # clipped, marked
    ticks = [t for t in labels if re.fullmatch(r"[-\d.]+\s?(µs|ms|s)", t.replace("\u2009", " "))]
    assert ticks and not any(re.fullmatch(r"0\.0+\d+|\d(\.\d+)?e-?\d+", t) for t in labels), labels
    assert svg.count("<title>") == 7  # a tooltip per drawn box (the 0 s unattributed is not drawn)
    assert "<title>compile › cache lookup\n15 ms (median); clipped to the parent&#x27;s width: drawn 10 ms" in svg
    groups = dict(re.findall(r'<g id="icicle-\d+"><title>([^\n]*)\n(.*?)</g>', svg, re.S))
    assert "fill: url(#" in groups["compile › backend_compile › unattributed"]  # unattributed: a hatch pattern
    assert "fill: url(#" not in groups["compile › backend_compile"]


def test_another_threads_item_is_marked_with_its_thread_time_in_its_tooltip():
    tree = icicle_tree()
    pool = {"path": ["compile", "backend_compile", "LLVM compile task"], "median_s": 0.008, "kind": "item",
            "source": "xla event TaskDispatcher::dispatch", "thread": "tf_xla-cpu-codegen", "thread_median_s": 0.015}
    tree["nodes"].insert(3, pool)
    [icicle] = figures.anatomy_icicles({"anatomy": [tree]})
    svg = icicle["svg"]
    assert any(t.startswith("\u21c9 LLVM") for t in texts(svg)), texts(svg)  # marked in its label
    assert ("on another thread (tf_xla-cpu-codegen): the width is what its parent waited for it; thread time 15 ms"
            in svg), svg
    assert "\u21c9 on another thread: what its parent waited" in texts(svg)  # the legend says what the mark means
    groups = dict(re.findall(r'<g id="icicle-\d+"><title>([^\n]*)\n(.*?)</g>', svg, re.S))
    assert "stroke-dasharray" in groups["compile › backend_compile › LLVM compile task"]  # a dotted edge
    assert "stroke-dasharray" not in groups["compile › backend_compile › RunBackend"]


def test_no_anatomy_no_icicle():
    assert figures.anatomy_icicles({}) == [] and figures.anatomy_icicles({"anatomy": []}) == []


def test_an_icicle_row_is_named_by_its_source_kind_even_under_a_label_for_two_event_names():
    """JAX's backend_compile and backend_compile_and_load share one label: the
    row still reads "jax.profiler event", not the event's own name."""
    node = {"source": "jax.profiler event backend_compile",
            "path": ["compile", "XLA compile (backend_compile[_and_load])"]}
    assert figures._source_kind(node) == "jax.profiler event"
    custom = {"source": "my timer step_a", "path": ["compile", "step_a"]}  # an unknown kind: the old rule
    assert figures._source_kind(custom) == "my timer"


# -- Every axis labelled, no empty panel, no two labels over each other --------
def text_boxes(svg):
    """Each <text> of an SVG (svg.fonttype none: text stays text) as the four
    corners of the box it covers, its width and height from matplotlib's own
    font metrics, turned and placed as the SVG's transform says."""
    import math
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextToPath

    measure = TextToPath()
    boxes = []
    for attrs, body in re.findall(r"<text([^>]*)>([^<]*)</text>", svg):
        text = html_unescape(body)
        if not text.strip():
            continue
        size = float(re.search(r"font-size: ([\d.]+)px", attrs).group(1))
        anchor = (re.search(r"text-anchor: (\w+)", attrs) or [None, "start"])[1]
        w, h, d = measure.get_text_width_height_descent(text, FontProperties(family="DejaVu Sans", size=size),
                                                        ismath=False)
        if "translate(" in attrs:
            x, y = map(float, re.search(r"translate\(([-\d.e]+) ([-\d.e]+)\)", attrs).groups())
        else:
            x, y = float(re.search(r' x="([-\d.e]+)"', attrs).group(1)), float(re.search(r' y="([-\d.e]+)"', attrs).group(1))
        turn = re.search(r"rotate\(([-\d.e]+)", attrs)
        angle = math.radians(float(turn.group(1))) if turn else 0.0
        left = {"start": 0.0, "middle": -w / 2, "end": -w}[anchor]
        corners = [(left, -(h - d)), (left + w, -(h - d)), (left + w, d), (left, d)]
        c, s = math.cos(angle), math.sin(angle)
        boxes.append((text, [(x + px * c - py * s, y + px * s + py * c) for px, py in corners]))
    return boxes


def html_unescape(s):
    import html

    return html.unescape(s)


def overlap(a, b, slack=0.3):
    """Whether two convex quadrilaterals overlap by more than `slack` (separating axes)."""
    for poly in (a, b):
        for i in range(4):
            (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % 4]
            nx, ny = y2 - y1, x1 - x2
            norm = (nx * nx + ny * ny) ** 0.5 or 1.0
            pa = [(px * nx + py * ny) / norm for px, py in a]
            pb = [(px * nx + py * ny) / norm for px, py in b]
            if max(pa) <= min(pb) + slack or max(pb) <= min(pa) + slack:
                return False
    return True


def overlapping(svg):
    boxes = text_boxes(svg)
    return [(a[0], b[0]) for i, a in enumerate(boxes) for b in boxes[i + 1:] if overlap(a[1], b[1])]


def crowded_data():
    """Data that once drew labels over each other and axes without numbers:
    warm calls within less than a decade (9 ms and 10 ms labels side by side),
    a break-even whose totals span less than a decade, a release metric with no
    data in any environment."""
    data = ttfr_data()
    data["warm"] = [{"case": "sgd_step with jax.jit", "calls_s": [0.002, 0.004, 0.009, 0.012, 0.03], "warn": None},
                    {"case": "sgd_step without jax.jit", "calls_s": [0.0088, 0.0093, 0.01, 0.0101], "warn": None}]
    data["break_even"] = [{"work": "function sgd_step from mlp.py", "jit": "sgd_step with jax.jit",
                           "eager": "sgd_step without jax.jit", "verdict": "calls", "calls": 201,
                           "ahead_until_call": None, "ttfr_jit_s": 2.0, "warm_jit_s": 5e-4, "ttfr_eager_s": 1.9,
                           "warm_eager_s": 1e-3}]
    rel = release_data()
    rel["releases"][0]["metric_order"].append("phase_cache_load_s")
    rel["releases"][0]["metrics"]["phase_cache_load_s"] = [None, None]
    data.update(rel)
    return data


@pytest.mark.parametrize("key", ["ttfr", "warm", "breakeven", "releases"])
def test_no_two_labels_of_a_figure_overlap(key):
    svg = figures.FIGURES[key](crowded_data())
    assert svg, key
    assert overlapping(svg) == [], key


def test_the_overlap_check_sees_labels_drawn_over_each_other():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 1))
    ax.text(0.1, 0.5, "9 ms")
    ax.text(0.12, 0.5, "10 ms")  # what an unchecked log axis drew: "9 ms10 ms"
    import io

    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    assert ("9 ms", "10 ms") in overlapping(buf.getvalue())


def test_every_axis_has_tick_labels():
    import matplotlib.pyplot as plt

    drawn, to_svg = {}, figures._svg

    def keep(fig):
        drawn["fig"] = fig
        return to_svg(fig)  # labels the axes and clears overlaps, as every figure is

    try:
        figures._svg = keep
        figures.break_even(crowded_data())
    finally:
        figures._svg = to_svg
    fig = drawn["fig"]
    for ax in fig.axes:
        if not ax.get_visible() or ax.get_legend() is None:
            continue
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            shown = [t.get_text() for minor in (False, True)
                     for t, at in zip(axis.get_ticklabels(minor=minor), axis.get_ticklocs(minor=minor))
                     if t.get_visible() and t.get_text() and lo <= at <= hi]
            assert shown, (ax.get_title(), axis.axis_name)
    plt.close(fig)


def test_a_release_metric_without_data_gets_no_panel():
    labels = texts(figures.releases(crowded_data()))
    assert "cache_load (phase)" not in labels and "compile (phase)" in labels, labels
    assert figures.releases({"releases": [{"key": "k", "environments": ["a"], "metric_order": ["phase_x_s"],
                                           "metrics": {"phase_x_s": [None]}}]}) is None
