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

  function render(div) {
    var spec;
    try {
      spec = JSON.parse(document.getElementById(div.dataset.spec).textContent);
    } catch (e) {
      return Promise.reject(e);
    }
    return window.vegaEmbed(div, spec, options);
  }

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
