// The drill-down's rows as the webview works on them: filters (a reward bin, a bin of one
// reward part, a task substring), the reward histogram, the stacked histogram of the reward
// parts, and a row's GRPO group. Every operation is one pass over typed columns, so 10⁶ rows
// filter in milliseconds; the list then renders only the rows in view (virtual-window.ts).
// Pure: no DOM.
import type { ExperienceColumns } from '../protocol/experience-rows';

export const BINS = 12;

export interface Histogram {
  lo: number;
  hi: number;
  counts: number[];
}

/** One histogram per reward part over a shared x range; drawn stacked. */
export interface StackedHistogram {
  lo: number;
  hi: number;
  series: { name: string; counts: number[] }[];
}

export interface ExperienceFilter {
  /** A bin of the reward histogram. */
  rewardBin?: number;
  /** A bin of one part in the parts histogram. */
  part?: { name: string; bin: number };
  /** Case-insensitive substring of the task id. */
  text?: string;
}

/** The rollouts of one task at one model version: GRPO normalizes rewards within it. */
export interface ExperienceGroup {
  task: string | null;
  modelVersion: number | null;
  members: number[];
  mean: number | null;
  /** Sample standard deviation (as torch.std, which GRPO uses). */
  std: number | null;
}

function range(values: readonly (number | null)[][]): [number, number] | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (const vs of values)
    for (const v of vs) {
      if (v === null) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  if (lo > hi) return undefined;
  return lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi];
}

export function binOf(v: number | null, lo: number, hi: number, bins = BINS): number {
  if (v === null) return -1;
  return Math.max(0, Math.min(bins - 1, Math.floor(((v - lo) / (hi - lo)) * bins)));
}

function count(values: readonly (number | null)[], lo: number, hi: number, bins: number): number[] {
  const out = new Array<number>(bins).fill(0);
  for (const v of values) if (v !== null) out[binOf(v, lo, hi, bins)]++;
  return out;
}

export class ExperienceTable {
  private rewardHist: Histogram | undefined | null = null;
  private partsHist: StackedHistogram | undefined | null = null;

  constructor(
    readonly cols: ExperienceColumns,
    readonly bins = BINS,
  ) {}

  get size(): number {
    return this.cols.id.length;
  }

  rewardHistogram(): Histogram | undefined {
    if (this.rewardHist === null) {
      const r = range([this.cols.reward]);
      this.rewardHist = r && { lo: r[0], hi: r[1], counts: count(this.cols.reward, r[0], r[1], this.bins) };
    }
    return this.rewardHist;
  }

  partsHistogram(): StackedHistogram | undefined {
    if (this.partsHist === null) {
      const r = this.cols.parts.length ? range(this.cols.parts.map((p) => p.values)) : undefined;
      this.partsHist = r && { lo: r[0], hi: r[1], series: this.cols.parts.map((p) => ({ name: p.name, counts: count(p.values, r[0], r[1], this.bins) })) };
    }
    return this.partsHist;
  }

  /** Indices of the rows that pass `f`, in list order. */
  filter(f: ExperienceFilter): Uint32Array {
    const n = this.size;
    const c = this.cols;
    const rh = f.rewardBin !== undefined ? this.rewardHistogram() : undefined;
    const ph = f.part ? this.partsHistogram() : undefined;
    const partValues = f.part ? c.parts.find((p) => p.name === f.part!.name)?.values : undefined;
    let taskOk: Uint8Array | undefined;
    const text = f.text?.trim().toLowerCase();
    if (text) {
      taskOk = new Uint8Array(c.tasks.length);
      c.tasks.forEach((t, k) => (taskOk![k] = t !== null && t.toLowerCase().includes(text) ? 1 : 0));
    }
    const out = new Uint32Array(n);
    let m = 0;
    for (let i = 0; i < n; i++) {
      if (taskOk && (c.task[i] < 0 || !taskOk[c.task[i]])) continue;
      if (rh && binOf(c.reward[i], rh.lo, rh.hi, this.bins) !== f.rewardBin) continue;
      if (f.part && (!ph || !partValues || binOf(partValues[i], ph.lo, ph.hi, this.bins) !== f.part.bin)) continue;
      out[m++] = i;
    }
    return out.subarray(0, m);
  }

  /** Row i's group: the rows with its task and model version (ordered by run). */
  group(i: number): ExperienceGroup {
    const c = this.cols;
    const task = c.task[i];
    const mv = c.modelVersion[i];
    const members: number[] = [];
    if (task >= 0) {
      for (let j = 0; j < this.size; j++) if (c.task[j] === task && c.modelVersion[j] === mv) members.push(j);
    } else {
      members.push(i);
    }
    members.sort((a, b) => (c.runId[a] ?? 0) - (c.runId[b] ?? 0) || c.id[a] - c.id[b]);
    const rewards = members.map((j) => c.reward[j]).filter((v): v is number => v !== null);
    const mean = rewards.length ? rewards.reduce((a, b) => a + b, 0) / rewards.length : null;
    const std = mean !== null && rewards.length > 1 ? Math.sqrt(rewards.reduce((a, v) => a + (v - mean) ** 2, 0) / (rewards.length - 1)) : null;
    return { task: task >= 0 ? c.tasks[task] : null, modelVersion: mv, members, mean, std };
  }

  /** The index of the row with this origin and id (after a refresh re-ordered the rows), or -1. */
  indexOf(origin: { endpoint: string; source: string }, id: number): number {
    const c = this.cols;
    for (let i = 0; i < this.size; i++) {
      if (c.id[i] !== id) continue;
      const o = c.origins[c.origin[i]];
      if (o.endpoint === origin.endpoint && o.source === origin.source) return i;
    }
    return -1;
  }
}
