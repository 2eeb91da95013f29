/* cocopipe explorer: sortable tables, a filter box per table, charts drawn by the shipped vega-embed (offline) */
(function () {
  "use strict";
  function key(td) {
    if (!td) return "";
    var v = td.getAttribute("data-v");
    return v !== null && v !== "" ? parseFloat(v) : td.textContent.toLowerCase();
  }
  function sortBy(table, th) {
    var col = +th.getAttribute("data-col");
    var asc = !th.classList.contains("asc");
    table.querySelectorAll("th").forEach(function (h) { h.classList.remove("asc", "desc"); });
    th.classList.add(asc ? "asc" : "desc");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      if (typeof x === "number" && typeof y === "number") return asc ? x - y : y - x;
      return asc ? String(x).localeCompare(String(y)) : String(y).localeCompare(String(x));
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function filterBox(table) {
    var box = document.createElement("input");
    box.type = "search";
    box.className = "filter";
    box.placeholder = "filter rows (all words must match)";
    box.setAttribute("aria-label", "filter the rows of the table");
    box.addEventListener("input", function () {
      var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        var text = r.textContent.toLowerCase();
        r.hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
      });
    });
    table.parentNode.insertBefore(box, table);
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th").forEach(function (th) {
      th.addEventListener("click", function () { sortBy(table, th); });
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sortBy(table, th); });
    });
    if (table.classList.contains("filtered")) filterBox(table);
  });
  if (typeof window.vegaEmbed === "function") {
    document.querySelectorAll("div.chart").forEach(function (div) {
      var spec = JSON.parse(document.getElementById("spec-" + div.id.slice(6)).textContent);
      window.vegaEmbed(div, spec, { actions: false, renderer: "svg" }).then(function () {
        div.setAttribute("data-rendered", "true");  // drawn (benchmarks/explorer.py times the first screen)
      }, function (e) { div.setAttribute("data-error", String(e)); });
    });
  }
})();
