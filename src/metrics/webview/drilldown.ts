// The drill-down pane: the rollouts behind a clicked step — a reward histogram whose bins
// filter the list, the list of rollouts (task, run, reward), and one rollout's messages.
import type { RolloutDetail, RolloutRow, RolloutsMessage, UiStrings } from '../../shared/metrics-protocol';
import { fmtBucket, fmtNum } from './format';

const BINS = 12;

export interface DrillHost {
  strings: UiStrings;
  open(row: RolloutRow): void;
}

export class DrillPane {
  readonly el: HTMLElement;
  private readonly body: HTMLElement;
  private readonly titleEl: HTMLElement;
  private msg: RolloutsMessage | undefined;
  private bin: number | undefined;

  constructor(private readonly host: DrillHost) {
    this.el = document.createElement('aside');
    this.el.className = 'drill';
    this.el.hidden = true;
    const head = document.createElement('header');
    this.titleEl = document.createElement('span');
    this.titleEl.className = 'title';
    const close = document.createElement('button');
    close.textContent = '✕';
    close.title = host.strings.close;
    close.setAttribute('aria-label', host.strings.close);
    close.addEventListener('click', () => (this.el.hidden = true));
    head.append(this.titleEl, close);
    this.body = document.createElement('div');
    this.body.className = 'body';
    this.el.append(head, this.body);
  }

  loading(run: string): void {
    this.el.hidden = false;
    this.titleEl.textContent = `${this.host.strings.rolloutsTitle} · ${run}`;
    this.body.textContent = this.host.strings.rolloutsLoading;
  }

  show(m: RolloutsMessage): void {
    this.msg = m;
    this.bin = undefined;
    this.el.hidden = false;
    const s = this.host.strings;
    const where = fmtBucket(m.xAxis, m.x[0], m.x[1] - m.x[0], s.step);
    this.titleEl.textContent = `${s.rolloutsTitle} · ${m.run} · ${where} · ${s.modelVersion} ${m.modelVersions.join(', ') || '–'}`;
    this.renderBody();
  }

  private bins(): { lo: number; hi: number; edges: number[]; counts: number[] } | undefined {
    const r = this.msg?.rewards ?? [];
    if (!r.length) return undefined;
    let lo = Math.min(...r);
    let hi = Math.max(...r);
    if (lo === hi) (lo -= 0.5), (hi += 0.5);
    const w = (hi - lo) / BINS;
    const edges = Array.from({ length: BINS + 1 }, (_, i) => lo + i * w);
    const counts = new Array(BINS).fill(0);
    for (const v of r) counts[Math.min(BINS - 1, Math.floor((v - lo) / w))]++;
    return { lo, hi, edges, counts };
  }

  private binOf(v: number | null, b: { lo: number; hi: number }): number {
    if (v === null || !Number.isFinite(v)) return -1;
    return Math.min(BINS - 1, Math.floor(((v - b.lo) / (b.hi - b.lo)) * BINS));
  }

  private renderBody(): void {
    const m = this.msg!;
    const s = this.host.strings;
    const parts: HTMLElement[] = [];
    if (!m.total) {
      const p = document.createElement('p');
      p.className = 'empty';
      p.textContent = s.rolloutsNone;
      this.body.replaceChildren(p);
      return;
    }
    const b = this.bins();
    if (b) {
      const h = document.createElement('div');
      h.className = 'histogram';
      h.setAttribute('aria-label', s.rewardHistogram);
      const max = Math.max(...b.counts);
      b.counts.forEach((c, i) => {
        const bar = document.createElement('button');
        bar.className = 'bin' + (this.bin === i ? ' selected' : '');
        bar.dataset.bin = String(i);
        bar.title = `${s.reward} ${fmtNum(b.edges[i])} – ${fmtNum(b.edges[i + 1])}: ${c}`;
        const fill = document.createElement('span');
        fill.style.height = `${max ? Math.max(c ? 4 : 0, (c / max) * 100) : 0}%`;
        bar.append(fill);
        bar.addEventListener('click', () => {
          this.bin = this.bin === i ? undefined : i;
          this.renderBody();
        });
        h.append(bar);
      });
      const axis = document.createElement('div');
      axis.className = 'hist-axis';
      axis.textContent = `${fmtNum(b.lo)} … ${fmtNum(b.hi)}  (${s.rewardHistogram})`;
      parts.push(h, axis);
    }
    const rows = b && this.bin !== undefined ? m.rows.filter((r) => this.binOf(r.reward, b) === this.bin) : m.rows;
    const info = document.createElement('div');
    info.className = 'shown';
    info.textContent = s.shownOf.replace('{0}', String(rows.length)).replace('{1}', String(m.total));
    if (this.bin !== undefined) {
      const all = document.createElement('button');
      all.className = 'link';
      all.textContent = s.allBins;
      all.addEventListener('click', () => {
        this.bin = undefined;
        this.renderBody();
      });
      info.append(' ', all);
    }
    parts.push(info);
    const table = document.createElement('table');
    table.className = 'rollouts';
    const head = table.createTHead().insertRow();
    for (const t of [s.task, '#', s.reward, s.modelVersion, 'id']) {
      const th = document.createElement('th');
      th.textContent = t;
      head.append(th);
    }
    const tb = table.createTBody();
    for (const r of rows) {
      const tr = tb.insertRow();
      tr.className = 'rollout';
      tr.tabIndex = 0;
      tr.dataset.id = String(r.id);
      for (const v of [r.taskId ?? '–', r.runId ?? '–', fmtNum(r.reward), r.modelVersion ?? '–', r.id]) tr.insertCell().textContent = String(v);
      const open = () => {
        for (const x of tb.querySelectorAll('tr.open')) x.classList.remove('open');
        tr.classList.add('open');
        this.host.open(r);
      };
      tr.addEventListener('click', open);
      tr.addEventListener('keydown', (e) => e.key === 'Enter' && open());
    }
    parts.push(table);
    const detail = document.createElement('div');
    detail.className = 'detail';
    parts.push(detail);
    this.body.replaceChildren(...parts);
  }

  /** One rollout's messages (or the error reading them). */
  detail(d: RolloutDetail | undefined, error: string | undefined): void {
    const box = this.body.querySelector('.detail');
    if (!box) return;
    const s = this.host.strings;
    const out: HTMLElement[] = [];
    const h = document.createElement('h3');
    h.textContent = d ? `${s.messages} · ${d.ref.table} #${d.ref.id}` : s.messages;
    out.push(h);
    if (error || !d) {
      const p = document.createElement('p');
      p.className = 'error';
      p.textContent = error ?? '';
      out.push(p);
    } else {
      for (const m of d.messages) {
        const div = document.createElement('div');
        div.className = `message role-${m.role.replace(/[^a-z_-]/gi, '')}`;
        const role = document.createElement('div');
        role.className = 'role';
        role.textContent = m.role;
        const content = document.createElement('pre');
        content.textContent = m.content;
        div.append(role, content);
        if (m.extra) {
          const extra = document.createElement('pre');
          extra.className = 'extra';
          extra.textContent = m.extra;
          div.append(extra);
        }
        out.push(div);
      }
      const dl = document.createElement('dl');
      for (const [k, v] of Object.entries(d.fields)) {
        const dt = document.createElement('dt');
        dt.textContent = k;
        const dd = document.createElement('dd');
        dd.textContent = v;
        dl.append(dt, dd);
      }
      out.push(dl);
    }
    box.replaceChildren(...out);
  }
}
