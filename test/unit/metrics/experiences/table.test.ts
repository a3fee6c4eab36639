// The drill-down's row logic, as the webview runs it: a filter of 10⁶ rollouts is one pass over
// the rows (its reads of the row columns are counted: the work, whatever the machine's load) and
// the list puts a bounded number of rows in the DOM wherever it is scrolled; the reward parts
// histogram stacks the parts; a rollout's GRPO group.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ExperienceColumns, ExperienceViewRow } from '../../../../src/metrics/protocol/experience-rows';
import { rowAt, toColumns } from '../../../../src/metrics/experiences/columns';
import { BINS, ExperienceTable, binOf } from '../../../../src/metrics/experiences/table';
import { planWindow } from '../../../../src/metrics/experiences/virtual-window';
import { byTaskThenRun } from '../../../../src/metrics/view/drill';

const N = 1_000_000;
const GROUP = 8;

/** `col` with its reads of rows (numeric indices) counted in `reads.n`. */
function counted<T extends object>(col: T, reads: { n: number }): T {
  return new Proxy(col, {
    get(target, key) {
      if (typeof key === 'string') {
        const c = key.charCodeAt(0);
        if (c >= 48 && c <= 57) reads.n++;
      }
      return Reflect.get(target, key) as unknown;
    },
  });
}

/** 10⁶ rows: 125,000 tasks × 8 runs, reward = accuracy + format_score as a math workflow's. */
function synthetic(): ExperienceColumns {
  const accuracy = new Array<number | null>(N);
  const format = new Array<number | null>(N);
  const c: ExperienceColumns = {
    origins: [{ endpoint: 'e', source: 'sql:buffer/experience_buffer.db', table: 'experience_buffer' }],
    origin: new Array<number>(N).fill(0),
    id: Array.from({ length: N }, (_, i) => i + 1),
    tasks: Array.from({ length: N / GROUP }, (_, t) => `task-${t}`),
    task: Array.from({ length: N }, (_, i) => Math.floor(i / GROUP)),
    runId: Array.from({ length: N }, (_, i) => i % GROUP),
    modelVersion: Array.from({ length: N }, (_, i) => Math.floor(i / 4096)),
    reward: new Array<number | null>(N),
    consumed: new Array<number | null>(N).fill(0),
    advantage: new Array<number | null>(N).fill(null),
    responseTokens: new Array<number | null>(N).fill(null),
    trainedTokens: new Array<number | null>(N).fill(null),
    truncated: new Array<number | null>(N).fill(null),
    parts: [
      { name: 'accuracy', values: accuracy },
      { name: 'format_score', values: format },
    ],
  };
  for (let i = 0; i < N; i++) {
    accuracy[i] = (i * 2654435761) % 7 < 3 ? 1 : 0;
    format[i] = i % 5 === 0 ? -0.1 : 0;
    c.reward[i] = i % 1000 === 999 ? null : accuracy[i]! + format[i]!;
  }
  return c;
}

test('10⁶ rollouts: every filter is one fast pass, and the list renders a bounded window anywhere', () => {
  const cols = synthetic();
  const reads = { n: 0 };
  const t = new ExperienceTable({
    ...cols,
    task: counted(cols.task, reads),
    reward: counted(cols.reward, reads),
    parts: cols.parts.map((p) => ({ ...p, values: counted(p.values, reads) })),
  });
  const h = t.rewardHistogram()!;
  assert.equal(
    h.counts.reduce((a, b) => a + b, 0),
    N - N / 1000,
    'rows without a reward are not binned',
  );
  assert.ok(t.partsHistogram(), 'the histograms are drawn before anyone filters by them');
  // Row columns a filter reads (a row's task index twice, its reward, a part's value): never
  // more than 3 per row, whatever the filter — one pass.
  const work: Record<string, number> = {};
  const time = <T>(name: string, f: () => T): T => {
    reads.n = 0;
    const r = f();
    work[name] = reads.n;
    return r;
  };
  const all = time('none', () => t.filter({}));
  assert.equal(all.length, N);
  const top = binOf(1, h.lo, h.hi);
  const right = time('reward bin', () => t.filter({ rewardBin: top }));
  let want = 0;
  for (let i = 0; i < N; i++) if (cols.reward[i] === 1) want++;
  assert.equal(right.length, want);
  const badFormat = time('part bin', () => t.filter({ part: { name: 'format_score', bin: 0 } }));
  assert.equal(badFormat.length, N / 5);
  const task = time('task text', () => t.filter({ text: 'TASK-12345' }));
  assert.equal(task.length, GROUP * 11, 'task-12345 and task-123450…123459');
  const both = time('text + bin', () => t.filter({ text: 'task-1', rewardBin: top }));
  assert.ok(both.every((i) => cols.reward[i] === 1 && cols.tasks[cols.task[i]]!.startsWith('task-1')));
  for (const [name, n] of Object.entries(work)) assert.ok(n <= 3 * N, `filter ${name}: ${n} row reads for ${N} rows`);
  assert.ok(work['reward bin'] >= N, 'the reads are counted');

  const rowH = 22;
  const viewport = 600;
  for (const scrollTop of [0, 1234, (all.length * rowH) / 2, all.length * rowH - viewport, all.length * rowH * 2]) {
    const p = planWindow(all.length, scrollTop, viewport, rowH, 40);
    assert.ok(p.end - p.start <= Math.ceil(viewport / rowH) + 80 + 1, `${p.end - p.start} rows in the DOM at ${scrollTop}`);
    assert.equal(p.before + (p.end - p.start) * rowH + p.after, all.length * rowH, 'the spacers keep the full scroll height');
    if (scrollTop <= all.length * rowH - viewport) assert.ok(p.start * rowH <= scrollTop && p.end * rowH >= scrollTop + viewport, 'the viewport is covered');
  }
  assert.deepEqual(planWindow(0, 500, 600, rowH), { start: 0, end: 0, before: 0, after: 0 });
});

