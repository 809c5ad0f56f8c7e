"""A run dir's artifacts (index.json, analysis.json, cases/*.json; schemas/)
as Python objects: per metric its median, confidence interval and samples;
the first call's phases; break-even against the eager baseline."""

import json
import math
import pathlib
import statistics
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

from ._format import fmt_seconds
from ._order_stats import order_statistic_rank

# Result attribute -> the per-run field of the cold runs (cases/*.json:
# cold.runs[].<field>, summarised in cold.summary.<field>).
_COLD_METRICS = {"ttfr": "ttfr_s", "import_": "import_s", "first_call": "first_call_s"}


# summary.md's interval rule, the API's too: a distribution-free 95% interval
# of the median (order statistics) from independent samples -- one per process
# (a cold run; a warm process's median: the calls of one process are not
# independent) -- where there are enough of them for one (6 or more), else none,
# and the range instead.
CONFIDENCE = 0.95


def median_interval(samples):
    """The 95% interval of the median of independent samples, or None with fewer than 6."""
    k = order_statistic_rank(len(samples), CONFIDENCE)
    if k == 0:
        return None
    v = sorted(samples)
    return (v[k - 1], v[len(v) - k])


@dataclass(frozen=True)
class Metric:
    """One metric of one case, in seconds: the median, its 95% confidence
    interval (low, high) by summary.md's rule -- from 6 or more processes, else
    None -- and the samples it comes from, one per process (`range` is theirs)."""

    median: Optional[float]
    ci: Optional[Tuple[float, float]]
    samples: List[float] = field(default_factory=list)

    @property
    def n(self):
        return len(self.samples)

    @property
    def range(self):
        return (min(self.samples), max(self.samples)) if self.samples else None

    def __repr__(self):
        if self.ci:
            spread = f" [{fmt_seconds(self.ci[0])} – {fmt_seconds(self.ci[1])}]"
        elif len(self.samples) > 1:
            spread = f", range {fmt_seconds(self.range[0])} – {fmt_seconds(self.range[1])}"
        else:
            spread = ""
        return f"Metric({fmt_seconds(self.median)}{spread}, n={self.n})"


def _ok_runs(runs):
    return [r for r in runs or [] if r.get("status") == "ok"]


def _cold_metric(case_doc, key):
    cold = case_doc.get("cold") or {}
    summary = (cold.get("summary") or {}).get(key) or {}
    samples = [r[key] for r in _ok_runs(cold.get("runs")) if r.get(key) is not None]
    return Metric(summary.get("median"), median_interval(samples), samples)


def _compile_metric(case_doc):
    # The phases' sum of each ok cold run that reported phases; the run's
    # artifacts hold no interval for it.
    runs = _ok_runs((case_doc.get("cold") or {}).get("runs"))
    samples = [r["first_call_breakdown"]["sum_phases_s"] for r in runs
               if isinstance(r.get("first_call_breakdown"), dict) and r["first_call_breakdown"].get("phases")]
    return Metric(statistics.median(samples) if samples else None, None, samples)


def _warm_metric(case_doc):
    """The median of every warm call (summary.md's warm call), its interval from the warm processes' medians."""
    warm = case_doc.get("warm") or {}
    summary = warm.get("summary") or {}
    medians = list(warm.get("process_medians_s") or [])
    return Metric(summary.get("median"), median_interval(medians), medians)


def _warm_calls(case_doc):
    """The calls each warm process made (calibrated by time where no count was fixed)."""
    return [len(r.get("calls_s") or []) for r in (case_doc.get("warm") or {}).get("runs") or []]


# N*'s meaning, as summary.md says it (src/analysis/analysis.h, kNStarMeaning).
N_STAR_MEANING = ("N* is the number of calls, the first one included, after which the JIT has taken no more time in "
                  "all than its eager baseline: 1 where it is no later to its first result and no slower warm, "
                  "'never' where it does not pay for itself.")


def _whole_calls(further):
    """analysis.json before v5 counted further calls after the first, fractionally: as v5's N*."""
    return None if further is None else 1 + math.ceil(further - 1e-9)


def break_even_row(row, schema):
    """A break_even row of any analysis.json version as v5 says it: verdict calls or never, N* whole calls
    (the first included), ahead_until_call where the JIT is ahead for a while and then caught up."""
    if row is None or schema == "jitbench.analysis.v5":
        return row
    row = dict(row)
    verdict, calls = row["verdict"], row.get("calls")
    lo, hi = (row.get("calls_ci95") or [None, None])[:2]
    row["ahead_until_call"] = None
    if verdict == "immediately":
        row.update(verdict="calls", calls=1, calls_ci95=[1, _whole_calls(hi)])
    elif verdict == "calls":
        row.update(calls=_whole_calls(calls), calls_ci95=[_whole_calls(lo), _whole_calls(hi)])
    elif verdict == "ahead_until":
        row.update(verdict="never", calls=None, calls_ci95=[None, None],
                   ahead_until_call=None if calls is None else 1 + math.floor(calls + 1e-9))
    return row


