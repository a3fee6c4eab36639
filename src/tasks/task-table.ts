// Experience rows folded into one table of tasks × model versions: the counts and sums each
// class and finding needs, never the rows themselves (a 500 k-row buffer is a few thousand
// cells). Rows come as the relay streams them; an `updated` row replaces its first delivery
// (the trainer's read, a late /feedback reward), so each row's contribution is remembered by id
// (in typed columns: a few dozen bytes a row). The relay folds its buffer into one (one pass,
// then the new and changed rows) and sends it as its wire form (`toWire`); the client rebuilds
// it (`fromWire`) to class the tasks and look for evidence.
import type { ExperienceRow } from '../relay-protocol/messages';
import { fromWireNumber, toWireNumber } from '../relay-protocol/messages';
import type { SameResponseWire, TaskCellWire, TaskTableWire } from '../relay-protocol/tasks';

/** The sums of one task at one model version. */
export interface Cell {
  /** Experiences with a finite reward. */
  n: number;
  sum: number;
  /** The highest reward of a member. */
  max: number;
  /** Members with a response length, and its sum. */
  lenN: number;
  lenSum: number;
  /** Per reward part (the experience's numeric metrics): members and sum. */
  parts: Map<string, { n: number; sum: number }>;
}

/** Why rows could not be placed: counted and named, never dropped silently. */
export interface Skipped {
  /** Neither `task_index` nor `task_id`. */
  noTask: number;
  /** No model version. */
  noVersion: number;
  /** Reward absent, NaN or infinite. */
  noReward: number;
}

/** What identifies tasks in this run. */
export type Identity = 'task_index' | 'eid.task' | 'mixed' | 'none';

interface Placed {
  key: string;
  version: number;
  reward: number;
  len?: number;
  parts?: [string, number][];
}

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** Keys of taskset rows below this are made once (a fold meets each task many times). */
const KEYS_KEPT = 1 << 20;
const indexKeys: string[] = [];

/** The key of taskset row `index` of taskset `taskset` (0 or absent: the first). */
function indexKey(index: number, taskset: number | undefined): string {
  if (taskset) return `${taskset}/${index}`;
  if (!(Number.isInteger(index) && index >= 0 && index < KEYS_KEPT)) return String(index);
  return (indexKeys[index] ??= String(index));
}

const SKIP_CODES: (keyof Skipped)[] = ['noTask', 'noVersion', 'noReward'];
/** Row ids below this are kept in typed columns (SQL row ids and JSON-lines line numbers are dense); others in a map. */
const DENSE_IDS = 1 << 26;

/**
 * What each row added to the table, so that a changed row can take it back: its cell (or why it
 * was skipped), reward, length and parts, by row id in columns that grow by doubling.
 */
class RowLedger {
  /** 0: not seen; > 0: 1 + the cell's index; < 0: −(1 + the skip reason's index). */
  private slot = new Int32Array(1024);
  /** The slot of row `id` (0: not seen), without making its record. */
  slotOf(id: number): number {
    if (id < 0 || id >= DENSE_IDS) return this.sparse.get(id)?.slot ?? 0;
    return id < this.slot.length ? this.slot[id] : 0;
  }

  private reward = new Float64Array(1024);
  private len = new Float64Array(1024);
  private readonly parts = new Map<string, Float64Array>();
  private readonly sparse = new Map<number, { slot: number; reward: number; len: number; parts?: [string, number][] }>();

  private grow(id: number): void {
    let cap = this.slot.length;
    while (cap <= id) cap *= 2;
    const more = <T extends Int32Array | Float64Array>(a: T, b: T): T => {
      b.set(a);
      return b;
    };
    this.slot = more(this.slot, new Int32Array(cap));
    this.reward = more(this.reward, new Float64Array(cap));
    this.len = more(this.len, new Float64Array(cap));
    for (const [k, a] of this.parts) this.parts.set(k, more(a, new Float64Array(cap).fill(NaN)));
  }

