// Rollout rows ↔ the columnar form the drill-down sends (ExperienceColumns): the extension packs the
// matched rows once, the webview reads single rows back when it lists or opens them. Packing
// dictionary-codes the repeated strings (origins, task ids) so 10⁶ rows stay a few arrays.
// Pure: used by the extension's drill (src/metrics/view) and by the webview.
import type { ExperienceColumns, ExperienceViewRow } from '../protocol/experience-rows';

const finite = (v: number | null | undefined): number | null => (v === null || v === undefined || !Number.isFinite(v) ? null : v);

/** Packs rows (in their order) into columns. */
export function toColumns(rows: readonly ExperienceViewRow[]): ExperienceColumns {
  const n = rows.length;
  // Sized up front and filled by index: 10⁶ pushes of mixed numbers and nulls cost seconds.
  const col = <T>(fill: T): T[] => new Array<T>(n).fill(fill);
  const c: ExperienceColumns = {
    origins: [],
    origin: col(0),
    id: col(0),
    tasks: [],
    task: col(-1),
    runId: col<number | null>(null),
    modelVersion: col<number | null>(null),
    reward: col<number | null>(null),
    consumed: col<number | null>(null),
    advantage: col<number | null>(null),
    responseTokens: col<number | null>(null),
    trainedTokens: col<number | null>(null),
    truncated: col<number | null>(null),
    parts: [],
  };
  const origins = new Map<string, number>();
  const tasks = new Map<string, number>();
  const parts = new Map<string, (number | null)[]>();
  let prev: ExperienceViewRow | undefined;
  let o = -1;
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    // Consecutive rows mostly share their origin: look it up only when it changes.
    if (!prev || prev.endpoint !== r.endpoint || prev.source !== r.source || prev.table !== r.table) {
      const key = `${r.endpoint}\u0000${r.source}\u0000${r.table}`;
      const at = origins.get(key);
      if (at === undefined) {
        origins.set(key, (o = c.origins.length));
        c.origins.push({ endpoint: r.endpoint, source: r.source, table: r.table });
      } else o = at;
    }
    prev = r;
    c.origin[i] = o;
    c.id[i] = r.id;
    if (r.taskId !== null) {
      let t = tasks.get(r.taskId);
      if (t === undefined) {
        tasks.set(r.taskId, (t = c.tasks.length));
        c.tasks.push(r.taskId);
      }
      c.task[i] = t;
    }
    c.runId[i] = r.runId;
    c.modelVersion[i] = r.modelVersion;
    c.reward[i] = finite(r.reward);
    if (r.consumed !== undefined) c.consumed[i] = r.consumed;
    c.advantage[i] = finite(r.advantage);
    c.responseTokens[i] = finite(r.responseTokens);
    c.trainedTokens[i] = finite(r.trainedTokens);
    if (r.truncated !== undefined) c.truncated[i] = r.truncated ? 1 : 0;
    const m = r.metrics;
    if (m)
      for (const name in m) {
        let values = parts.get(name);
        if (!values) {
          parts.set(name, (values = col<number | null>(null)));
          c.parts.push({ name, values });
        }
        values[i] = finite(m[name]);
      }
  }
  return c;
}

/** Row i as a row object (what opening it needs). */
export function rowAt(c: ExperienceColumns, run: string, i: number): ExperienceViewRow {
  const o = c.origins[c.origin[i]];
  const metrics: Record<string, number> = {};
  for (const p of c.parts) if (p.values[i] !== null) metrics[p.name] = p.values[i]!;
  return {
    run,
    endpoint: o.endpoint,
    source: o.source,
    table: o.table,
    id: c.id[i],
    taskId: c.task[i] < 0 ? null : c.tasks[c.task[i]],
    runId: c.runId[i],
    modelVersion: c.modelVersion[i],
    reward: c.reward[i],
    timestamp: null,
    consumed: c.consumed[i],
    metrics,
    advantage: c.advantage[i],
    ...(c.responseTokens[i] !== null ? { responseTokens: c.responseTokens[i] } : {}),
    ...(c.trainedTokens[i] !== null ? { trainedTokens: c.trainedTokens[i] } : {}),
    ...(c.truncated[i] !== null ? { truncated: c.truncated[i] === 1 } : {}),
  };
}
