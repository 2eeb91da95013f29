// cocopipe report: draw the charts of the page from their embedded Vega-Lite specs with the shipped
// vega-embed (no network), each when it comes into view (an IntersectionObserver; every chart at once
// before printing, or by window.cocopipeDrawAll()). Progress is kept on <body>: data-charts-rendered,
// data-charts-failed, data-charts-done="true" once every chart has been tried, data-first-screen-ms
// once the charts of the first screen are drawn.
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
    var t0 = performance.now();
    div.__columns = typeof spec.columns === "number" ? spec.columns : 0;
    presize(div, spec);
    return window.vegaEmbed(div, spec, options).then(function (result) {
      var t1 = performance.now();
      div.dataset.msDraw = String(Math.round(t1 - t0));  // the time it took (benchmarks/pages.py)
      window.__views.push(result.view);
      div.__view = result.view;
      unzoomOnChoice(result.view);
      if (highlighted.length) highlight(result.view, highlighted);
      return fit(div, result.view).then(function () {
        div.dataset.msFit = String(Math.round(performance.now() - t1));
        if (boxes && div.parentElement) boxes.observe(div.parentElement);
        return result;
      });
    });
  }

  // an explorer's zoom (interval "zoom" bound to the x scale) is undone when another dimension or function
  // group is chosen: each choice has its own x range
  function hasSignal(view, name) {
    try { view.signal(name); return true; } catch (e) { return false; }
  }

  function unzoomOnChoice(view) {
    if (!hasSignal(view, "zoom_x")) return;
    ["dimension_shown", "group_shown"].forEach(function (name) {
      if (!hasSignal(view, name)) return;
      view.addSignalListener(name, function () {
        if (view.signal("zoom_x") != null) view.signal("zoom_x", null).runAsync();
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

  // the plots' width in one row of a chart at its spec's sizes: its width signals (a single view's width,
  // a facet's child width times its columns, or the first `columns` panels of a concatenation); 0 when
  // the chart has none (a discrete axis: its steps)
  function rowWidth(base, columns) {
    var widths = Object.keys(base).filter(function (n) { return /(^|_)width$|^childWidth$/.test(n); })
      .map(function (n) { return base[n]; });
    if (!widths.length) return 0;
    if (widths.length === 1) return widths[0] * Math.max(columns || 1, 1);
    return widths.slice(0, columns || widths.length).reduce(function (a, b) { return a + b; }, 0);
  }

  // the scale found for a chart of the same base sizes in a box of the same width: charts of a section
  // are mostly alike, so that the next one is tried at that scale first (one layout, not four or five).
  // Kept for the other pages of the report too (the browser's storage of file:// pages or of the site,
  // when it allows): the algorithm pages' charts, alike, are then drawn at once at their scale
  var STORE = "cocopipe-chart-scales", found = {};
  try { found = JSON.parse(window.localStorage.getItem(STORE) || "{}") || {}; } catch (e) { found = {}; }

  function keep(key, f) {
    if (!(key in found) && Object.keys(found).length >= 1000) found = {};  // kept small: start again
    found[key] = f;
    try { window.localStorage.setItem(STORE, JSON.stringify(found)); } catch (e) { /* storage refused: this page only */ }
  }

  // the key of `found`: a chart's base sizes (in any order) and its box's width
  function sizeKey(base, width) {
    return JSON.stringify(Object.keys(base).sort().map(function (k) { return [k, base[k]]; })) + "@" + width;
  }

  // a single or layered view (numbers for width and height, nothing concatenated or faceted): its size
  // signals are its spec's width and height
  function plainSizes(spec) {
    if (typeof spec.width !== "number" || typeof spec.height !== "number") return null;
    if (!spec.layer && !spec.mark) return null;
    return { width: spec.width, height: spec.height };
  }

  // the views of a spec whose sizes it writes: the spec itself, a facet's inner spec, the parts of a
  // concatenation and the layers of each (never its config, data, marks or encodings)
  var PARTS = ["concat", "hconcat", "vconcat", "layer"];

  function views(spec, out) {
    out.push(spec);
    if (spec.spec && typeof spec.spec === "object") views(spec.spec, out);
    PARTS.forEach(function (k) {
      if (Array.isArray(spec[k])) spec[k].forEach(function (s) { if (s && typeof s === "object") views(s, out); });
    });
    return out;
  }

  // the sizes a spec writes (each view's width and height, numbers or steps), as the key of `found`
  // with the box's width: charts of the same sizes in boxes as wide are fitted at the same scale
  function specKey(spec, width) {
    return JSON.stringify(views(spec, []).map(function (v) { return [v.width, v.height]; })) + "#" + width;
  }

  // every size the spec writes scaled: widths (and horizontal steps) by `across`, heights by `down`, as
  // `resize` scales the view's size signals
  function scaleSpec(spec, across, down) {
    views(spec, []).forEach(function (v) {
      [["width", across], ["height", down]].forEach(function (kf) {
        var k = kf[0], f = kf[1], x = v[k];
        if (typeof x === "number") v[k] = Math.max(1, x * f);
        else if (x && typeof x.step === "number") v[k] = Object.assign({}, x, { step: x.step * f });
      });
    });
  }

  // a chart whose like (the same sizes in a box as wide) was fitted already is drawn at once at that
  // scale: its spec's sizes are scaled before it is drawn, and `fit` only checks the width (one layout
  // instead of two: the second layout cost about as much as drawing; for a grid of panels, more)
  function presize(div, spec) {
    var box = div.parentElement;
    if (!box) return;
    var base = plainSizes(spec), key = specKey(spec, box.clientWidth);
    div.__specKey = key;
    var f = base ? found[sizeKey(base, box.clientWidth)] : undefined;
    if (f === undefined) f = found[key];
    if (f === undefined) return;
    if (base) div.__base = base;
    div.__pre = f;
    scaleSpec(spec, f, Math.min(Math.max(f, 1), MAX_GROW));
  }

  // a presized chart's size signals as they would be at scale 1 (its base, for a later fit)
  function unscaled(view, f) {
    var out = {}, down = Math.min(Math.max(f, 1), MAX_GROW);
    sizeSignals(view).forEach(function (name) {
      var tall = /height$|Height$|^y_step$|_y_step$/.test(name);
      out[name] = view.signal(name) / (tall ? down : f);
    });
    return out;
  }

  // a chart `w` px wide fills a room: not wider, and at most 2% (and 8 px) narrower, or as large as it may be
  function close(w, room, f) {
    return w <= room && (room - w < Math.max(8, 0.02 * room) || f >= MAX_SCALE);
  }

  function fit(div, view) {
    var box = div.parentElement, w = svgWidth(div), now = div.__scale || 1, pre = div.__pre !== undefined, room;
    if (pre) {  // drawn at the scale of its like
      now = div.__pre;
      div.__pre = undefined;
      if (!div.__base) div.__base = unscaled(view, now);
    } else if (!div.__base) {  // drawn at its spec's sizes (scale 1)
      var sizes = {};
      sizeSignals(view).forEach(function (name) { sizes[name] = view.signal(name); });
      div.__base = sizes;
    }
    var base = div.__base;
    if (!Object.keys(base).length || !box) return Promise.resolve();
    room = box.clientWidth - (div.getBoundingClientRect().width - w) - 2;
    var tries = 0, key = sizeKey(base, box.clientWidth);
    function done(f) {  // fitted at scale f: kept for its likes (`presize` scales their specs before drawing)
      keep(key, f);
      if (div.__specKey) keep(div.__specKey, f);
      div.__scale = f;
      div.dataset.scale = f.toFixed(3);
      div.__fitted = box.clientWidth;
    }
    if (close(w, room, now)) {
      if (pre) div.dataset.presized = "true";  // drawn once, at the scale of its like (tests)
      done(now);
      return Promise.resolve();
    }
    function at(f) {  // the chart's width with its plots scaled by f
      return resize(view, base, f, Math.min(Math.max(f, 1), MAX_GROW)).then(function () { return svgWidth(div); });
    }
    // secant steps from two widths, aiming at the middle of the widths `close` accepts: the width is about
    // linear in f (axis labels wider than narrow plots make it less so); the result is never wider than
    // the room, unless the chart is wider even at MIN_SCALE
    function step(f0, w0, f1, w1, slope) {
      var s = (w1 - w0) / (f1 - f0);
      if (s > 0 && isFinite(s)) slope = s;
      var aim = room - Math.max(4, 0.01 * room);
      var f = Math.min(Math.max(f1 + (aim - w1) / slope, MIN_SCALE), MAX_SCALE);
      return at(f).then(function (w) {
        tries += 1;
        var fits = w <= room;
        if (close(w, room, f) || (!fits && f <= MIN_SCALE) || tries >= 6) {
          return fits || f <= MIN_SCALE ? f : at(MIN_SCALE).then(function () { return MIN_SCALE; });
        }
        return step(f1, w1, f, w, slope);
      });
    }
    // from the width at the scale it is drawn at: the scale a chart of the same sizes took in a box as wide,
    // else one step along the plots' width in a row per unit of f (the secant goes on from there)
    var guess = found[key], slope = rowWidth(base, div.__columns);
    var next = guess !== undefined && guess !== now ? at(guess).then(function (wg) {
      if (close(wg, room, guess)) return guess;
      return step(now, w, guess, wg, Math.max((wg - w) / (guess - now), 1));
    }) : slope > 0 ? step(now - 1, w - slope, now, w, slope)
      : at(now * 2).then(function (w1) { return step(now, w, now * 2, w1, Math.max((w1 - w) / now, 1)); });
    return next.then(function (f) {
      done(f);
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

  // -- large tables: in data/NAME.js (window.cocopipeTables), loaded when their <details> is opened ------
  Array.prototype.forEach.call(document.querySelectorAll("details.table-block[data-src]"), function (d) {
    d.addEventListener("toggle", function () {
      if (!d.open || d.dataset.loaded) return;
      d.dataset.loaded = "loading";
      var name = d.dataset.src.replace(/^.*\//, "").replace(/\.js$/, "");
      var s = document.createElement("script");
      s.src = d.dataset.src;
      s.onload = function () {
        d.insertAdjacentHTML("beforeend", window.cocopipeTables[name]);
        d.dataset.loaded = "true";
      };
      s.onerror = function () {
        d.dataset.loaded = "failed";
        d.insertAdjacentHTML("beforeend", "<p class=\"note\">This table could not be loaded from " + d.dataset.src + ".</p>");
        console.error("table " + d.id + ": " + d.dataset.src + " did not load");
      };
      document.head.appendChild(s);
    });
  });

  // -- drawing on view -------------------------------------------------------------------------
  // A chart is queued when it comes near the window (MARGIN px) and drawn one at a time, in page order,
  // yielding to the browser between charts; one that left the window before its turn waits until it is
  // back. An undrawn chart keeps the height of a drawn chart of its section, so that the page does not
  // jump as charts are drawn and a link to a section lands where its charts will be.
  var MARGIN = 200;
  var near = [], queued = [], busy = false, firstScreen = null;

  function finished(div) {
    return div.dataset.rendered === "true" || div.dataset.error !== undefined;
  }

  // the charts not yet drawn of the same kind in sections of as many columns take a drawn one's height
  function keepHeights(div) {
    var fig = div.closest("figure"), blocks = div.closest(".blocks"), h = div.getBoundingClientRect().height;
    if (!fig || !blocks || !h) return;
    var sel = "." + blocks.className.split(" ").join(".") + " figure." + fig.className.split(" ").join(".") +
              " div.chart[data-spec]";
    Array.prototype.forEach.call(document.querySelectorAll(sel), function (c) {
      if (!finished(c)) c.style.minHeight = Math.round(h) + "px";
    });
  }

  function drawOne(div) {
    return render(div).then(function () {
      div.dataset.rendered = "true";
      div.style.minHeight = "";
      rendered += 1;
      keepHeights(div);
    }, function (e) {
      div.dataset.error = String(e);
      div.style.minHeight = "";
      div.textContent = "This chart could not be drawn: " + e;
      failed += 1;
      console.error("chart " + div.id + ": " + e);
    }).then(update);
  }

  // whether a chart is in the window or MARGIN px from it now (the chart drawn before it may have pushed it
  // out: the observer says so only at the next frame)
  function nearNow(div) {
    var r = div.getBoundingClientRect();
    return r.bottom > -MARGIN && r.top < window.innerHeight + MARGIN;
  }

  function pump() {
    if (busy) return;
    var i = queued.findIndex(function (d) {
      return !finished(d) && (d.__all || near.indexOf(d) >= 0 && nearNow(d));
    });
    if (i < 0) {
      queued = queued.filter(function (d) { return !finished(d); });
      if (firstScreen === null) {
        firstScreen = performance.now();
        body.dataset.firstScreenMs = String(Math.round(firstScreen));
      }
      return;
    }
    var div = queued.splice(i, 1)[0];
    busy = true;
    drawOne(div).then(function () {
      busy = false;
      window.setTimeout(pump, 0);  // yield to the browser between charts: the page stays responsive
    });
  }

  function enqueue(divs) {
    divs.forEach(function (d) { if (!finished(d) && queued.indexOf(d) < 0) queued.push(d); });
    queued.sort(function (a, b) { return charts.indexOf(a) - charts.indexOf(b); });
    pump();
  }

  // every chart of the page (printing, tests): drawn in page order whether in view or not
  window.cocopipeDrawAll = function () {
    charts.forEach(function (d) { d.__all = true; });
    enqueue(charts);
  };
  window.addEventListener("beforeprint", window.cocopipeDrawAll);

  update();
  if (typeof window.vegaEmbed !== "function") {
    console.error("vega-embed is missing: static/vega-bundle.js did not load");
    return;
  }
  if (typeof IntersectionObserver !== "function") {
    window.cocopipeDrawAll();
    return;
  }
  var watch = new IntersectionObserver(function (entries) {
    var come = [];
    entries.forEach(function (e) {
      var i = near.indexOf(e.target);
      if (e.isIntersecting) {
        if (i < 0) near.push(e.target);
        come.push(e.target);
      } else if (i >= 0) {
        near.splice(i, 1);
      }
    });
    enqueue(come);
  }, { rootMargin: MARGIN + "px 0px" });
  charts.forEach(function (d) { watch.observe(d); });
  if (!charts.length) pump();
})();
