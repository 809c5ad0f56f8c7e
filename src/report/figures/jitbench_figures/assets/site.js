// The publish site's behaviour (no network: everything it reads is in the page).
// Index: the case list's search. Case page: one dygraphs chart per metric from
// the page's #case-data, with hover values, zoom, series toggles and the x axis
// by publication date or order.
(function () {
  "use strict";
  function formatValue(metric, v) {  // as pages.py's value()
    if (v === null || v === undefined || isNaN(v)) return "";
    if (metric === "peak_rss_kib") return (v / 1024).toFixed(0) + " MiB";
    if (metric.indexOf("instructions_") === 0) {  // an instruction count: k, M, G (pages.py's count_text)
      var scales = [[1e12, " T"], [1e9, " G"], [1e6, " M"], [1e3, " k"]];
      for (var i = 0; i < scales.length; i++)
        if (Math.abs(v) >= scales[i][0]) {
          var x = v / scales[i][0];
          return x.toFixed(Math.abs(x) >= 100 ? 1 : Math.abs(x) >= 10 ? 2 : 3) + scales[i][1];
        }
      return v.toFixed(0);
    }
    var a = Math.abs(v);
    if (a === 0) return "0";
    var s = a >= 1 ? [1, " s"] : a >= 1e-3 ? [1e3, " ms"] : [1e6, " µs"];
    return Number((v * s[0]).toPrecision(3)) + s[1];
  }

  var search = document.getElementById("case-search");
  if (search) {
    search.addEventListener("input", function () {
      var q = search.value.trim().toLowerCase(), shown = 0, items = document.querySelectorAll("#case-list li");
      items.forEach(function (li) {
        li.hidden = q !== "" && li.getAttribute("data-case").toLowerCase().indexOf(q) < 0;
        if (!li.hidden) shown += 1;
      });
      document.getElementById("case-count").textContent = shown + " of " + items.length;
    });
  }

  var dataEl = document.getElementById("case-data");
  if (!dataEl || typeof Dygraph === "undefined") return;
  var view = JSON.parse(dataEl.textContent);
  var graphs = [];

  function rows(metric, byDate) {
    return view.snapshots.map(function (s, k) {
      var row = [byDate ? new Date(s.at) : s.n];
      metric.columns.forEach(function (col) {
        var p = col.points[k];
        if (p) row.push([p.lo, p.median, p.hi]);
        else if (col.own.indexOf(k) >= 0) row.push([NaN, NaN, NaN]);  // its own machine's snapshot: a gap
        else row.push(null);  // another machine's snapshot: the line goes on
      });
      return row;
    });
  }

  function draw(byDate) {
    var visible = Array.prototype.map.call(document.querySelectorAll(".series-toggle"), function (c) { return c.checked; });
    graphs.forEach(function (g) { g.destroy(); });
    graphs = view.metrics.map(function (metric, i) {
      var point = function (row, col) { return metric.columns[col - 1].points[row]; };
      return new Dygraph(document.getElementById("chart-" + i), rows(metric, byDate), {
        labels: ["snapshot"].concat(view.labels), customBars: true, connectSeparatedPoints: true,
        drawPoints: true, pointSize: 3, xRangePad: 12, highlightCircleSize: 5, includeZero: true, visibility: visible,
        labelsDiv: document.getElementById("legend-" + i), labelsSeparateLines: true, legend: "always",
        xlabel: byDate ? "published (UTC)" : "snapshot (publication order)",
        ylabel: metric.unit === "MiB" ? "MiB" : metric.unit === "instructions" ? "instructions" : "time",
        axes: {
          y: { valueFormatter: function (v, o, name, g, row, col) {
                 var p = point(row, col);
                 if (!p) return formatValue(metric.metric, v);
                 return formatValue(metric.metric, p.median) + " [" + formatValue(metric.metric, p.lo) + ", " +
                        formatValue(metric.metric, p.hi) + "] n=" + p.n + (p.flagged ? " ▲ flagged" : "");
               },
               axisLabelFormatter: function (v) { return formatValue(metric.metric, v); }, axisLabelWidth: 70 },
          x: byDate ? { axisLabelWidth: 80 } : { valueFormatter: function (n) { var s = view.snapshots[n - 1]; return s ? "#" + n + " " + s.id : n; },
                             axisLabelFormatter: function (n) { return Number.isInteger(n) ? "#" + n : ""; } }
        },
        drawPointCallback: function (g, name, ctx, cx, cy, color, radius, idx) {
          var col = view.labels.indexOf(name) + 1, p = col > 0 ? point(idx, col) : null;
          ctx.beginPath(); ctx.fillStyle = color; ctx.arc(cx, cy, radius, 0, 2 * Math.PI); ctx.fill();
          if (p && p.flagged) { ctx.beginPath(); ctx.strokeStyle = "#d62728"; ctx.lineWidth = 2; ctx.arc(cx, cy, radius + 4, 0, 2 * Math.PI); ctx.stroke(); }
        }
      });
    });
  }

  document.querySelectorAll(".series-toggle").forEach(function (box) {
    box.addEventListener("change", function () {
      var k = Number(box.getAttribute("data-series"));
      graphs.forEach(function (g) { g.setVisibility(k, box.checked); });
    });
  });
  document.querySelectorAll("input[name=xaxis]").forEach(function (r) {
    r.addEventListener("change", function () { draw(r.value === "date"); });
  });
  document.getElementById("reset-zoom").addEventListener("click", function () {
    graphs.forEach(function (g) { g.resetZoom(); });
  });
  draw(true);
  window.jitbenchGraphs = function () { return graphs; };  // for the browser tests
})();