  get(id: number): { slot: number; reward: number; len: number; parts?: [string, number][] } | undefined {
    if (id < 0 || id >= DENSE_IDS) return this.sparse.get(id);
    const slot = id < this.slot.length ? this.slot[id] : 0;
    if (slot === 0) return undefined;
    const parts: [string, number][] = [];
    for (const [k, a] of this.parts) if (!Number.isNaN(a[id])) parts.push([k, a[id]]);
    return { slot, reward: this.reward[id], len: this.len[id], parts };
  }

  set(id: number, slot: number, reward = NaN, len = NaN, parts?: [string, number][]): void {
    if (id < 0 || id >= DENSE_IDS) {
      this.sparse.set(id, { slot, reward, len, parts });
      return;
    }
    if (id >= this.slot.length) this.grow(id);
    this.slot[id] = slot;
    this.reward[id] = reward;
    this.len[id] = len;
    for (const a of this.parts.values()) a[id] = NaN;
    for (const [k, v] of parts ?? []) {
      let a = this.parts.get(k);
      if (!a) this.parts.set(k, (a = new Float64Array(this.slot.length).fill(NaN)));
      a[id] = v;
    }
  }
}

/** How many responses per model version the same-response sketch follows. */
const SAME_SLOTS = 32;
/** How many distinct tasks, and example rows, it keeps per response. */
const SAME_TASKS = 64;
const SAME_EXAMPLES = 3;

interface Same {
  rows: number;
  tasks: Set<string>;
  examples: number[];
}

export interface Examples {
  best: number;
  bestReward: number;
  worst: number;
  worstReward: number;
  longest: number;
  longestLen: number;
}

export class TaskTable {
  readonly cells = new Map<string, Map<number, Cell>>();
  readonly skipped: Skipped = { noTask: 0, noVersion: 0, noReward: 0 };
  /** Rows placed at a model version below one an earlier row had (first deliveries only). */
  versionsOutOfOrder = 0;
  /** Rows placed (a replaced row counts once). */
  rows = 0;
  /** The finite rewards' range over the run. */
  lo = Infinity;
  hi = -Infinity;
  private stable = 0;
  private unstable = 0;
  private highestVersion = -Infinity;
  private readonly ledger = new RowLedger();
  /** Every cell in the order it appeared (the ledger points at them by index). */
  private readonly cellList: { key: string; version: number; cell: Cell }[] = [];
  private readonly cellIndex = new Map<Cell, number>();
  /** Example row ids per task and version: the best and the worst member (the rollouts behind a finding). */
  readonly examples = new Map<string, Examples>();
  /**
   * Per model version, the responses (by `response_hash`) most rows gave — a Space-Saving sketch
   * of SAME_SLOTS counters (the rows of a response that took an evicted one's slot count from
   * its count), each with the distinct tasks that gave it: the same answer across many tasks is
   * the sign of mode collapse. Fed by first deliveries only.
   */
  private readonly same = new Map<number, Map<string, Same>>();
  /** Per model version, the fewest rows a counter of `same` had at the last eviction (a lower bound of them all). */
  private readonly sameFloor = new Map<number, number>();
  /** Rows that carried a response fingerprint. */
  hashed = 0;
  private loadedSame: SameResponseWire[] | undefined;

  get identity(): Identity {
    if (this.stable && this.unstable) return 'mixed';
    return this.stable ? 'task_index' : this.unstable ? 'eid.task' : 'none';
  }

  /** Folds in a batch of rows (`source`-qualified ids are the caller's business: one table per source). */
  add(rows: readonly ExperienceRow[]): void {
    for (const r of rows) {
      const before = this.ledger.slotOf(r.id) === 0 ? undefined : this.ledger.get(r.id);
      if (before && before.slot < 0) this.skipped[SKIP_CODES[-before.slot - 1]]--;
      else if (before) {
        const { key, version } = this.cellList[before.slot - 1];
        this.apply({ key, version, reward: before.reward, len: Number.isNaN(before.len) ? undefined : before.len, parts: before.parts }, -1);
      }
      if (before === undefined) this.rows++;
      const p = this.place(r);
      if (typeof p === 'string') {
        this.skipped[p]++;
        this.ledger.set(r.id, -(SKIP_CODES.indexOf(p) + 1));
        continue;
      }
      if (before === undefined) {
        if (p.version < this.highestVersion) this.versionsOutOfOrder++;
        else this.highestVersion = p.version;
      }
      const cell = this.apply(p, 1);
      const index = this.cellIndex.get(cell)!;
      this.ledger.set(r.id, index + 1, p.reward, p.len ?? NaN, p.parts);
      this.example(r.id, p, index);
      if (before === undefined && r.response_hash !== undefined) this.sameResponse(r.id, p, r.response_hash);
    }
  }

