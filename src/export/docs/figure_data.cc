#include "export/docs/figure_data.h"

#include "compare/releases.h"
#include "export/docs/anatomy_table.h"
#include "export/docs/case_names.h"
#include "export/json/json_util.h"
#include "results/anatomy.h"
#include "stats/stats.h"

namespace jitbench {
using nlohmann::json;

const std::vector<FigureInfo>& report_figures() {
  static const std::vector<FigureInfo> kFigures = {
      {"ttfr", "Time to first result by phase",
       "One bar per case: import, building the inputs, each compile phase the framework reports, and what no phase "
       "covers (unattributed, hatched). A warn case with timings is drawn too, outlined in red and labelled with "
       "its reason (⚠): its times are what they are, and no comparison uses them unless the warning is about the "
       "phase split alone (crosscheck_*)."},
      {"warm", "Warm-call distributions",
       "Every warm call of every ok case, and of every warn case that has them (red, labelled ⚠ with its reason), "
       "log scale."},
      {"breakeven", "Break-even: total time against the number of calls",
       "One full-width panel per workload and size, both axes logarithmic: TTFR + N × warm call for each JIT (solid) and its "
       "eager baseline (dashed); the dot is N*, where the JIT has paid for itself (also in each legend)."},
      {"mcpi", "mc_pi: error against time",
       "|π − estimate| against the warm call, one line per backend over n. Every backend counts the same points, "
       "so each n has one error for all of them (up to float32 rounding on the circle's edge; n named on the "
       "right); what differs is the time."},
      {"rnn", "rnn: compile time against the unrolled length",
       "lax.scan compiles one step; the unrolled loop compiles every step."},
      {"remat", "remat: memory and time with and without checkpointing",
       "XLA's temporary buffers, the first call's peak-RSS growth, and the warm call."},
      {"releases", "Releases: each metric against the environment",
       "One block per case measured in several environments, in the order given, one panel per metric (import, "
       "first call, TTFR, warm call and each compile phase the framework reports): the median with its 95% CI per "
       "environment; a red ring marks a step the Mann–Whitney test finds significant against the environment "
       "before it."},
  };
  return kFigures;
}

const FigureInfo& anatomy_figure() {
  static const FigureInfo kInfo{
      "anatomy", "Inside the compile",
      "One icicle per case with a compile anatomy (`--anatomy`, docs/anatomy.md; the case file's "
      "`anatomy.summary.nodes`). Each row is one level of the tree, its label naming the level's source: level 1 is "
      "jitbench's phases of the first call, the levels below the framework's own events or timers (hover a box for "
      "its source). A box's width is its item's median over the anatomy processes; children are laid left to right "
      "from their parent's left edge, longest first, so x is time within the first call but not the moment an item "
      "ran. Medians are not additive: children whose medians add up to more than their parent's are clipped to the "
      "parent's width (marked ✂, their medians in the labels and the case file). `unattributed` (hatched) is what the "
      "children leave of their parent, one box, never spread over them; `other` (grey) the items too small to keep, "
      "summed. An item on another thread than the dispatching one (a thread pool's stage, marked ⇉, dotted edge) is "
      "as wide as the time its parent waited for it; its thread time, summed over the pool's threads, is in its "
      "tooltip."};
  return kInfo;
}

std::string work_of(const Case& c) { return c.id.substr(c.backend.size() + 1); }

namespace {
// A warn case's reason ("interpreter_only"), null for an ok case: the figures mark it.
json warn_flag(const CaseResult& c) {
  const auto reason = to_string(c.reason);
  return c.status == Status::Warn ? json(reason.substr(0, reason.find(':'))) : json(nullptr);
}

json ttfr_parts(const std::vector<CaseResult>& cases, const Analysis& analysis) {
  json out = json::array();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const auto ttfr = cold_values(c, "ttfr_s");
    if ((c.status != Status::Ok && c.status != Status::Warn) || ttfr.empty()) continue;
    const auto med = [&](const char* m) { return stats::median(cold_values(c, m)).value_or(0.0); };
    json parts = json::array({json::array({"import", med("import_s")}), json::array({"setup", med("setup_s")})});
    double sum = 0;
    for (const auto& [name, v] : analysis.cases[i].first_call.phase_medians) {
      if (!v) continue;
      parts.push_back(json::array({name, *v}));
      sum += *v;
    }
    parts.push_back(json::array({"unattributed", std::max(med("first_call_s") - sum, 0.0)}));
    out.push_back({{"case", case_name_text(c.c)}, {"parts", parts}, {"warn", warn_flag(c)}});
  }
  return out;
}

// Per case with an anatomy: its kept tree in the summary's order (each
// parent's children longest first, then other, then unattributed).
json anatomy_trees(const std::vector<CaseResult>& cases) {
  json out = json::array();
  for (const auto& c : cases) {
    const auto a = anatomy_summary(c);
    if (!a || a->nodes.empty()) continue;
    json nodes = json::array();
    for (const auto& n : a->nodes) {
      const bool derived = n.source.empty() && n.path.size() > 1;  // jitbench's own: other, unattributed
      const std::string kind = n.path.size() == 1                                 ? "phase"
                               : derived && n.path.back() == kAnatomyUnattributed ? "unattributed"
                               : derived && n.path.back() == kAnatomyOther        ? "other"
                                                                                  : "item";
      json node = {{"path", n.path}, {"source", n.source}, {"median_s", n.median_s}, {"kind", kind}};
      if (!n.thread.empty()) node["thread"] = n.thread;  // another thread's item: marked in the icicle
      if (n.thread_median_s) node["thread_median_s"] = *n.thread_median_s;
      nodes.push_back(node);
    }
    out.push_back({{"case", c.c.id}, {"warn", warn_flag(c)}, {"headline", anatomy_summary_line(*a)}, {"nodes", nodes}});
  }
  return out;
}

json break_even_rows(const Analysis& analysis) {
  json out = json::array();
  for (const auto& r : analysis.break_even) {
    if (r.be.warm_jit <= 0) continue;
    const bool measured = r.jit->c.workload_info && r.jit->c.workload_info->measured;
    out.push_back({{"work", measured ? work_title_text(r.jit->c) : work_of(r.jit->c)}, {"jit", backend_text(r.jit->c)},
                   {"eager", backend_text(r.baseline.c->c)}, {"verdict", r.be.verdict},
                   {"calls", number_or_null(r.be.calls)}, {"ahead_until_call", number_or_null(r.be.ahead_until_call)},
                   {"ttfr_jit_s", r.be.ttfr_jit},
                   {"warm_jit_s", r.be.warm_jit}, {"ttfr_eager_s", r.be.ttfr_eager},
                   {"warm_eager_s", r.be.warm_eager}});
  }
  return out;
}

json pair_points(const Analysis& analysis) {
  json rnn = json::array(), remat = json::array();
  for (const auto& row : analysis.pairs)
    for (const auto& v : row.variants) {
      if (row.pair == "rnn")
        rnn.push_back({{"n", row.n}, {"compile", number_or_null(v.compile_median_s)}, {"variant", v.c->c.workload}});
      if (row.pair == "remat")
        remat.push_back({{"label", v.c->c.workload + " n=" + std::to_string(row.n)},
                         {"temp_bytes", v.compiled_temp_bytes},
                         {"rss_growth_kib", number_or_null(v.rss_growth_median_kib)},
                         {"warm_s", number_or_null(v.warm_median_s)}});
    }
  return {{"rnn", rnn}, {"remat", remat}};
}
}  // namespace

