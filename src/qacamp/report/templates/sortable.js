// Optional: click a column header of a sortable table to sort its rows (each
// block - runs, baselines - on its own).  Without JavaScript the tables are
// complete and in the report's order.
(function () {
  function key(cell, numeric) {
    var s = cell.getAttribute("data-sort") || "";
    if (!numeric) return s.toLowerCase();
    return s === "" ? NaN : parseFloat(s);
  }
  function sortTable(table, col, numeric, th) {
    var dir = th.getAttribute("aria-sort") === "descending" ? "ascending" : "descending";
    if (!numeric && !th.getAttribute("aria-sort")) dir = "ascending";
    Array.prototype.forEach.call(table.querySelectorAll("th[aria-sort]"), function (h) {
      h.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", dir);
    Array.prototype.forEach.call(table.tBodies, function (body) {
      var rows = Array.prototype.filter.call(body.rows, function (r) {
        return !r.classList.contains("block");
      });
      rows.sort(function (a, b) {
        var x = key(a.cells[col], numeric), y = key(b.cells[col], numeric);
        if (numeric) {
          if (isNaN(x)) return isNaN(y) ? 0 : 1;
          if (isNaN(y)) return -1;
        }
        var c = x < y ? -1 : x > y ? 1 : 0;
        return dir === "ascending" ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () {
        sortTable(table, col, th.classList.contains("num"), th);
      });
    });
  });
})();
