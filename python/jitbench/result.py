"""A run dir's artifacts (index.json, analysis.json, cases/*.json; schemas/)
as Python objects: per metric its median, confidence interval and samples;
the first call's phases; break-even against the eager baseline."""

import json
import pathlib
import statistics
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

# Result attribute -> the per-run field of the cold runs (cases/*.json:
# cold.runs[].<field>, summarised in cold.summary.<field>).
_COLD_METRICS = {"ttfr": "ttfr_s", "import_": "import_s", "first_call": "first_call_s"}


@dataclass(frozen=True)
class Metric:
    """One metric of one case, in seconds: the median, its 95% confidence
    interval (low, high) or None where the run has none, and every sample."""

    median: Optional[float]
    ci: Optional[Tuple[float, float]]
    samples: List[float] = field(default_factory=list)

    def __repr__(self):
        ci = f" [{fmt_seconds(self.ci[0])} – {fmt_seconds(self.ci[1])}]" if self.ci else ""
        return f"Metric({fmt_seconds(self.median)}{ci}, n={len(self.samples)})"


def fmt_seconds(s):
    if s is None:
        return "—"
    if s == 0:
        return "0 s"
    if s >= 1:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def _ci(summary):
    ci = (summary or {}).get("median_ci95")
    return (ci[0], ci[1]) if ci and None not in ci else None


def _ok_runs(runs):
    return [r for r in runs or [] if r.get("status") == "ok"]


def _cold_metric(case_doc, key):
    cold = case_doc.get("cold") or {}
    summary = (cold.get("summary") or {}).get(key) or {}
    samples = [r[key] for r in _ok_runs(cold.get("runs")) if r.get(key) is not None]
    return Metric(summary.get("median"), _ci(summary), samples)


def _compile_metric(case_doc):
    # The phases' sum of each ok cold run that reported phases; the run's
    # artifacts hold no interval for it.
    runs = _ok_runs((case_doc.get("cold") or {}).get("runs"))
    samples = [r["first_call_breakdown"]["sum_phases_s"] for r in runs
               if isinstance(r.get("first_call_breakdown"), dict) and r["first_call_breakdown"].get("phases")]
    return Metric(statistics.median(samples) if samples else None, None, samples)


def _warm_metric(case_doc):
    warm = case_doc.get("warm") or {}
    summary = warm.get("summary") or {}
    return Metric(summary.get("median"), _ci(summary), list(warm.get("calls_s") or []))


def _break_even_reason(row, doc):
    if doc["status"] != "ok" and row is None:
        return f"no break-even: the case's status is {doc['status']} ({doc.get('reason')})"
    if row is None:
        return "no eager baseline case of this workload in the run (analysis.json break_even)"
    if row["verdict"] == "ahead_until":
        return (f"ahead_until: the JIT's first result is sooner but its warm call ({fmt_seconds(row['warm_jit_s'])}) "
                f"is slower than the eager baseline's ({fmt_seconds(row['warm_eager_s'])}, {row['eager_case']}): "
                f"eager catches up after {row['calls']:.3g} more calls, so the JIT never pays for itself")
    if row["verdict"] == "never":
        return (f"never: the JIT's warm call ({fmt_seconds(row['warm_jit_s'])}) is no faster than the eager "
                f"baseline's ({fmt_seconds(row['warm_eager_s'])}, {row['eager_case']})")
    return None


@dataclass
class Case:
    """One measured case of a run."""

    name: str
    backend: str
    status: str
    reason: Optional[str]
    detail: Optional[str]
    is_jit: bool
    ttfr: Metric
    import_: Metric
    first_call: Metric
    compile: Metric
    warm_call: Metric
    phases: Dict[str, Optional[float]]
    n_star: Optional[float]
    n_star_ci: Optional[Tuple[Optional[float], Optional[float]]]
    n_star_reason: Optional[str]
    eager_case: Optional[str]
    doc: dict = field(repr=False)  # cases/<name>.json as read

    @property
    def metrics(self):
        return {"ttfr": self.ttfr, "import": self.import_, "first_call": self.first_call, "compile": self.compile,
                "warm_call": self.warm_call}

    @property
    def instructions(self):
        """run --count instructions: per phase (import, setup, first_call, first_call.<stage>, ttfr,
        second_call, warm_call) the counting processes' median, spread in % and n, from the case file's
        counts.summary; {} where nothing was counted."""
        counts = self.doc.get("counts") or {}
        return {p["phase"]: {"median": p["median"], "spread_pct": p["spread_pct"], "n": p["n"]}
                for p in (counts.get("summary") or {}).get("phases") or []}