// Per release row: for import, first call, TTFR and warm call, each environment's
// median and CI and whether the step into it is significant.
json release_points(const std::vector<CaseResult>& cases) {
  json out = json::array();
  for (const auto& row : compare::release_rows(cases)) {
    json envs = json::array(), metrics = json::object();
    for (const auto& e : row.entries) envs.push_back(e.env);
    for (const auto& m : row.metrics) {
      json points = json::array();
      for (const auto& e : row.entries) {
        const auto v = e.values.find(m);
        const auto s = e.step.find(m);
        const bool step = s != e.step.end() && s->second.significant;
        points.push_back(v == e.values.end() ? json(nullptr)
                                             : json({{"median", v->second[0]}, {"lo", v->second[1]},
                                                     {"hi", v->second[2]}, {"significant_step", step}}));
      }
      metrics[m] = points;
    }
    out.push_back({{"key", row.key}, {"environments", envs}, {"metrics", metrics}, {"metric_order", row.metrics}});
  }
  return out;
}

json figure_data(const std::vector<CaseResult>& cases, const Analysis& analysis) {
  json warm = json::array(), accuracy = json::array();
  for (const auto& c : cases)
    if (timings_comparable(c) || c.status == Status::Warn)
      if (const auto calls = warm_values(c); !calls.empty())
        warm.push_back({{"case", case_name_text(c.c)}, {"calls_s", calls}, {"warn", warn_flag(c)}});
  for (const auto& a : analysis.accuracy)
    accuracy.push_back({{"backend", a.c->c.backend}, {"n", a.c->c.n}, {"abs_error", a.abs_error},
                        {"warm_median_s", number_or_null(a.warm_median_s)}});
  const auto pairs = pair_points(analysis);
  return {{"ttfr", ttfr_parts(cases, analysis)}, {"warm", warm}, {"break_even", break_even_rows(analysis)},
          {"accuracy", accuracy}, {"rnn", pairs["rnn"]}, {"remat", pairs["remat"]},
          {"releases", release_points(cases)}, {"anatomy", anatomy_trees(cases)}};
}

}  // namespace jitbench
