"use strict";
(() => {
  // src/eval/webview/main.ts
  var vscode = acquireVsCodeApi();
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== void 0) e.textContent = text;
    return e;
  }
  var num = (x) => x === null ? "\u2014" : x.toFixed(2);
  var signed = (x) => x === null ? "\u2014" : `${x > 0 ? "+" : x < 0 ? "\u2212" : ""}${Math.abs(x).toFixed(2)}`;
  var partsText = (p) => Object.entries(p).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(" \xB7 ");
  var data;
  var strings;
  var regressionsOnly = false;
  var selected;
  var root = document.getElementById("root");
  var pane = el("section", "pair");
  function header(d, s) {
    const h = el("header");
    h.append(el("h1", void 0, d.title));
    const v = el("p", `verdict ${d.kind}`, d.verdict);
    v.id = "verdict";
    h.append(v);
    h.append(el("p", "rests", s.restsOn.replace("{0}", String(d.paired)).replace("{1}", String(d.tasks)).replace("{2}", d.a).replace("{3}", String(d.failures.a)).replace("{4}", d.b).replace("{5}", String(d.failures.b))));
    if (d.interval) h.append(intervalBar(d));
    const label = el("label", "filter");
    const box = el("input");
    box.type = "checkbox";
    box.id = "regressions";
    box.checked = regressionsOnly;
    box.addEventListener("change", () => {
      regressionsOnly = box.checked;
      render();
    });
    label.append(box, document.createTextNode(` ${s.regressionsOnly}`));
    h.append(label);
    return h;
  }
  function intervalBar(d) {
    const bar = el("div", "interval");
    const pos = (x) => `${(Math.max(-1, Math.min(1, x)) + 1) / 2 * 100}%`;
    const span = el("div", "span");
    span.style.left = pos(d.interval.lo);
    span.style.width = `calc(${pos(d.interval.hi)} - ${pos(d.interval.lo)})`;
    const zero = el("div", "zero");
    zero.style.left = pos(0);
    const mean = el("div", "mean");
    mean.style.left = pos(d.meanDiff ?? 0);
    bar.append(span, zero, mean);
    bar.title = `${d.b} \u2212 ${d.a}: ${signed(d.meanDiff)} [${num(d.interval.lo)}, ${num(d.interval.hi)}]`;
    return bar;
  }
  function table(d, s) {
    const t = el("table", "tasks");
    const head = el("tr");
    for (const c of [s.task, `${d.a} ${s.mean}`, `${d.a} ${s.pass}`, `${d.b} ${s.mean}`, `${d.b} ${s.pass}`, s.diff]) head.append(el("th", void 0, c));
    t.append(head);
    const rows = d.rows.filter((r) => !regressionsOnly || r.regression);
    for (const r of rows) t.append(row(r, s));
    return t;
  }
  function row(r, s) {
    const tr = el("tr", `${r.regression ? "regression" : r.diff !== null && r.diff > 0 ? "improvement" : ""}${r.task === selected ? " selected" : ""}`);
    tr.dataset.task = r.task;
    tr.tabIndex = 0;
    const cell = (text, title) => {
      const td = el("td", void 0, text);
      if (title) td.title = title;
      return td;
    };
    const failed = (n) => n ? ` (${s.failed.replace("{0}", String(n))})` : "";
    tr.append(cell(r.task), cell(num(r.a.mean) + failed(r.a.failed), partsText(r.partsA)), cell(num(r.a.pass)), cell(num(r.b.mean) + failed(r.b.failed), partsText(r.partsB)), cell(num(r.b.pass)), cell(signed(r.diff)));
    const open = () => {
      selected = r.task;
      vscode.postMessage({ type: "openTask", task: r.task });
      render();
    };
    tr.addEventListener("click", open);
    tr.addEventListener("keydown", (e) => e.key === "Enter" && open());
    return tr;
  }
  function turnCell(t) {
    const td = el("td", t ? `turn ${t.kind}` : "turn none");
    if (t) {
      td.append(el("span", "kind", t.kind));
      td.append(el("pre", void 0, t.text));
    }
    return td;
  }
  function showPair(task, a, b, rows) {
    const s = strings;
    pane.replaceChildren();
    pane.append(el("h2", void 0, task));
    if (!rows.length) {
      pane.append(el("p", void 0, s.noTranscript));
      return;
    }
    const t = el("table", "side-by-side");
    const head = el("tr");
    head.append(el("th", void 0, s.turn), el("th", void 0, a), el("th", void 0, b));
    t.append(head);
    rows.forEach((r, i) => {
      const tr = el("tr", r.differs ? "differs" : "same");
      const n = el("td", "index", String(i + 1));
      if (r.differs) n.title = s.differs;
      tr.append(n, turnCell(r.a), turnCell(r.b));
      t.append(tr);
    });
    pane.append(t);
  }
  function render() {
    if (!data || !strings) return;
    root.replaceChildren(header(data, strings), table(data, strings), pane);
  }
  window.addEventListener("message", (e) => {
    const m = e.data;
    if (m.type === "comparison") {
      data = m.data;
      strings = m.strings;
      render();
    } else if (m.type === "pair") {
      showPair(m.task, m.a, m.b, m.rows);
    }
  });
  vscode.postMessage({ type: "ready" });
})();
//# sourceMappingURL=eval.js.map