  private place(r: ExperienceRow): Placed | keyof Skipped {
    // The key of the row's task: its taskset row when recorded (stable), else eid.task (its position in its batch).
    const stable = r.task_index !== undefined;
    if (!stable && (r.task_id === null || r.task_id === '')) return 'noTask';
    if (r.model_version === null) return 'noVersion';
    const reward = r.reward === null ? NaN : fromWireNumber(r.reward);
    if (!finite(reward)) return 'noReward';
    const key = stable ? indexKey(r.task_index!, r.taskset_id) : `eid ${r.task_id}`;
    if (stable) this.stable++;
    else this.unstable++;
    let parts: [string, number][] | undefined;
    if (r.metrics) {
      parts = [];
      for (const k of Object.keys(r.metrics)) {
        const v = fromWireNumber(r.metrics[k]);
        if (finite(v)) parts.push([k, v]);
      }
    }
    return { key, version: r.model_version, reward, len: r.response_tokens, parts };
  }

  private cellAt(key: string, version: number): Cell {
    let byVersion = this.cells.get(key);
    if (!byVersion) this.cells.set(key, (byVersion = new Map<number, Cell>()));
    let c = byVersion.get(version);
    if (!c) {
      byVersion.set(version, (c = { n: 0, sum: 0, max: -Infinity, lenN: 0, lenSum: 0, parts: new Map() }));
      this.cellIndex.set(c, this.cellList.length);
      this.cellList.push({ key, version, cell: c });
    }
    return c;
  }

  private apply(p: Placed, sign: 1 | -1): Cell {
    const c = this.cellAt(p.key, p.version);
    c.n += sign;
    c.sum += sign * p.reward;
    // max only grows: a replaced row's old reward may stay the cell's max, which errs towards "rewarded"
    if (sign > 0) c.max = Math.max(c.max, p.reward);
    if (p.len !== undefined) {
      c.lenN += sign;
      c.lenSum += sign * p.len;
    }
    if (p.parts)
      for (const [k, v] of p.parts) {
        let s = c.parts.get(k);
        if (!s) c.parts.set(k, (s = { n: 0, sum: 0 }));
        s.n += sign;
        s.sum += sign * v;
      }
    if (sign > 0) {
      this.lo = Math.min(this.lo, p.reward);
      this.hi = Math.max(this.hi, p.reward);
    }
    return c;
  }

  /** `examples`' entry of each cell by its index (the same objects: no key made per row). */
  private readonly cellExamples: (Examples | undefined)[] = [];

  private example(id: number, p: Placed, index: number): void {
    let e = this.cellExamples[index];
    const len = p.len ?? -1;
    if (!e) {
      const k = `${p.key}@${p.version}`;
      e = this.examples.get(k);
      if (!e) {
        this.examples.set(k, (this.cellExamples[index] = { best: id, bestReward: p.reward, worst: id, worstReward: p.reward, longest: id, longestLen: len }));
        return;
      }
      this.cellExamples[index] = e;
    }
    if (p.reward > e.bestReward) {
      e.best = id;
      e.bestReward = p.reward;
    }
    if (p.reward < e.worstReward) {
      e.worst = id;
      e.worstReward = p.reward;
    }
    if (len > e.longestLen) {
      e.longest = id;
      e.longestLen = len;
    }
  }