def _phases(analysis_case):
    fc = (analysis_case or {}).get("first_call") or {}
    phases = dict(fc.get("phases_median_s") or {})
    if "unattributed_median_s" in fc:
        phases["unattributed"] = fc["unattributed_median_s"]
    return phases


def _case(doc, analysis_case, be_row):
    backend = doc.get("backend") or {}
    jit = be_row is not None or backend.get("jit") is True
    calls = be_row["calls"] if be_row and be_row["verdict"] != "ahead_until" else None
    if be_row and be_row["verdict"] == "immediately" and calls is None:
        calls = 0.0  # faster from the first call on
    return Case(
        name=doc["case"], backend=backend.get("name") or (doc.get("config") or {}).get("backend", ""),
        status=doc["status"], reason=doc.get("reason"), detail=doc.get("detail"),
        is_jit=jit,
        ttfr=_cold_metric(doc, "ttfr_s"), import_=_cold_metric(doc, "import_s"),
        first_call=_cold_metric(doc, "first_call_s"), compile=_compile_metric(doc), warm_call=_warm_metric(doc),
        phases=_phases(analysis_case), n_star=calls,
        n_star_ci=tuple(be_row["calls_ci95"]) if be_row and be_row["verdict"] != "ahead_until" else None,
        n_star_reason=_break_even_reason(be_row, doc) if jit else "an eager case: JIT cases break even against it",
        eager_case=be_row["eager_case"] if be_row else None, doc=doc)


class Result:
    """A run dir read back. The top-level metrics, phases, N*, status and
    reason are those of `case` (the first JIT case, else the first case);
    `cases` holds every case of the run."""

    def __init__(self, out_dir, index, analysis, cases, top=None, output=None, returncode=None):
        self.out_dir = pathlib.Path(out_dir)
        self.index = index
        self.analysis = analysis
        self.cases = cases
        self.output = output  # the binary's output, where this Result came from a command
        self.returncode = returncode
        self.case = top if top is not None else (cases[0] if cases else None)
        self._figure = None

    def __getattr__(self, name):
        # ttfr, import_, first_call, compile, warm_call, phases, n_star, status, ...: the top case's.
        if name.startswith("_") or self.__dict__.get("case") is None:
            raise AttributeError(name)
        return getattr(self.__dict__["case"], name)

    def __repr__(self):
        c = self.case
        if c is None:
            return f"Result({self.out_dir}: no cases)"
        return (f"Result({c.name}: {c.status}, ttfr={c.ttfr!r}, warm_call={c.warm_call!r}, "
                f"n_star={c.n_star!r}, out_dir={str(self.out_dir)!r})")

    def _repr_html_(self):
        from . import _html

        return _html.result_html(self)


def load(out_dir, output=None, returncode=None):
    """Reads any run dir (`jitbench run`, `jitbench measure`) into a Result."""
    out = pathlib.Path(out_dir)
    if not (out / "index.json").is_file():
        raise FileNotFoundError(f"{out} is no jitbench run dir: it has no index.json")
    index = json.loads((out / "index.json").read_text())
    analysis_path = out / "analysis.json"
    analysis = json.loads(analysis_path.read_text()) if analysis_path.is_file() else {}
    by_case = {c["case"]: c for c in analysis.get("cases", [])}
    break_even = {}
    for row in analysis.get("break_even", []):
        break_even.setdefault(row["jit_case"], row)
    eager = {row["eager_case"] for row in analysis.get("break_even", [])}
    cases = []
    for entry in index.get("cases", []):
        path = out / entry["path"]
        if path.is_file():
            doc = json.loads(path.read_text())
            cases.append(_case(doc, by_case.get(doc["case"]), break_even.get(doc["case"])))
    # The top level: the first JIT case, else the first that is no eager baseline.
    top = next((c for c in cases if c.is_jit), None) or next((c for c in cases if c.name not in eager), None)
    return Result(out, index, analysis, cases, top, output, returncode)
