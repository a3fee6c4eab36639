// Experience rows of the SQL buffers streamed by the relays, indexed by run and model
// version for the drill-down (click a step → its rollouts). Rows are small (no messages:
// those are read on demand), deduplicated by (endpoint, source, id).
import type { ExperienceRow } from '../../shared/relay-protocol';
import { fromWireNumber, toWireNumber } from '../../shared/relay-protocol';
import type { WireNumber } from '../../shared/relay-protocol';
import type { RolloutRow } from '../../shared/metrics-protocol';

export class ExperienceIndex {
  private readonly rows: RolloutRow[] = [];
  private readonly seen = new Set<string>();
  private readonly byRunVersion = new Map<string, Map<number | null, number[]>>();
  /** Rows [0, persisted) are on disk. */
  persisted = 0;

  get size(): number {
    return this.rows.length;
  }

  /** Adds rows; returns how many were new. */
  add(endpoint: string, source: string, run: string, rows: ExperienceRow[]): number {
    let added = 0;
    for (const r of rows) {
      const row: RolloutRow = {
        run,
        endpoint,
        source,
        table: r.table,
        id: r.id,
        taskId: r.task_id,
        runId: r.run_id,
        modelVersion: r.model_version,
        reward: r.reward === null ? null : fromWireNumber(r.reward),
        timestamp: r.timestamp,
      };
      if (this.insert(row)) added++;
    }
    return added;
  }

  private insert(row: RolloutRow): boolean {
    const id = `${row.endpoint}\u0000${row.source}\u0000${row.id}`;
    if (this.seen.has(id)) return false;
    this.seen.add(id);
    const i = this.rows.push(row) - 1;
    let versions = this.byRunVersion.get(row.run);
    if (!versions) this.byRunVersion.set(row.run, (versions = new Map()));
    const list = versions.get(row.modelVersion);
    if (list) list.push(i);
    else versions.set(row.modelVersion, [i]);
    return true;
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
  select(run: string, versions: Iterable<number>): RolloutRow[] {
    const m = this.byRunVersion.get(run);
    if (!m) return [];
    const idx: number[] = [];
    for (const v of versions) idx.push(...(m.get(v) ?? []));
    idx.sort((a, b) => a - b);
    return idx.map((i) => this.rows[i]);
  }

  /** JSON lines of the rows not yet on disk (and marks them persisted). */
  takeUnpersisted(): string {
    // Rewards may be NaN / ±Inf: written as wire numbers ("NaN"), as the relay sends them.
    const lines = this.rows.slice(this.persisted).map((r) => JSON.stringify({ ...r, reward: r.reward === null ? null : toWireNumber(r.reward) }));
    this.persisted = this.rows.length;
    return lines.length ? lines.join('\n') + '\n' : '';
  }

  /** Loads JSON lines written by takeUnpersisted (at most `count` rows; bad lines are skipped). */
  load(text: string, count: number): number {
    let n = 0;
    for (const line of text.split('\n')) {
      if (n >= count) break;
      if (!line.trim()) continue;
      try {
        const r = JSON.parse(line) as Omit<RolloutRow, 'reward'> & { reward: WireNumber | null };
        if (typeof r.run === 'string' && Number.isSafeInteger(r.id)) this.insert({ ...r, reward: r.reward === null ? null : fromWireNumber(r.reward) });
        n++;
      } catch {
        /* a torn last line: skipped */
      }
    }
    this.persisted = this.rows.length;
    return n;
  }
}