test('the reward parts histogram stacks each part over one shared x range', () => {
  const rows = [1, 0, 1, 0.5].map((acc, i): ExperienceViewRow => ({
    run: 'r',
    endpoint: 'e',
    source: 's',
    table: 't',
    id: i + 1,
    taskId: 'a',
    runId: i,
    modelVersion: 3,
    reward: acc - 0.1,
    timestamp: null,
    metrics: i === 3 ? { accuracy: acc } : { accuracy: acc, format_score: -0.1 },
  }));
  const t = new ExperienceTable(toColumns(rows));
  const ph = t.partsHistogram()!;
  assert.deepEqual([ph.lo, ph.hi], [-0.1, 1]);
  assert.deepEqual(
    ph.series.map((s) => s.name),
    ['accuracy', 'format_score'],
  );
  assert.deepEqual(
    ph.series.map((s) => s.counts.reduce((a, b) => a + b, 0)),
    [4, 3],
    'a row without a part adds nothing to it',
  );
  assert.equal(ph.series[0].counts[BINS - 1], 2);
  assert.equal(ph.series[1].counts[0], 3);
  assert.deepEqual([...t.filter({ part: { name: 'accuracy', bin: BINS - 1 } })], [0, 2]);
});

test("a rollout's GRPO group: its task at its model version, by run, with the group's mean and (sample) std", () => {
  const rows: ExperienceViewRow[] = [];
  let id = 1;
  for (const mv of [4, 5])
    for (const task of ['t2', 't10'])
      for (const run of [2, 0, 1, 3])
        rows.push({
          run: 'r',
          endpoint: 'e',
          source: 's',
          table: 't',
          id: id++,
          taskId: task,
          runId: run,
          modelVersion: mv,
          reward: run === 0 ? 1 : 0,
          timestamp: null,
          advantage: run === 0 ? 1.5 : -0.5,
        });
  const sorted = byTaskThenRun(rows);
  assert.deepEqual(
    sorted.slice(0, 3).map((r) => [r.taskId, r.runId]),
    [
      ['t2', 0],
      ['t2', 0],
      ['t2', 1],
    ],
    'task t2 before t10 (natural order), then run',
  );
  const c = toColumns(sorted);
  const t = new ExperienceTable(c);
  const i = sorted.findIndex((r) => r.taskId === 't10' && r.modelVersion === 5 && r.runId === 2);
  const g = t.group(i);
  assert.deepEqual([g.task, g.modelVersion], ['t10', 5]);
  assert.deepEqual(
    g.members.map((j) => c.runId[j]),
    [0, 1, 2, 3],
  );
  assert.ok(g.members.every((j) => c.modelVersion[j] === 5 && c.tasks[c.task[j]] === 't10'));
  assert.equal(g.mean, 0.25);
  assert.ok(Math.abs(g.std! - 0.5) < 1e-12, 'torch.std: n − 1 in the denominator');
  assert.deepEqual(
    g.members.map((j) => c.advantage[j]),
    [1.5, -0.5, -0.5, -0.5],
  );
  const back = rowAt(c, 'r', i);
  assert.deepEqual([back.id, back.taskId, back.runId, back.reward, back.endpoint, back.source, back.table], [sorted[i].id, 't10', 2, 0, 'e', 's', 't']);
  assert.equal(t.indexOf({ endpoint: 'e', source: 's' }, sorted[i].id), i);
});
