#include "export/site_html.h"

#include <fmt/format.h>

#include <random>

#include "report/format.h"
#include "report/table.h"

namespace jitbench {
using nlohmann::json;

namespace {
constexpr const char* kSiteCss =
    "body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}\n"
    "table{border-collapse:collapse;font-size:13px;margin:.5em 0}td,th{border:1px solid #ddd;padding:3px 7px;"
    "text-align:left;vertical-align:top}th{background:#f4f4f4}tr.flagged td{background:#fdecea}\n"
    "code{font-size:12px}.note{color:#555;font-size:13px}.case{margin:1.5em 0 2.5em}"
    ".case svg{max-width:100%;height:auto}";

std::string signer(const RegistryEntry& e) {
  if (!e.signature) return "unsigned";
  const auto principal = e.signature->principal.value_or("");
  return principal.empty() ? "key `" + e.signature->key + "` (signer not checked)"
                           : "**" + principal + "** (`" + e.signature->key + "`)";
}

std::string step_cell(const compare::FlaggedStep& f) {
  if (f.metric == "status") return "status: " + f.status_change;
  return fmt::format("`{}` ×{:.2f} [{:.2f}, {:.2f}], p = {:.3g}", f.metric, f.ratio, f.lo, f.hi, f.p);
}

std::string steps_table(const std::vector<compare::FlaggedStep>& steps) {
  Table t{{"machine", "from", "to", "case", "what", "software"}, {}};
  for (const auto& f : steps)
    t.rows.push_back({{f.machine, "`" + f.from_id + "`", "`" + f.to_id + "`", "`" + f.case_id + "`", step_cell(f),
                       f.environment_changed ? "**changed** between the two" : "same"},
                      "flagged", f.case_id});
  return to_html(t);
}

// Where a row's links go once the table is rendered: a marker with a number
// drawn for this page, which no label written before it can forge.
std::string link_marker(std::size_t k) {
  static const std::string nonce = [] {
    std::random_device rd;
    return fmt::format("{:08x}{:08x}{:08x}", rd(), rd(), rd());
  }();
  return fmt::format("@@links-{}-{}@@", nonce, k);
}

std::string snapshots_table(const SitePage& p) {
  Table t{{"snapshot", "published", "suite", "machine", "software", "jitbench", "cases ok/warn/failed", "signed by",
           "files"}, {}};
  for (std::size_t k = p.entries.size(); k-- > 0;) {
    const auto& e = p.entries[k];
    TableRow row{{fmt::format("#{} `{}`", k + 1, e.id), e.published_at, e.suite, e.machine,
                  "`" + e.environment_digest.substr(0, 12) + "`", "`" + e.jitbench_git.describe + "`",
                  fmt::format("{}/{}/{}", e.n_ok, e.n_warn, e.n_failed), signer(e), link_marker(k)}, "", ""};
    t.rows.push_back(std::move(row));  // the links are raw HTML: put in after rendering
  }
  std::string html = to_html(t);
  for (std::size_t k = 0; k < p.entries.size(); ++k) {
    const auto dir = html_escape(p.entries[k].path);
    std::string links = "<a href='" + dir + "/run/summary.md'>summary</a>";
    if (p.has_report[k]) links += " · <a href='" + dir + "/run/report/report.html'>report</a>";
    links += " · <a href='" + dir + "/run/index.json'>index</a> · <a href='" + dir + "/snapshot_index.json'>seed index</a>";
    const auto marker = link_marker(k);
    if (auto pos = html.find(marker); pos != std::string::npos) html.replace(pos, marker.size(), links);
  }
  return html;
}
}  // namespace

std::string site_value(const std::string& metric, double v) {
  if (metric == "peak_rss_kib") return fmt::format("{:.0f} MiB", v / 1024.0);
  return format_seconds(v);
}

namespace {
std::string series_label(const compare::HistorySeries& s) {
  return s.machine + " · software " + s.environment_digest.substr(0, 8);
}

TableRow series_row(const SitePage& p, const compare::HistorySeries& s) {
  TableRow row{{"`" + s.metric + "`", series_label(s)}, "", s.case_id};
  row.cells.resize(2 + p.entries.size(), "");
  for (const auto& pt : s.points)
    row.cells[2 + pt.snapshot] = fmt::format("{}{} [{}, {}] n={}", pt.flagged ? "**▲ flagged** " : "",
                                             site_value(s.metric, pt.median), site_value(s.metric, pt.lo),
                                             site_value(s.metric, pt.hi), pt.n);
  return row;
}

// One row per series of the case, in the metrics' order; one column per snapshot.
std::string case_table(const SitePage& p, const std::string& id) {
  Table t{{"metric", "machine · software"}, {}};
  for (std::size_t k = 0; k < p.entries.size(); ++k)
    t.columns.push_back(fmt::format("#{} `{}`", k + 1, p.entries[k].id));
  for (const auto& metric : p.history.metrics)
    for (const auto& s : p.history.series)
      if (s.case_id == id && s.metric == metric) t.rows.push_back(series_row(p, s));
  return to_html(t);
}

std::string regressions_section(const SitePage& p) {
  const auto& h = p.history;
  std::string html = "<section id='regressions'><h2>Regressions since the last snapshot</h2>";
  const auto gate = fmt::format("compare's gate: significantly worse (Mann–Whitney p &lt; {:g}) with the whole 95% "
                                "CI of the ratio above {:g}, or a case whose status got worse",
                                p.alpha, 1 + p.gate_pct / 100);
  if (h.since_last.empty())
    html += "<p>None: no step into a machine's newest snapshot is flagged by " + gate + ".</p>";
  else
    html += fmt::format("<p><b>{} step(s)</b> into a machine's newest snapshot flagged by {}.</p>",
                        h.since_last.size(), gate) + steps_table(h.since_last);
  html += "</section>\n";
  if (h.flagged.size() > h.since_last.size())
    html += "<section id='flagged'><h2>Every flagged step</h2>" + steps_table(h.flagged) + "</section>\n";
  return html;
}
}  // namespace

std::string site_html(const SitePage& p) {
  std::string page = fmt::format(
      "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>jitbench snapshots</title><style>{}"
      "</style></head><body>\n<h1>jitbench snapshots</h1>\n<p class='note'>{} snapshot(s), {} case(s); written "
      "by <code>jitbench publish</code> at {}. Each point is the median of one sample per process with its "
      "bootstrap 95% CI; a line joins snapshots of one machine in one software environment only.</p>\n",
      kSiteCss, p.entries.size(), p.history.case_ids.size(), html_escape(p.generated_at));
  page += regressions_section(p);
  page += "<section id='snapshots'><h2>Snapshots, newest first</h2>" + snapshots_table(p) + "</section>\n";
  page += "<section id='history'><h2>Per case, over the snapshots</h2>\n";
  for (const auto& id : p.history.case_ids) {
    page += "<section class='case' id='case-" + html_escape(id) + "' data-case='" + html_escape(id) + "'><h3><code>" +
            html_escape(id) + "</code></h3>";
    if (auto it = p.svgs.find(id); it != p.svgs.end()) page += it->second;
    page += case_table(p, id) + "</section>\n";
  }
  return page + "</section>\n</body></html>\n";
}

json site_figure_data(const SitePage& p) {
  json snapshots = json::array();
  for (std::size_t k = 0; k < p.entries.size(); ++k) snapshots.push_back(fmt::format("#{}", k + 1));
  json cases = json::array();
  for (std::size_t k = 0; k < p.history.case_ids.size(); ++k) {
    const auto& id = p.history.case_ids[k];
    json panels = json::object();
    for (const auto& s : p.history.series) {
      if (s.case_id != id) continue;
      json line = {{"label", series_label(s)}, {"x", json::array()}, {"median", json::array()},
                   {"lo", json::array()}, {"hi", json::array()}, {"flagged", json::array()}};
      for (const auto& pt : s.points) {
        line["x"].push_back(pt.snapshot);
        line["median"].push_back(pt.median);
        line["lo"].push_back(pt.lo);
        line["hi"].push_back(pt.hi);
        line["flagged"].push_back(pt.flagged);
      }
      panels[s.metric].push_back(line);
    }
    json ordered = json::array();
    for (const auto& m : p.history.metrics)
      if (panels.contains(m)) ordered.push_back({{"metric", m}, {"lines", panels[m]}});
    cases.push_back({{"key", "history-" + std::to_string(k)}, {"case", id}, {"panels", ordered}});
  }
  return {{"site_history", {{"snapshots", snapshots}, {"cases", cases}}}};
}

}  // namespace jitbench
