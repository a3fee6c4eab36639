// Drill-down: from a clicked bucket of a chart to the experiences behind it. The bucket's
// points give the steps; a step maps to the model version its rollouts were generated with
// through the run's own `rollout/model_version` metric (Trinity-RFT logs it every explorer
// step), else the step itself; then the SQL buffer rows of those versions, all of them, as
// columns (the webview lists only the visible ones). Pure.
import type { ExperienceViewRow } from '../protocol/experience-rows';
import type { XAxisMode } from '../protocol/view-options';
import type { DrillExperiencesMessage } from '../protocol/view-protocol';
import { toColumns } from '../experiences/columns';
import { xOf } from './chart-frames';
import { MetricsStore, seriesKey } from '../store/store';

const MODEL_VERSION_TAG = 'rollout/model_version';

export function drillDown(
  store: MetricsStore,
  run: string,
  role: string,
  tag: string,
  x: [number, number],
  mode: XAxisMode,
): Omit<DrillExperiencesMessage, 'type' | 'request' | 'health'> & { rowList: ExperienceViewRow[] } {
  const steps = stepsIn(store, seriesKey(run, role, tag), x, mode);
  // No point of that series in the bucket (a gap): take the x range as steps.
  if (!steps.size && mode === 'step') for (let s = Math.ceil(x[0]); s < x[1]; s++) steps.add(s);
  const wanted = new Set<number>();
  const mv = store.list().find((s) => s.run === run && s.tag === MODEL_VERSION_TAG);
  const mvCols = mv && store.columns(mv.key);
  for (const step of steps) {
    let found = false;
    if (mvCols) {
      const i = mvCols.lowerBound(step, -Infinity);
      for (let j = i; j < mvCols.length && mvCols.step[j] === step; j++) {
        if (Number.isFinite(mvCols.value[j])) wanted.add(Math.round(mvCols.value[j]));
        found = true;
      }
    }
    if (!found) wanted.add(step);
  }
  let versions = [...wanted].sort((a, b) => a - b);
  let rows = store.experiences.select(run, versions);
  if (!rows.length && versions.length) {
    // Off-by-one conventions differ between recipes: fall back to the nearest version held.
    const held = store.experiences.versions(run);
    if (held.length) {
      const target = versions[0];
      const nearest = held.reduce((a, b) => (Math.abs(b - target) < Math.abs(a - target) ? b : a));
      versions = [nearest];
      rows = store.experiences.select(run, versions);
    }
  }
  const ordered = byTaskThenRun(rows);
  return { run, x, xAxis: mode, modelVersions: versions, rows: toColumns(ordered), rowList: ordered };
}

function stepsIn(store: MetricsStore, key: string, [x0, x1]: [number, number], mode: XAxisMode): Set<number> {
  const out = new Set<number>();
  const s = store.get(key);
  const cols = s && store.columns(key);
  if (!s || !cols) return out;
  if (mode === 'step') {
    for (let i = cols.lowerBound(x0, -Infinity); i < cols.length && cols.step[i] < x1; i++) out.add(cols.step[i]);
    return out;
  }
  const xs = xOf(cols, mode, store.runStart(s.run));
  for (let i = 0; i < cols.length; i++) {
    const v = xs(i);
    if (v >= x0 && v < x1) out.add(cols.step[i]);
  }
  return out;
}

const collator = new Intl.Collator('en', { numeric: true });
/** Rows by task (natural order: task 2 before task 10), then run, then id. */
export function byTaskThenRun(rows: readonly ExperienceViewRow[]): ExperienceViewRow[] {
  // The collator ranks the distinct tasks once; the rows then sort on typed numeric keys.
  const tasks = [...new Set(rows.map((r) => r.taskId ?? ''))].sort(collator.compare);
  const rank = new Map(tasks.map((t, i) => [t, i]));
  const n = rows.length;
  const task = new Float64Array(n);
  const run = new Float64Array(n);
  const id = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    task[i] = rank.get(rows[i].taskId ?? '')!;
    run[i] = rows[i].runId ?? 0;
    id[i] = rows[i].id;
  }
  const order = new Uint32Array(n).map((_, i) => i);
  order.sort((a, b) => task[a] - task[b] || run[a] - run[b] || id[a] - id[b]);
  return Array.from(order, (i) => rows[i]);
}
