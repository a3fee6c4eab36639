// Experience rows of the SQL buffers streamed by the relays, indexed by run and model
// version for the drill-down (click a step → its rollouts). Rows are small (no messages:
// those are read on demand), keyed by (endpoint, source, id): a row sent again (its reward
// arrived, the trainer consumed it) replaces the one held, and is written again to disk.
import type { ExperienceRow, WireNumber } from '../../relay-protocol/messages';
import { fromWireNumber, toWireNumber } from '../../relay-protocol/messages';
import type { ExperienceViewRow } from '../protocol/experience-rows';

/** What a stored line holds: a ExperienceViewRow with non-finite numbers as wire strings. */
type StoredRow = Omit<ExperienceViewRow, 'reward' | 'advantage' | 'metrics'> & {
  reward: WireNumber | null;
  advantage?: WireNumber | null;
  metrics?: Record<string, WireNumber>;
};

const wireOrNull = (v: number | null | undefined): WireNumber | null => (v === null || v === undefined ? null : toWireNumber(v));
const numOrNull = (v: WireNumber | null | undefined): number | null => (v === null || v === undefined ? null : fromWireNumber(v));
function mapValues<A, B>(o: Record<string, A>, f: (v: A) => B): Record<string, B> {
  const out: Record<string, B> = {};
  for (const k in o) out[k] = f(o[k]);
  return out;
}

