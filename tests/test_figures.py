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
