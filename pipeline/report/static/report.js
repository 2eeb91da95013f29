// cocopipe report: render every chart of the page from its embedded Vega-Lite spec with the
// shipped vega-embed (no network). Progress is kept on <body>: data-charts-rendered,
// data-charts-failed, and data-charts-done="true" once every chart has been tried.
(function () {
  "use strict";
  var charts = Array.prototype.slice.call(document.querySelectorAll("div.chart[data-spec]"));
  var body = document.body;
  var rendered = 0, failed = 0;
  var options = {
    renderer: "svg",
    actions: { export: true, source: true, compiled: false, editor: false },
    tooltip: true
  };

  function update() {
    body.dataset.chartsRendered = String(rendered);
    body.dataset.chartsFailed = String(failed);
    if (rendered + failed === charts.length) body.dataset.chartsDone = "true";
  }

  // the tables of the charts are in the page's data block, each once, by name (a chart's spec refers to
  // them), or, when several pages use them, in data/NAME.js (window.cocopipeTables); each chart gets
  // its own copy, so that no two Vega views share the table's objects
  function dataset(name) {
    var el = document.getElementById("dataset-" + name);
    if (el) return JSON.parse(el.textContent);
    var shared = window.cocopipeTables && window.cocopipeTables[name];
    if (shared === undefined) throw new Error("table " + name + " is missing from the page's data");
    return typeof shared === "string" ? shared : JSON.parse(JSON.stringify(shared));
  }

  function render(div) {
    var spec;
    try {
      spec = JSON.parse(document.getElementById(div.dataset.spec).textContent);
      var names = (div.dataset.datasets || "").split(" ").filter(Boolean);
      if (names.length) {
        spec.datasets = {};
        names.forEach(function (n) { spec.datasets[n] = dataset(n); });
      }
    } catch (e) {
      return Promise.reject(e);
    }
    return window.vegaEmbed(div, spec, options).then(function (result) {
      window.__views.push(result.view);
      div.__view = result.view;
      if (highlighted.length) highlight(result.view, highlighted);
      return result;
    });
  }

  // -- highlighting across the charts of the page (issue 12) -----------------------------------
  // Every chart's Vega view is kept in window.__views. The charts' click selection "pick" (fields:
  // algorithm) keeps the highlighted algorithms in the data set "pick_store"; writing it through
  // the view API highlights them and dims the others, as clicks in the chart do.
  window.__views = [];
  var highlighted = [];

  function highlight(view, names) {
    var tuples = names.map(function (n) {
      return { unit: "", fields: [{ field: "algorithm", type: "E" }], values: [n] };
    });
    try {
      view.data("pick_store", tuples);
    } catch (e) {
      return false;  // a chart without the selection (e.g. one algorithm's charts)
    }
    view.runAsync();
    return true;
  }

  function highlightAll(names) {
    highlighted = names;
    window.__views.forEach(function (v) { highlight(v, names); });
    Array.prototype.forEach.call(document.querySelectorAll(".legend .entry[data-algorithm]"), function (el) {
      el.classList.toggle("dimmed", names.length > 0 && names.indexOf(el.dataset.algorithm) < 0);
    });
  }
  window.__highlight = highlightAll;

  var names = Array.prototype.map.call(document.querySelectorAll("#algorithm-names option"),
                                       function (o) { return o.value; });
  var search = document.getElementById("algorithm-search");
  if (search) {
    search.addEventListener("input", function () {
      var q = search.value.trim().toLowerCase();
      var exact = names.filter(function (n) { return n.toLowerCase() === q; });
      highlightAll(!q ? [] : exact.length ? exact : names.filter(function (n) {
        return n.toLowerCase().indexOf(q) >= 0;
      }));
    });
  }
  // the page's legend: a click highlights an algorithm in every chart, shift-click adds, again clears
  Array.prototype.forEach.call(document.querySelectorAll(".legend .entry[data-algorithm]"), function (el) {
    el.addEventListener("click", function (ev) {
      var n = el.dataset.algorithm, i = highlighted.indexOf(n);
      var next = ev.shiftKey ? highlighted.slice() : (i >= 0 && highlighted.length === 1 ? [] : [n]);
      if (ev.shiftKey) { if (i >= 0) next.splice(i, 1); else next.push(n); }
      highlightAll(next);
    });
  });

  function next(i) {
    if (i >= charts.length) return;
    var div = charts[i];
    render(div).then(function () {
      div.dataset.rendered = "true";
      rendered += 1;
    }, function (e) {
      div.dataset.error = String(e);
      div.textContent = "This chart could not be drawn: " + e;
      failed += 1;
      console.error("chart " + div.id + ": " + e);
    }).then(function () {
      update();
      // yield to the browser between charts so that long pages stay responsive
      window.setTimeout(function () { next(i + 1); }, 0);
    });
  }

  update();
  if (typeof window.vegaEmbed !== "function") {
    console.error("vega-embed is missing: static/vega-bundle.js did not load");
    return;
  }
  next(0);
})();
