"use strict";
(() => {
  // src/tokens/experience-wire.ts
  var unfloats = (a) => Float32Array.from(a, (x) => typeof x === "number" ? x : NaN);
  function fromWire(w) {
    const n = w.ids.length;
    const sized = (a) => a && a.length === n ? a : void 0;
    const t = w.texts;
    const texts = t && t.offsets.length === n + 1 && t.flags.length === n && t.offsets[n] === t.joined.length ? { joined: t.joined, offsets: Uint32Array.from(t.offsets), flags: Uint8Array.from(t.flags), partialBytes: t.partialBytes } : void 0;
    const logprobs = sized(w.logprobs);
    const advantages = sized(w.advantages);
    const trained = sized(w.trained);
    return {
      ids: Int32Array.from(w.ids),
      promptLength: Math.max(0, Math.min(n, w.promptLength)),
      ...logprobs ? { logprobs: unfloats(logprobs) } : {},
      trained: trained ? Uint8Array.from(trained) : new Uint8Array(n),
      ...advantages ? { advantages: unfloats(advantages) } : {},
      truncateStatus: w.truncateStatus,
      truncated: w.truncated,
      ...w.responseText !== void 0 ? { responseText: w.responseText } : {},
      ...texts ? { texts } : {},
      source: w.source,
      missing: w.missing
    };
  }

  // src/tokens/experience.ts
  var FLAG_SPECIAL = 1;
  var FLAG_PARTIAL = 2;
  function summarize(e) {
    const n = e.ids.length;
    let trainedTokens = 0;
    let lpTrained = 0;
    let lpTrainedN = 0;
    let lpAll = 0;
    let lpAllN = 0;
    let adv = 0;
    let advN = 0;
    let lowest = -1;
    let lowestValue = Infinity;
    for (let i = 0; i < n; i++) {
      const t = e.trained[i] === 1;
      if (t) trainedTokens++;
      const lp = e.logprobs ? e.logprobs[i] : NaN;
      if (i >= e.promptLength && Number.isFinite(lp)) {
        lpAll += lp;
        lpAllN++;
        if (t) {
          lpTrained += lp;
          lpTrainedN++;
        }
        if (lp < lowestValue) {
          lowestValue = lp;
          lowest = i;
        }
      }
      const a = e.advantages ? e.advantages[i] : NaN;
      if (t && Number.isFinite(a)) {
        adv += a;
        advN++;
      }
    }
    const responseTokens = n - e.promptLength;
    const text = e.responseText ?? (e.texts ? e.texts.joined.slice(e.texts.offsets[e.promptLength]) : void 0);
    return {
      tokens: n,
      promptTokens: e.promptLength,
      responseTokens,
      trainedTokens,
      meanLogprob: lpTrainedN ? lpTrained / lpTrainedN : lpAllN ? lpAll / lpAllN : NaN,
      meanAdvantage: advN ? adv / advN : NaN,
      lowest,
      truncated: e.truncated,
      emptyResponse: responseTokens <= 0 || text !== void 0 && text.trim() === ""
    };
  }
  function tokenText(texts, i) {
    return texts ? texts.joined.slice(texts.offsets[i], texts.offsets[i + 1]) : void 0;
  }

  // src/tokens/token-json.ts
  var num = (a, i) => {
    if (!a) return null;
    const v = a[i];
    return Number.isFinite(v) ? shortestFloat32(v) : null;
  };
  function shortestFloat32(v) {
    for (let p = 1; p <= 9; p++) {
      const x = Number(v.toPrecision(p));
      if (Math.fround(x) === v) return x;
    }
    return v;
  }
  function toTokensJson(e) {
    const tokens = new Array(e.ids.length);
    for (let i = 0; i < e.ids.length; i++) {
      tokens[i] = {
        id: e.ids[i],
        text: tokenText(e.texts, i) ?? null,
        logprob: num(e.logprobs, i),
        trained: e.trained[i] === 1,
        advantage: num(e.advantages, i)
      };
    }
    return { prompt_length: e.promptLength, truncated: e.truncated, tokens, source: e.source.kind, missing: e.missing };
  }

  // src/tokens/view-strings.ts
  function fillString(s, ...args) {
    return s.replace(/\{(\d+)\}/g, (m, i) => Number(i) < args.length ? String(args[Number(i)]) : m);
  }

  // src/tokens/visible.ts
  var GLYPHS = { " ": "\xB7", "	": "\u21E5", "\n": "\u21B5", "\r": "\u240D", "\xA0": "\u237D" };
  function visibleText(text) {
    if (text === "") return "\u2205";
    let out = "";
    for (const ch of text) {
      const g = GLYPHS[ch];
      if (g) out += g;
      else if (ch < " " || ch === "\x7F") out += `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}`;
      else out += ch;
    }
    return out;
  }
  function visibleToken(texts, ids, i) {
    if (!texts) return `#${ids[i]}`;
    if (texts.flags[i] & FLAG_PARTIAL) return `\u2039${texts.partialBytes[i] ?? "?"}\u203A`;
    return visibleText(texts.joined.slice(texts.offsets[i], texts.offsets[i + 1]));
  }
  function endsLine(texts, i) {
    if (!texts) return false;
    const end = texts.offsets[i + 1];
    return end > texts.offsets[i] && texts.joined.charCodeAt(end - 1) === 10;
  }
  function columns(s) {
    let n = 0;
    for (const ch of s) {
      const c = ch.codePointAt(0) ?? 0;
      if (c >= 768 && c <= 879) continue;
      if (c >= 65024 && c <= 65039) continue;
      if (c === 8205) continue;
      n += isWide(c) ? 2 : 1;
    }
    return n;
  }
  function isWide(c) {
    return c >= 4352 && c <= 4447 || c >= 11904 && c <= 42191 || c >= 44032 && c <= 55203 || c >= 63744 && c <= 64255 || c >= 65072 && c <= 65103 || c >= 65280 && c <= 65376 || c >= 65504 && c <= 65510 || c >= 127744 && c <= 129791 || c >= 131072 && c <= 262141;
  }

  // src/webview-ui/token-view/colour.ts
  function logprobClass(lp) {
    if (!Number.isFinite(lp)) return "tv-none";
    const p = Math.exp(Math.min(0, lp));
    return `tv-lp${Math.min(9, Math.floor(p * 10))}`;
  }
  function advantageClass(a, maxAbs2) {
    if (!Number.isFinite(a) || maxAbs2 <= 0 || a === 0) return "tv-none";
    const step = Math.min(5, Math.max(1, Math.ceil(Math.abs(a) / maxAbs2 * 5)));
    return `${a > 0 ? "tv-adv-pos" : "tv-adv-neg"}${step}`;
  }
  function maskClass(e, i) {
    if (e.trained[i]) return "tv-trained";
    return i < e.promptLength ? "tv-prompt" : "tv-untrained";
  }
  function colourClass(e, i, mode, maxAbsAdvantage) {
    if (mode === "mask") return maskClass(e, i);
    if (mode === "advantage") return e.advantages ? advantageClass(e.advantages[i], maxAbsAdvantage) : "tv-none";
    return logprobClass(e.logprobs ? e.logprobs[i] : NaN);
  }
  function maxAbs(a) {
    let m = 0;
    if (a) {
      for (let i = 0; i < a.length; i++) if (Number.isFinite(a[i])) m = Math.max(m, Math.abs(a[i]));
    }
    return m;
  }

  // src/webview-ui/token-view/layout.ts
  function layoutTokens(widths, breaks, promptLength, cols) {
    const n = widths.length;
    const width = Math.max(1, Math.floor(cols));
    const starts = [0];
    let used = 0;
    for (let i = 0; i < n; i++) {
      const w = widths[i];
      const newLine = i === promptLength && i > 0 || used > 0 && used + w > width;
      if (newLine && starts[starts.length - 1] !== i) {
        starts.push(i);
        used = 0;
      }
      used += w;
      if (breaks[i] && i + 1 < n) {
        starts.push(i + 1);
        used = 0;
      }
    }
    const lines = n === 0 ? 0 : starts.length;
    const lineStart = new Uint32Array(lines + 1);
    for (let l = 0; l < lines; l++) lineStart[l] = starts[l];
    lineStart[lines] = n;
    return {
      lineStart,
      lines,
      lineOf(i) {
        let lo = 0;
        let hi = lines - 1;
        while (lo < hi) {
          const mid = lo + hi + 1 >> 1;
          if (lineStart[mid] <= i) lo = mid;
          else hi = mid - 1;
        }
        return lo;
      }
    };
  }

  // src/webview-ui/token-view/search.ts
  function tokenAt(offsets, c) {
    let lo = 0;
    let hi = offsets.length - 2;
    while (lo < hi) {
      const mid = lo + hi + 1 >> 1;
      if (offsets[mid] <= c) lo = mid;
      else hi = mid - 1;
    }
    while (lo + 1 < offsets.length - 1 && offsets[lo + 1] === offsets[lo]) lo++;
    return lo;
  }
  function findMatches(e, query, limit = 1e4) {
    const out = [];
    const q = query.trim() === "" ? "" : query;
    if (!q) return out;
    const id = /^#(\d+)$/.exec(q.trim());
    if (id) {
      const want = Number(id[1]);
      for (let i = 0; i < e.ids.length && out.length < limit; i++) if (e.ids[i] === want) out.push([i, i]);
      return out;
    }
    const t = e.texts;
    if (!t) return out;
    const hay = t.joined.toLowerCase();
    const needle = q.toLowerCase();
    let from = 0;
    while (out.length < limit) {
      const at = hay.indexOf(needle, from);
      if (at < 0) break;
      out.push([tokenAt(t.offsets, at), tokenAt(t.offsets, at + needle.length - 1)]);
      from = at + Math.max(1, needle.length);
    }
    return out;
  }

  // src/webview-ui/token-view/tooltip.ts
  var num2 = (x) => Number.isFinite(x) ? String(Number(x.toPrecision(5))) : "\u2013";
  function tooltipLines(e, i, s) {
    const rows = [[fillString(s.token, i), ""]];
    rows.push([s.id, String(e.ids[i])]);
    const text = tokenText(e.texts, i);
    const flags = e.texts ? e.texts.flags[i] : 0;
    if (text === void 0) rows.push(["", s.noText]);
    else if (flags & FLAG_PARTIAL) rows.push(["", fillString(s.partial, e.texts?.partialBytes[i] ?? "?")]);
    else rows.push(["", JSON.stringify(text).slice(1, -1) || visibleText("")]);
    if (flags & FLAG_SPECIAL) rows.push(["", s.special]);
    const lp = e.logprobs ? e.logprobs[i] : NaN;
    if (Number.isFinite(lp)) {
      rows.push([s.logprob, num2(lp)]);
      rows.push([s.probability, num2(Math.exp(lp))]);
    }
    rows.push(["", i < e.promptLength ? s.prompt : e.trained[i] ? s.trained : s.notTrained]);
    const more = [[s.advantage, e.advantages], [s.returnValue, e.returns], [s.tokenReward, e.tokenLevelReward]];
    for (const [k, a] of more) if (a && Number.isFinite(a[i])) rows.push([k, num2(a[i])]);
    return rows;
  }

  // src/webview-ui/token-view/token-view.ts
  var h = (tag, cls, text) => {
    const el = document.createElement(tag);
    el.className = cls;
    if (text !== void 0) el.textContent = text;
    return el;
  };
  var fmt = (x, digits = 3) => Number.isFinite(x) ? String(Number(x.toFixed(digits))) : "\u2013";
  var TokenView = class {
    constructor(opts) {
      this.opts = opts;
      this.s = opts.strings;
      this.overscan = opts.overscan ?? 20;
      this.mode = opts.colourMode ?? "logprob";
      this.element = h("div", "tv");
      const bar = h("div", "tv-toolbar");
      this.searchBox = h("input", "tv-search");
      this.searchBox.type = "search";
      this.searchBox.placeholder = this.s.searchPlaceholder;
      this.searchBox.setAttribute("aria-label", this.s.searchPlaceholder);
      this.count = h("span", "tv-count");
      const prev = this.button("\u2039", this.s.previousMatch, () => this.step(-1));
      const next = this.button("\u203A", this.s.nextMatch, () => this.step(1));
      const lowest = this.button(this.s.lowest, this.s.lowest, () => this.jumpToLowest());
      lowest.classList.add("tv-lowest");
      const modeLabel = h("label", "tv-mode", this.s.colourBy);
      this.modeSelect = h("select", "tv-mode-select");
      for (const [value, label] of [["logprob", this.s.byLogprob], ["mask", this.s.byMask], ["advantage", this.s.byAdvantage]]) {
        const o = h("option", "", label);
        o.value = value;
        this.modeSelect.append(o);
      }
      this.modeSelect.value = this.mode;
      modeLabel.append(this.modeSelect);
      const copy = this.button(this.s.copyJson, this.s.copyJson, () => this.copy());
      copy.classList.add("tv-copy");
      bar.append(this.searchBox, this.count, prev, next, lowest, modeLabel, copy);
      this.summaryLine = h("div", "tv-summary");
      this.notesLine = h("div", "tv-notes");
      this.scroller = h("div", "tv-scroll");
      this.scroller.tabIndex = 0;
      this.sizer = h("div", "tv-sizer");
      this.win = h("div", "tv-window");
      this.sizer.append(this.win);
      this.scroller.append(this.sizer);
      this.tip = h("div", "tv-tip");
      this.tip.hidden = true;
      this.element.append(bar, this.summaryLine, this.notesLine, this.scroller, this.tip);
      this.searchBox.addEventListener("input", () => this.search(this.searchBox.value));
      this.searchBox.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter") this.step(ev.shiftKey ? -1 : 1);
      });
      this.modeSelect.addEventListener("change", () => this.setColourMode(this.modeSelect.value));
      this.scroller.addEventListener("scroll", () => this.schedule());
      this.win.addEventListener("mouseover", (ev) => this.hover(ev.target));
      this.win.addEventListener("mouseleave", () => this.tip.hidden = true);
      this.resize = new ResizeObserver(() => this.relayout());
      this.resize.observe(this.scroller);
    }
    opts;
    element;
    s;
    overscan;
    searchBox;
    count;
    modeSelect;
    summaryLine;
    notesLine;
    scroller;
    sizer;
    win;
    tip;
    resize;
    e;
    summary;
    display = [];
    widths = new Uint16Array(0);
    breaks = new Uint8Array(0);
    layout;
    cols = 0;
    lineHeight = 18;
    charWidth = 7.2;
    mode;
    maxAdv = 0;
    matches = [];
    matchOf = /* @__PURE__ */ new Map();
    current = -1;
    focus = -1;
    drawn = [-1, -1];
    frame = 0;
    button(text, title, run) {
      const b = h("button", "tv-button", text);
      b.title = title;
      b.setAttribute("aria-label", title);
      b.addEventListener("click", run);
      return b;
    }
    /** Shows `e` (notes: the host's words for where the tokens came from and what is missing). */
    show(e, notes = []) {
      this.e = e;
      const n = e.ids.length;
      this.summary = summarize(e);
      this.maxAdv = maxAbs(e.advantages);
      this.display = new Array(n);
      this.widths = new Uint16Array(n);
      this.breaks = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const d = visibleToken(e.texts, e.ids, i);
        this.display[i] = d;
        this.widths[i] = Math.min(65535, columns(d));
        this.breaks[i] = endsLine(e.texts, i) ? 1 : 0;
      }
      this.matches = [];
      this.matchOf.clear();
      this.current = -1;
      this.focus = -1;
      this.searchBox.value = "";
      this.count.textContent = "";
      this.writeSummary(notes);
      this.measure();
      this.cols = 0;
      this.relayout();
    }
    writeSummary(notes) {
      const s = this.summary;
      if (!s) return;
      const parts = [fillString(this.s.summaryTokens, s.tokens), fillString(this.s.summaryTrained, s.trainedTokens), fillString(this.s.summaryMeanLogprob, fmt(s.meanLogprob))];
      if (s.truncated) parts.push(this.s.truncated);
      if (s.emptyResponse) parts.push(this.s.emptyResponse);
      this.summaryLine.textContent = parts.join(" \xB7 ");
      this.summaryLine.classList.toggle("tv-warn", s.truncated || s.emptyResponse);
      this.notesLine.textContent = notes.join(" \xB7 ");
      this.notesLine.hidden = notes.length === 0;
    }
    /** Line height and character width of the token font, from a probe line. */
    measure() {
      const probe = h("div", "tv-line tv-probe");
      const span = h("span", "tv-tok", "MMMMMMMMMMMMMMMMMMMM");
      probe.append(span);
      this.win.append(probe);
      const r = span.getBoundingClientRect();
      if (r.width > 0) this.charWidth = r.width / 20;
      const lh = probe.getBoundingClientRect().height;
      if (lh > 0) this.lineHeight = lh;
      probe.remove();
    }
    relayout() {
      const e = this.e;
      if (!e) return;
      const cols = Math.max(8, Math.floor((this.scroller.clientWidth - 16) / this.charWidth));
      if (cols === this.cols && this.layout) return;
      const anchor = this.layout ? this.layout.lineStart[Math.min(this.layout.lines, Math.floor(this.scroller.scrollTop / this.lineHeight))] : 0;
      this.cols = cols;
      this.layout = layoutTokens(this.widths, this.breaks, e.promptLength, cols);
      this.sizer.style.height = `${this.layout.lines * this.lineHeight}px`;
      if (anchor > 0) this.scroller.scrollTop = this.layout.lineOf(anchor) * this.lineHeight;
      this.drawn = [-1, -1];
      this.draw();
    }
    schedule() {
      if (this.frame) return;
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        this.draw();
      });
    }
    /** Draws the lines on screen (and `overscan` more each side), unless they are drawn already. */
    draw(force = false) {
      const e = this.e;
      const L = this.layout;
      if (!e || !L) return;
      const top = Math.floor(this.scroller.scrollTop / this.lineHeight);
      const visible = Math.ceil((this.scroller.clientHeight || 600) / this.lineHeight);
      const first = Math.max(0, top - this.overscan);
      const last = Math.min(L.lines, top + visible + this.overscan);
      const [a, b] = this.drawn;
      if (!force && a >= 0 && a <= Math.max(0, top - this.overscan / 2) && b >= Math.min(L.lines, top + visible + this.overscan / 2)) return;
      const frag = document.createDocumentFragment();
      for (let l = first; l < last; l++) {
        const line = h("div", e.promptLength > 0 && L.lineStart[l] === e.promptLength ? "tv-line tv-response-start" : "tv-line");
        for (let i = L.lineStart[l]; i < L.lineStart[l + 1]; i++) line.append(this.tokenSpan(i));
        frag.append(line);
      }
      this.win.replaceChildren(frag);
      this.tip.hidden = true;
      this.win.style.transform = `translateY(${first * this.lineHeight}px)`;
      this.drawn = [first, last];
    }
    tokenSpan(i) {
      const e = this.e;
      let cls = `tv-tok ${colourClass(e, i, this.mode, this.maxAdv)}`;
      const flags = e.texts ? e.texts.flags[i] : 0;
      if (flags & FLAG_SPECIAL) cls += " tv-special";
      if (flags & FLAG_PARTIAL) cls += " tv-partial";
      if (i < e.promptLength) cls += " tv-in-prompt";
      const m = this.matchOf.get(i);
      if (m !== void 0) cls += m === this.current ? " tv-match tv-current" : " tv-match";
      if (i === this.focus) cls += " tv-focus";
      const span = h("span", cls, this.display[i]);
      span.dataset.i = String(i);
      return span;
    }
    hover(target) {
      const el = target instanceof HTMLElement ? target.closest(".tv-tok") : null;
      const e = this.e;
      if (!el || !e || el.dataset.i === void 0) return;
      const i = Number(el.dataset.i);
      this.tip.replaceChildren(...tooltipLines(e, i, this.s).map(([k, v]) => {
        const row = h("div", "tv-tip-row");
        row.append(h("span", "tv-tip-key", k), h("span", "tv-tip-value", v));
        return row;
      }));
      this.tip.hidden = false;
      const r = el.getBoundingClientRect();
      const host = this.element.getBoundingClientRect();
      this.tip.style.left = `${Math.max(0, Math.min(r.left - host.left, host.width - 260))}px`;
      this.tip.style.top = `${r.bottom - host.top + 4}px`;
    }
    setColourMode(mode) {
      this.mode = mode;
      this.modeSelect.value = mode;
      this.draw(true);
    }
    /** Finds `query` (text, or #id); the first match becomes current. Returns the match count. */
    search(query) {
      const e = this.e;
      if (!e) return 0;
      this.matches = findMatches(e, query);
      this.matchOf.clear();
      this.matches.forEach(([a, b], k) => {
        for (let i = a; i <= b; i++) if (!this.matchOf.has(i)) this.matchOf.set(i, k);
      });
      this.current = this.matches.length ? 0 : -1;
      this.showCount(query);
      if (this.current >= 0) this.reveal(this.matches[0][0]);
      else this.draw(true);
      return this.matches.length;
    }
    showCount(query) {
      this.count.textContent = query.trim() === "" ? "" : this.matches.length ? fillString(this.s.matches, this.current + 1, this.matches.length) : this.s.noMatch;
    }
    step(d) {
      if (!this.matches.length) return;
      this.current = (this.current + d + this.matches.length) % this.matches.length;
      this.showCount(this.searchBox.value);
      this.reveal(this.matches[this.current][0]);
    }
    /** Scrolls token i into the middle of the view and outlines it; returns i (-1 when there is no logprob). */
    jumpToLowest() {
      const i = this.summary?.lowest ?? -1;
      if (i >= 0) {
        this.focus = i;
        this.reveal(i);
      }
      return i;
    }
    reveal(i) {
      const L = this.layout;
      if (!L) return;
      const line = L.lineOf(i);
      const y = line * this.lineHeight;
      const h2 = this.scroller.clientHeight;
      if (y < this.scroller.scrollTop || y > this.scroller.scrollTop + h2 - this.lineHeight) this.scroller.scrollTop = Math.max(0, y - h2 / 2);
      this.draw(true);
    }
    /** The JSON `agentrl tokens --json` prints for this experience. */
    json() {
      return this.e ? JSON.stringify(toTokensJson(this.e)) : "";
    }
    copy() {
      const text = this.json();
      if (this.opts.onCopy) this.opts.onCopy(text);
      else void navigator.clipboard?.writeText(text);
      this.count.textContent = this.s.copied;
    }
    dispose() {
      this.resize.disconnect();
      if (this.frame) cancelAnimationFrame(this.frame);
      this.element.remove();
    }
  };

  // src/debug/webview/tokens-main.ts
  var vscode = acquireVsCodeApi();
  var post = (m) => vscode.postMessage(m);
  var root = document.getElementById("root");
  var view;
  window.addEventListener("message", (ev) => {
    const m = ev.data;
    if (m?.type !== "show") return;
    view ??= new TokenView({ strings: m.strings, onCopy: (json) => post({ type: "copy", json }) });
    if (!view.element.isConnected) root.append(view.element);
    view.show(fromWire(m.experience), m.notes);
  });
  post({ type: "ready" });
})();
//# sourceMappingURL=debug-tokens.js.map