export class ExperienceIndex {
  private readonly rows: ExperienceViewRow[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly byRunVersion = new Map<string, Map<number | null, number[]>>();
  /** Rows [0, written) have been written once; replaced ones among them wait in `dirty`. */
  private written = 0;
  private readonly dirty = new Set<number>();
  /** Lines on disk (a replaced row adds a line; the last line of a key wins on load). */
  persisted = 0;
  /** Rows were forgotten: the next write replaces the file (takeUnpersisted then gives every row). */
  rewrite = false;
  /** Called with the run and model versions of rows that were added or replaced. */
  onChange: ((run: string, versions: Set<number | null>) => void) | undefined;

  get size(): number {
    return this.rows.length;
  }

  /** Adds rows (or replaces the ones held with the same key); returns how many were new. */
  add(endpoint: string, source: string, run: string, rows: ExperienceRow[]): number {
    let added = 0;
    const versions = new Set<number | null>();
    for (const r of rows) {
      const row: ExperienceViewRow = {
        run,
        endpoint,
        source,
        table: r.table,
        id: r.id,
        taskId: r.task_id,
        runId: r.run_id,
        modelVersion: r.model_version,
        reward: numOrNull(r.reward),
        timestamp: r.timestamp,
      };
      if (r.consumed !== undefined) row.consumed = r.consumed;
      if (r.metrics) row.metrics = mapValues(r.metrics, fromWireNumber);
      if (r.advantage !== undefined) row.advantage = numOrNull(r.advantage);
      if (r.response_tokens !== undefined) row.responseTokens = r.response_tokens;
      if (r.trained_tokens !== undefined) row.trainedTokens = r.trained_tokens;
      if (r.truncated !== undefined) row.truncated = r.truncated;
      if (r.empty_response !== undefined) row.emptyResponse = r.empty_response;
      const was = this.put(row);
      if (was === 'added') added++;
      if (was !== 'same') versions.add(row.modelVersion);
    }
    if (versions.size) this.onChange?.(run, versions);
    return added;
  }

  /** Deletes a run's rows (the run was forgotten); the others are indexed again, to be written anew. */
  forgetRun(run: string): void {
    if (!this.byRunVersion.has(run)) return;
    const keep = this.rows.filter((r) => r.run !== run);
    this.rows.length = 0;
    this.byKey.clear();
    this.byRunVersion.clear();
    this.dirty.clear();
    for (const r of keep) this.put(r);
    this.written = 0;
    this.persisted = 0;
    this.rewrite = true;
  }

  private put(row: ExperienceViewRow): 'added' | 'replaced' | 'same' {
    const key = `${row.endpoint}\u0000${row.source}\u0000${row.id}`;
    const at = this.byKey.get(key);
    if (at === undefined) {
      this.byKey.set(key, this.rows.push(row) - 1);
      this.indexAt(this.rows.length - 1);
      return 'added';
    }
    const old = this.rows[at];
    if (JSON.stringify(old) === JSON.stringify(row)) return 'same';
    if (old.run !== row.run || old.modelVersion !== row.modelVersion) {
      const list = this.byRunVersion.get(old.run)?.get(old.modelVersion);
      const k = list ? list.indexOf(at) : -1;
      if (k >= 0) list!.splice(k, 1);
      this.rows[at] = row;
      this.indexAt(at, true);
    } else {
      this.rows[at] = row;
    }
    if (at < this.written) this.dirty.add(at);
    return 'replaced';
  }

  private indexAt(i: number, sorted = false): void {
    const row = this.rows[i];
    let versions = this.byRunVersion.get(row.run);
    if (!versions) this.byRunVersion.set(row.run, (versions = new Map<number | null, number[]>()));
    const list = versions.get(row.modelVersion);
    if (!list) versions.set(row.modelVersion, [i]);
    else if (!sorted || !list.length || list[list.length - 1] < i) list.push(i);
    else list.splice(lowerBound(list, i), 0, i);
  }

  countFor(run: string): number {
    let n = 0;
    for (const l of this.byRunVersion.get(run)?.values() ?? []) n += l.length;
    return n;
  }

  /** Model versions present for a run. */
  versions(run: string): number[] {
    return [...(this.byRunVersion.get(run)?.keys() ?? [])].filter((v): v is number => v !== null).sort((a, b) => a - b);
  }

  /** Rows of a run with one of these model versions, in arrival order. */
  select(run: string, versions: Iterable<number>): ExperienceViewRow[] {
    const m = this.byRunVersion.get(run);
    if (!m) return [];
    const idx: number[] = [];
    for (const v of versions) for (const i of m.get(v) ?? []) idx.push(i);
    idx.sort((a, b) => a - b);
    return idx.map((i) => this.rows[i]);
  }

  /** JSON lines of the rows not yet on disk, new or replaced (and marks them written). */
  takeUnpersisted(): string {
    // Rewards may be NaN / ±Inf: written as wire numbers ("NaN"), as the relay sends them.
    const out: string[] = [];
    const line = (r: ExperienceViewRow) => {
      const s: StoredRow = { ...r, reward: wireOrNull(r.reward) };
      if (r.advantage !== undefined) s.advantage = wireOrNull(r.advantage);
      if (r.metrics) s.metrics = mapValues(r.metrics, toWireNumber);
      out.push(JSON.stringify(s));
    };
    for (const i of [...this.dirty].sort((a, b) => a - b)) line(this.rows[i]);
    this.dirty.clear();
    for (let i = this.written; i < this.rows.length; i++) line(this.rows[i]);
    this.written = this.rows.length;
    this.persisted += out.length;
    return out.length ? out.join('\n') + '\n' : '';
  }

  /** Loads JSON lines written by takeUnpersisted (the first `count` lines; bad lines are skipped). */
  load(text: string, count: number): number {
    let n = 0;
    for (const line of text.split('\n')) {
      if (n >= count) break;
      if (!line.trim()) continue;
      n++;
      try {
        const r = JSON.parse(line) as StoredRow;
        if (typeof r.run !== 'string' || !Number.isSafeInteger(r.id)) continue;
        const row: ExperienceViewRow = { ...r, reward: numOrNull(r.reward), advantage: undefined, metrics: undefined };
        if (r.advantage !== undefined) row.advantage = numOrNull(r.advantage);
        else delete row.advantage;
        if (r.metrics) row.metrics = mapValues(r.metrics, fromWireNumber);
        else delete row.metrics;
        this.put(row);
      } catch {
        /* a torn last line: skipped */
      }
    }
    this.dirty.clear();
    this.written = this.rows.length;
    this.persisted = n;
    return n;
  }
}

function lowerBound(a: number[], v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