def _break_even_reason(row, doc):
    if doc["status"] != "ok" and row is None:
        return f"no break-even: the case's status is {doc['status']} ({doc.get('reason')})"
    if row is None:
        return "no eager baseline case of this workload in the run (analysis.json break_even)"
    if row["verdict"] == "never" and row.get("ahead_until_call"):
        return (f"never: the JIT's first result is sooner but its warm call ({fmt_seconds(row['warm_jit_s'])}) "
                f"is slower than the eager baseline's ({fmt_seconds(row['warm_eager_s'])}, {row['eager_case']}): "
                f"no slower in all through call {row['ahead_until_call']}, then eager catches up")
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
    # N* (N_STAR_MEANING): whole calls, the first included, or "never"; None where the run has no break-even
    # for the case (n_star_reason says why).
    n_star: Union[int, str, None]
    n_star_ci: Optional[Tuple[Optional[int], Optional[int]]]  # None under 6 cold runs a side, as in summary.md
    n_star_reason: Optional[str]
    eager_case: Optional[str]
    label: str = ""  # what the case runs, as summary.md names it ("sgd_step with jax.jit"; else its id)
    warm_calls: List[int] = field(default_factory=list)  # calls per warm process
    ahead_until_call: Optional[int] = None  # n_star "never" after a lead: the last call the JIT is no slower in all
    # analysis.json's interference per side ("cold", "warm"): runs, reported, interfered and, from jitbench's
    # grades on, grade, others_cpus_median and the processes per grade (docs/noise.md, "Grades"); {} where absent.
    interference: Dict[str, dict] = field(repr=False, default_factory=dict)
    doc: dict = field(repr=False, default_factory=dict)  # cases/<name>.json as read

    @property
    def grade(self):
        """The cold runs' interference grade: "quiet", "busy", "contended", or "not reported" (none measured, or a
        run written before grades)."""
        return (self.interference.get("cold") or {}).get("grade", "not reported")

    @property
    def others_cpus(self):
        """The CPUs everything but the worker took while the cold runs ran (median); None where not reported."""
        return (self.interference.get("cold") or {}).get("others_cpus_median")

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


def _n_star(row):
    if row is None:
        return None
    return row["calls"] if row["verdict"] == "calls" else "never"


def _n_star_ci(row, doc, eager_doc):
    """N*'s bootstrap interval where both cases have 6 cold runs or more (summary.md's rule), else None."""
    if row is None or eager_doc is None:
        return None
    if any(order_statistic_rank(len(_ok_runs((d.get("cold") or {}).get("runs"))), CONFIDENCE) == 0
           for d in (doc, eager_doc)):
        return None
    lo, hi = row.get("calls_ci95") or [None, None]
    return (lo, hi)


def _case(doc, analysis_case, be_row, eager_doc=None):
    backend = doc.get("backend") or {}
    jit = be_row is not None or backend.get("jit") is True
    return Case(
        name=doc["case"], backend=backend.get("name") or (doc.get("config") or {}).get("backend", ""),
        status=doc["status"], reason=doc.get("reason"), detail=doc.get("detail"),
        is_jit=jit,
        ttfr=_cold_metric(doc, "ttfr_s"), import_=_cold_metric(doc, "import_s"),
        first_call=_cold_metric(doc, "first_call_s"), compile=_compile_metric(doc), warm_call=_warm_metric(doc),
        phases=_phases(analysis_case), n_star=_n_star(be_row), n_star_ci=_n_star_ci(be_row, doc, eager_doc),
        n_star_reason=_break_even_reason(be_row, doc) if jit else "an eager case: JIT cases break even against it",
        eager_case=be_row["eager_case"] if be_row else None,
        label=(doc.get("measured") or {}).get("label") or doc["case"], warm_calls=_warm_calls(doc),
        ahead_until_call=be_row.get("ahead_until_call") if be_row else None,
        interference=(analysis_case or {}).get("interference") or {}, doc=doc)


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


class InvalidRun(ValueError):
    """The run dir is not one `jitbench validate` accepts: its first problem, in one line."""


def _require_valid(out):
    """What `jitbench validate` refuses (a tampered or half-written file, a
    link, a number no run records) is refused here too, by the binary's own
    checks: a Result is never built from data the CLI would not read."""
    from ._binary import run_binary

    code, stdout, stderr = run_binary(["validate", str(out)])
    if code in (0, 6):  # valid; valid but incomplete (a stopped run keeps what it measured)
        return
    first = next((line for line in stderr.splitlines() if line.strip()), stdout.strip() or f"exit {code}")
    raise InvalidRun(f"{out} is not a valid jitbench run dir ({first.removeprefix('invalid: ')}; see "
                     f"`jitbench validate {out}`)")


def load(out_dir, output=None, returncode=None):
    """Reads any run dir (`jitbench run`, `jitbench measure`) into a Result,
    after the checks `jitbench validate` makes (InvalidRun, one line, if it fails them)."""
    out = pathlib.Path(out_dir)
    if not (out / "index.json").is_file():
        raise FileNotFoundError(f"{out} is no jitbench run dir: it has no index.json")
    _require_valid(out)
    index = json.loads((out / "index.json").read_text())
    analysis_path = out / "analysis.json"
    analysis = json.loads(analysis_path.read_text()) if analysis_path.is_file() else {}
    by_case = {c["case"]: c for c in analysis.get("cases", [])}
    schema = analysis.get("schema_version")
    break_even = {}
    for row in analysis.get("break_even", []):
        break_even.setdefault(row["jit_case"], break_even_row(row, schema))
    eager = {row["eager_case"] for row in analysis.get("break_even", [])}
    docs = {}
    for entry in index.get("cases", []):
        path = out / entry["path"]
        if path.is_file():
            doc = json.loads(path.read_text())
            docs[doc["case"]] = doc
    cases = []
    for name, doc in docs.items():
        row = break_even.get(name)
        cases.append(_case(doc, by_case.get(name), row, docs.get(row["eager_case"]) if row else None))
    # The top level: the first JIT case, else the first that is no eager baseline.
    top = next((c for c in cases if c.is_jit), None) or next((c for c in cases if c.name not in eager), None)
    return Result(out, index, analysis, cases, top, output, returncode)
