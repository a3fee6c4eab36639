// The timings of a run by step, fed point by point (a job dir read once, or a relay's live
// stream): each tag normalized (tags.ts), bad values set aside and counted, never dropped
// silently. Several roles or nodes logging the same tag at a step are averaged, as the charts
// merge nodes; a step logged again (a restarted run) keeps its latest value.
import { type Classified, type Field, type Phase, classify, splitSuffix } from './tags';

interface Cell {
  value: number;
  rank: number;
  role: string;
  /** Every role's value, once a second role logged it at this step (then averaged). */
  roles?: Map<string, number>;
}

/** What a tag means, worked out once per tag (a run has tens of tags and millions of points). */
interface TagInfo {
  base: string;
  rank: number;
  c: Classified;
  isTiming: boolean;
}

export interface TableProblems {
  /** Negative or non-finite timings set aside, by tag. */
  badValues: Map<string, number>;
  /** Points that came with a lower step than the one before (same role and tag), by tag. */
  outOfOrder: Map<string, number>;
}

export class StepTable {
  private readonly fields = new Map<Field, Map<number, Cell>>();
  private readonly phases = new Map<Phase, Map<number, Cell>>();
  /** Wall time (seconds) of each explorer step's log: the end of its wait. */
  readonly explorerWall = new Map<number, number>();
  readonly other = new Set<string>();
  readonly seen = new Set<string>();
  readonly problems: TableProblems = { badValues: new Map(), outOfOrder: new Map() };
  private readonly steps = new Set<number>();
  private sorted: number[] | undefined;

  private readonly tags = new Map<string, TagInfo>();
  /** The last step per role and tag (steps out of order). */
  private readonly lastByRole = new Map<string, Map<string, number>>();

  private info(tag: string): TagInfo {
    let i = this.tags.get(tag);
    if (!i) {
      const { base, rank } = splitSuffix(tag);
      const c = classify(base);
      i = { base, rank, c, isTiming: c.kind === 'phase' || (c.kind === 'field' && c.field !== 'model_version' && c.field !== 'throughput') };
      this.tags.set(tag, i);
      if (c.kind !== 'ignored') this.seen.add(base);
      if (c.kind === 'other') this.other.add(tag);
    }
    return i;
  }

  add(role: string, tag: string, step: number, wallTime: number | undefined, value: number): void {
    const { base, rank, c, isTiming } = this.info(tag);
    if (c.kind !== 'field' && c.kind !== 'phase') return;
    if (!Number.isInteger(step) || step < 0) return;
    let last = this.lastByRole.get(role);
    if (!last) this.lastByRole.set(role, (last = new Map<string, number>()));
    const prev = last.get(tag);
    if (prev !== undefined && step < prev) bump(this.problems.outOfOrder, base);
    last.set(tag, step);
    if (!Number.isFinite(value) || (isTiming && value < 0)) {
      bump(this.problems.badValues, base);
      return;
    }
    const map = c.kind === 'field' ? get(this.fields, c.field) : get(this.phases, c.phase);
    const cell = map.get(step);
    if (!cell || rank < cell.rank || (rank === cell.rank && cell.role === role && !cell.roles)) map.set(step, { value, rank, role });
    else if (rank === cell.rank) {
      cell.roles ??= new Map([[cell.role, cell.value]]);
      cell.roles.set(role, value);
      let sum = 0;
      for (const v of cell.roles.values()) sum += v;
      cell.value = sum / cell.roles.size;
    }
    if (c.kind === 'field' && c.field === 'wait_explore_step' && wallTime !== undefined && Number.isFinite(wallTime)) this.explorerWall.set(step, wallTime);
    if (!this.steps.has(step)) {
      this.steps.add(step);
      this.sorted = undefined;
    }
  }

  field(f: Field, step: number): number | undefined {
    return this.fields.get(f)?.get(step)?.value;
  }

  has(f: Field): boolean {
    return (this.fields.get(f)?.size ?? 0) > 0;
  }

  /** The sum of verl's compute phases at a step, or undefined when none was logged. */
  phaseSum(step: number): number | undefined {
    let sum: number | undefined;
    for (const m of this.phases.values()) {
      const c = m.get(step);
      if (c) sum = (sum ?? 0) + c.value;
    }
    return sum;
  }

  /** Every step with a timing, ascending. */
  allSteps(): number[] {
    this.sorted ??= [...this.steps].sort((a, b) => a - b);
    return this.sorted;
  }
}

function get<K, V>(m: Map<K, Map<number, V>>, k: K): Map<number, V> {
  let v = m.get(k);
  if (!v) m.set(k, (v = new Map<number, V>()));
  return v;
}

function bump(m: Map<string, number>, k: string): void {
  m.set(k, (m.get(k) ?? 0) + 1);
}
