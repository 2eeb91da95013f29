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
      return fit(div, result.view).then(function () {
        if (boxes && div.parentElement) boxes.observe(div.parentElement);
        return result;
      });
    });
  }

  // -- every chart as wide as its box ------------------------------------------------------------
  // A spec's sizes suit a page about 1280 px wide. In the browser the widths of its plots are scaled
  // (by MIN_SCALE .. MAX_SCALE) so that the whole chart, axes and legend included, fills the width of
  // its box, and its heights grow with them up to MAX_GROW: the Vega view's size signals are set (the
  // plot sizes of a single view, of a facet's or a concatenation's panels, or the steps of a discrete
  // axis), and the spec is not parsed again. The static exports (SVG, PNG, PDF) keep the spec's sizes.
  var MIN_SCALE = 0.5, MAX_SCALE = 3, MAX_GROW = 1.6;
  var SIZE = /(^|_)(width|height|step)$|^child(Width|Height)$/;

  function sizeSignals(view) {
    var names = Object.keys(view.getState({
      signals: function (name) { return SIZE.test(name); }, data: function () { return false; }, recurse: false
    }).signals || {});
    var steps = names.filter(function (n) { return /_step$/.test(n); });
    if (steps.length) return steps;  // a discrete axis: its plot size follows its step
    var inner = names.filter(function (n) { return n !== "width" && n !== "height"; });
    return inner.length ? inner : names;  // panels' sizes, or the size of a single view
  }

  function svgWidth(div) {
    var svg = div.querySelector("svg");
    return svg ? svg.getBoundingClientRect().width : 0;
  }

  function resize(view, base, across, down) {
    Object.keys(base).forEach(function (name) {
      var tall = /height$|Height$|^y_step$|_y_step$/.test(name);
      view.signal(name, Math.max(1, base[name] * (tall ? down : across)));  // fractions too: a step times 55
    });
    return view.resize().runAsync();  // resize: lay the whole chart out again (autosize)
  }

  function fit(div, view) {
    if (!div.__base) {
      var sizes = {};
      sizeSignals(view).forEach(function (name) { sizes[name] = view.signal(name); });
      div.__base = sizes;
    }
    var base = div.__base, box = div.parentElement;
    if (!Object.keys(base).length || !box) return Promise.resolve();
    var room, tries = 0;
    function at(f) {  // the chart's width with its plots scaled by f
      return resize(view, base, f, Math.min(Math.max(f, 1), MAX_GROW)).then(function () { return svgWidth(div); });
    }
    // secant steps from the spec's sizes and twice them, aiming a little inside the room: the width is
    // about linear in f (axis labels wider than narrow plots make it less so); the result is never
    // wider than the room, unless the chart is wider even at MIN_SCALE
    function step(f0, w0, f1, w1, slope) {
      var s = (w1 - w0) / (f1 - f0);
      if (s > 0 && isFinite(s)) slope = s;
      var f = Math.min(Math.max(f1 + (room - 3 - w1) / slope, MIN_SCALE), MAX_SCALE);
      return at(f).then(function (w) {
        tries += 1;
        var fits = w <= room, close = room - w < 8 || f >= MAX_SCALE;
        if ((fits && close) || (!fits && f <= MIN_SCALE) || tries >= 6) {
          return fits || f <= MIN_SCALE ? f : at(MIN_SCALE).then(function () { return MIN_SCALE; });
        }
        return step(f1, w1, f, w, slope);
      });
    }
    return at(1).then(function (w0) {
      room = box.clientWidth - (div.getBoundingClientRect().width - w0) - 2;
      return at(2).then(function (w1) { return step(1, w0, 2, w1, Math.max(w1 - w0, 1)); });
    }).then(function (f) {
      div.dataset.scale = f.toFixed(3);
      div.__fitted = box.clientWidth;
    });
  }

  // a box that changes its width (the window resized) gets its chart fitted again
  var boxes = typeof ResizeObserver === "function" ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) {
      var div = entry.target.querySelector("div.chart");
      if (!div || !div.__view || Math.abs(entry.target.clientWidth - (div.__fitted || 0)) < 2) return;
      window.clearTimeout(div.__refit);
      div.__refit = window.setTimeout(function () { fit(div, div.__view); }, 150);
    });
  }) : null;

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
