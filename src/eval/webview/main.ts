// The comparison view's page: the verdict with its interval, the per-task table (largest change
// first, a filter to regressions), and a task's two transcripts side by side, turn by turn,
// the turns that differ marked. DOM only, no network: the extension sends everything.
import type { ComparisonData, ComparisonRow, EvalStrings, FromView, PairRow, ToView, TranscriptTurn, ViewState } from '../protocol/messages';
import './eval.css';

declare function acquireVsCodeApi(): { postMessage(m: FromView): void; setState(s: ViewState): void };
const vscode = acquireVsCodeApi();

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const num = (x: number | null): string => (x === null ? '—' : x.toFixed(2));
const signed = (x: number | null): string => (x === null ? '—' : `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x).toFixed(2)}`);
const partsText = (p: Record<string, number>): string =>
  Object.entries(p)
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(' · ');

let data: ComparisonData | undefined;
let strings: EvalStrings | undefined;
let regressionsOnly = false;
let selected: string | undefined;
const root = document.getElementById('root')!;
const pane = el('section', 'pair');

function header(d: ComparisonData, s: EvalStrings): HTMLElement {
  const h = el('header');
  h.append(el('h1', undefined, d.title));
  const v = el('p', `verdict ${d.kind}`, d.verdict);
  v.id = 'verdict';
  h.append(v);
  h.append(
    el(
      'p',
      'rests',
      s.restsOn
        .replace('{0}', String(d.paired))
        .replace('{1}', String(d.tasks))
        .replace('{2}', d.a)
        .replace('{3}', String(d.failures.a))
        .replace('{4}', d.b)
        .replace('{5}', String(d.failures.b)),
    ),
  );
  if (d.interval) h.append(intervalBar(d), intervalAxis(d, s));
  if (d.models.length > 2) h.append(pickers(d, s), overview(d, s));
  const label = el('label', 'filter');
  const box = el('input');
  box.type = 'checkbox';
  box.id = 'regressions';
  box.checked = regressionsOnly;
  box.addEventListener('change', () => {
    regressionsOnly = box.checked;
    render();
  });
  label.append(box, document.createTextNode(` ${s.regressionsOnly}`));
  h.append(label);
  return h;
}

const pick = (a: string, b: string): void => vscode.postMessage({ type: 'pick', a, b });

/** Baseline and compared model, each a select of the comparison's models. */
function pickers(d: ComparisonData, s: EvalStrings): HTMLElement {
  const box = el('div', 'pickers');
  const select = (id: string, label: string, value: string, others: (v: string) => [string, string]) => {
    const l = el('label', undefined, `${label} `);
    const sel = el('select');
    sel.id = id;
    for (const m of d.models) {
      const o = el('option', undefined, m);
      o.value = m;
      sel.append(o);
    }
    sel.value = value;
    sel.addEventListener('change', () => pick(...others(sel.value)));
    l.append(sel);
    return l;
  };
  // Picking the other side's model swaps the two.
  box.append(
    select('pick-a', s.baseline, d.a, (v) => [v, v === d.b ? d.a : d.b]),
    select('pick-b', s.compared, d.b, (v) => [v === d.a ? d.b : d.a, v]),
  );
  return box;
}

/** Every model against the baseline, one line each; a line shows that model's table. */
function overview(d: ComparisonData, s: EvalStrings): HTMLElement {
  const box = el('section', 'overview');
  box.append(el('h2', undefined, s.eachAgainst.replace('{0}', d.a)));
  const list = el('ul');
  for (const o of d.overview) {
    const li = el('li', `${o.kind}${o.model === d.b ? ' selected' : ''}`);
    li.dataset.model = o.model;
    li.tabIndex = 0;
    li.append(el('span', 'diff', signed(o.meanDiff)), el('span', 'text', ` ${o.verdict}`));
    const open = () => pick(d.a, o.model);
    li.addEventListener('click', open);
    li.addEventListener('keydown', (e) => e.key === 'Enter' && open());
    list.append(li);
  }
  box.append(list);
  return box;
}

/** The interval on a −1…1 axis, zero marked: whether it excludes zero is what the eye checks. */
function intervalBar(d: ComparisonData): HTMLElement {
  const bar = el('div', 'interval');
  const pos = (x: number) => `${((Math.max(-1, Math.min(1, x)) + 1) / 2) * 100}%`;
  const span = el('div', 'span');
  span.style.left = pos(d.interval!.lo);
  span.style.width = `calc(${pos(d.interval!.hi)} - ${pos(d.interval!.lo)})`;
  const zero = el('div', 'zero');
  zero.style.left = pos(0);
  const mean = el('div', 'mean');
  mean.style.left = pos(d.meanDiff ?? 0);
  bar.append(span, zero, mean);
  bar.title = `${d.b} − ${d.a}: ${signed(d.meanDiff)} [${num(d.interval!.lo)}, ${num(d.interval!.hi)}]`;
  return bar;
}