  private sameResponse(id: number, p: Placed, hash: string): void {
    this.hashed++;
    let m = this.same.get(p.version);
    if (!m) this.same.set(p.version, (m = new Map<string, Same>()));
    const e = m.get(hash);
    if (e) {
      e.rows++;
      if (!e.tasks.has(p.key) && e.tasks.size < SAME_TASKS) {
        e.tasks.add(p.key);
        if (e.examples.length < SAME_EXAMPLES) e.examples.push(id);
      }
      return;
    }
    let rows = 1;
    if (m.size >= SAME_SLOTS) {
      // The first counter with the fewest rows. Counts never drop, and a new one starts past the
      // evicted one: the least of them never goes down, so one at the last least is the least.
      const floor = this.sameFloor.get(p.version) ?? 1;
      let minKey = '';
      let min = Infinity;
      for (const [k, x] of m)
        if (x.rows < min) {
          min = x.rows;
          minKey = k;
          if (min <= floor) break;
        }
      this.sameFloor.set(p.version, min);
      m.delete(minKey);
      rows = min + 1;
    }
    m.set(hash, { rows, tasks: new Set([p.key]), examples: [id] });
  }

  /** The responses given by two or more tasks at a version, as the sketch holds them. */
  sameResponses(): SameResponseWire[] {
    if (this.loadedSame) return this.loadedSame;
    const out: SameResponseWire[] = [];
    for (const [version, m] of this.same)
      for (const [hash, e] of m) if (e.tasks.size >= 2) out.push({ version, hash, rows: e.rows, tasks: e.tasks.size, examples: [...e.examples] });
    return out;
  }

  /** Every model version seen, ascending. */
  versions(): number[] {
    const all = new Set<number>();
    for (const byVersion of this.cells.values()) for (const v of byVersion.keys()) all.add(v);
    return [...all].sort((a, b) => a - b);
  }

  /** The table as the relay sends it: its cells with members, in the order they appeared. */
  toWire(): TaskTableWire {
    const cells: TaskCellWire[] = [];
    for (const { key, version, cell: c } of this.cellList) {
      if (c.n <= 0) continue;
      const e = this.examples.get(`${key}@${version}`)!;
      const parts: Record<string, [number, number]> = {};
      for (const [k, s] of c.parts) if (s.n > 0) parts[k] = [s.n, s.sum];
      cells.push({ task: key, version, n: c.n, sum: c.sum, max: c.max, lenN: c.lenN, lenSum: c.lenSum, parts, ...e });
    }
    const s = this.skipped;
    return {
      rows: this.rows,
      stable: this.stable,
      unstable: this.unstable,
      lo: toWireNumber(this.lo),
      hi: toWireNumber(this.hi),
      notes: { noTask: s.noTask, noVersion: s.noVersion, noReward: s.noReward, versionsOutOfOrder: this.versionsOutOfOrder },
      cells,
      hashed: this.hashed,
      same: this.sameResponses(),
    };
  }

  /** A table rebuilt from the relay's wire form (it takes no rows: the relay folds them). */
  static fromWire(w: TaskTableWire): TaskTable {
    const t = new TaskTable();
    t.rows = w.rows;
    t.stable = w.stable;
    t.unstable = w.unstable;
    t.lo = fromWireNumber(w.lo);
    t.hi = fromWireNumber(w.hi);
    Object.assign(t.skipped, { noTask: w.notes.noTask, noVersion: w.notes.noVersion, noReward: w.notes.noReward });
    t.versionsOutOfOrder = w.notes.versionsOutOfOrder;
    t.hashed = w.hashed;
    t.loadedSame = w.same;
    for (const c of w.cells) {
      const cell = t.cellAt(c.task, c.version);
      Object.assign(cell, { n: c.n, sum: c.sum, max: c.max, lenN: c.lenN, lenSum: c.lenSum });
      for (const [k, [n, sum]] of Object.entries(c.parts)) cell.parts.set(k, { n, sum });
      const { best, bestReward, worst, worstReward, longest, longestLen } = c;
      t.examples.set(`${c.task}@${c.version}`, { best, bestReward, worst, worstReward, longest, longestLen });
    }
    return t;
  }
}