/** The bar's axis: −1, 0 and +1 under it, which side favours which model, and what it measures. */
function intervalAxis(d: ComparisonData, s: EvalStrings): HTMLElement {
  const axis = el('div', 'interval-axis');
  const ticks = el('div', 'ticks');
  for (const [x, label] of [
    [0, '−1'],
    [50, '0'],
    [100, '+1'],
  ] as const) {
    const t = el('span', 'tick', label);
    t.style.left = `${x}%`;
    ticks.append(t);
  }
  const sides = el('div', 'sides');
  sides.append(el('span', undefined, `← ${s.better.replace('{0}', d.a)}`), el('span', undefined, `${s.better.replace('{0}', d.b)} →`));
  const level = Math.round((d.interval?.level ?? 0.95) * 100);
  axis.append(ticks, sides, el('div', 'caption', s.axis.replace('{0}', String(level)).replace('{1}', d.b).replace('{2}', d.a)));
  return axis;
}

function table(d: ComparisonData, s: EvalStrings): HTMLElement {
  const t = el('table', 'tasks');
  const head = el('tr');
  for (const c of [s.task, `${d.a} ${s.mean}`, `${d.a} ${s.pass}`, `${d.b} ${s.mean}`, `${d.b} ${s.pass}`, s.diff]) head.append(el('th', undefined, c));
  t.append(head);
  const rows = d.rows.filter((r) => !regressionsOnly || r.regression);
  for (const r of rows) t.append(row(r, s));
  return t;
}

function row(r: ComparisonRow, s: EvalStrings): HTMLElement {
  const tr = el('tr', `${r.regression ? 'regression' : r.diff !== null && r.diff > 0 ? 'improvement' : ''}${r.task === selected ? ' selected' : ''}`);
  tr.dataset.task = r.task;
  tr.tabIndex = 0;
  const cell = (text: string, title?: string) => {
    const td = el('td', undefined, text);
    if (title) td.title = title;
    return td;
  };
  const failed = (n: number) => (n ? ` (${s.failed.replace('{0}', String(n))})` : '');
  tr.append(
    cell(r.task),
    cell(num(r.a.mean) + failed(r.a.failed), partsText(r.partsA)),
    cell(num(r.a.pass)),
    cell(num(r.b.mean) + failed(r.b.failed), partsText(r.partsB)),
    cell(num(r.b.pass)),
    cell(signed(r.diff)),
  );
  const open = () => {
    selected = r.task;
    vscode.postMessage({ type: 'openTask', task: r.task });
    render();
  };
  tr.addEventListener('click', open);
  tr.addEventListener('keydown', (e) => e.key === 'Enter' && open());
  return tr;
}

function turnCell(t: TranscriptTurn | undefined): HTMLElement {
  const td = el('td', t ? `turn ${t.kind}` : 'turn none');
  if (t) {
    td.append(el('span', 'kind', t.kind));
    td.append(el('pre', undefined, t.text));
  }
  return td;
}

function showPair(task: string, a: string, b: string, rows: PairRow[]): void {
  const s = strings!;
  pane.replaceChildren();
  pane.append(el('h2', undefined, task));
  if (!rows.length) {
    pane.append(el('p', undefined, s.noTranscript));
    return;
  }
  const t = el('table', 'side-by-side');
  const head = el('tr');
  head.append(el('th', undefined, s.turn), el('th', undefined, a), el('th', undefined, b));
  t.append(head);
  rows.forEach((r, i) => {
    const tr = el('tr', r.differs ? 'differs' : 'same');
    const n = el('td', 'index', String(i + 1));
    if (r.differs) n.title = s.differs;
    tr.append(n, turnCell(r.a), turnCell(r.b));
    t.append(tr);
  });
  pane.append(t);
}

function render(): void {
  if (!data || !strings) return;
  root.replaceChildren(header(data, strings), table(data, strings), pane);
}

window.addEventListener('message', (e: MessageEvent<ToView>) => {
  const m = e.data;
  if (m.type === 'comparison') {
    if (data && (data.a !== m.data.a || data.b !== m.data.b)) {
      selected = undefined;
      pane.replaceChildren();
    }
    data = m.data;
    strings = m.strings;
    vscode.setState({ dir: data.dir, a: data.a, b: data.b });
    render();
  } else if (m.type === 'pair') {
    showPair(m.task, m.a, m.b, m.rows);
  }
});
vscode.postMessage({ type: 'ready' });
