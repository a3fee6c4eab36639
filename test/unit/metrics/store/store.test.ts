// The store: full resolution, dedup, memory bound with spill to disk, persistence (reload
// loses nothing; cursors saved with the points they cover).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, test } from 'node:test';
import { MetricsStore, Point, seriesKey } from '../../../../src/metrics/store/store';

const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-store-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  while (dirs.length) fs.rmSync(dirs.pop()!, { recursive: true, force: true });
});

const pts = (from: number, to: number, f = (s: number) => Math.sin(s)): Point[] =>
  Array.from({ length: to - from }, (_, i) => ({ step: from + i, wallTime: 1.7e9 + from + i, value: f(from + i) }));

const values = (store: MetricsStore, key: string) => {
  const c = store.columns(key)!;
  return { step: [...c.step.subarray(0, c.length)], value: [...c.value.subarray(0, c.length)] };
};

test('keeps every point, sorted by step, and drops exact re-deliveries', () => {
  const s = new MetricsStore();
  const a = s.add('run', 'explorer', 'rollout/reward/mean', pts(0, 100));
  assert.deepEqual([a.appendedFrom, a.added, a.reordered], [0, 100, false]);
  // The same batch again (a reconnect without cursors): nothing new.
  const again = s.add('run', 'explorer', 'rollout/reward/mean', pts(50, 100));
  assert.equal(again.added, 0);
  // A late point in the middle: inserted in order, charts told to rebuild.
  const late = s.add('run', 'explorer', 'rollout/reward/mean', [{ step: 10.5, wallTime: 1.7e9 + 10.5, value: 9 }]);
  assert.equal(late.reordered, true);
  const v = values(s, seriesKey('run', 'explorer', 'rollout/reward/mean'));
  assert.equal(v.step.length, 101);
  assert.deepEqual(v.step.slice(9, 13), [9, 10, 10.5, 11]);
  // A resumed run re-logging step 99 later (new wall time) is a different point.
  s.add('run', 'explorer', 'rollout/reward/mean', [{ step: 99, wallTime: 1.8e9, value: 1 }]);
  assert.equal(s.get(seriesKey('run', 'explorer', 'rollout/reward/mean'))!.length, 102);
});

test('persists points, experiences and cursors; a reload resumes with nothing lost', () => {
  const dir = tmp();
  const s = new MetricsStore({ dir });
  s.add('job', 'trainer', 'actor/pg_loss', pts(0, 1000));
  s.add('job', 'explorer', 'rollout/accuracy/mean', pts(0, 10));
  s.addExperiences('e1', 'sql:buffer.db#exp', 'job', [
    { id: 1, table: 'exp', task_id: 't1', run_id: 0, model_version: 3, reward: 1, timestamp: null },
    { id: 2, table: 'exp', task_id: 't1', run_id: 1, model_version: 3, reward: 'NaN', timestamp: null },
  ]);
  s.setCursor('e1', { source: 'tfevents:trainer/events.out', offset: 4096, fid: '1:2' });
  s.flush();
  s.add('job', 'trainer', 'actor/pg_loss', pts(1000, 1500));
  s.flush();

  const r = new MetricsStore({ dir });
  assert.equal(r.list().length, 2);
  const key = seriesKey('job', 'trainer', 'actor/pg_loss');
  assert.deepEqual(values(r, key), values(s, key));
  assert.deepEqual(r.cursors('e1'), [{ source: 'tfevents:trainer/events.out', offset: 4096, fid: '1:2' }]);
  assert.equal(r.experiences.size, 2);
  assert.equal(r.experiences.select('job', [3]).length, 2);
  assert.ok(Number.isNaN(r.experiences.select('job', [3])[1].reward));
  assert.equal(r.runStart('job'), 1.7e9);
  // Appending after the reload continues the same file.
  r.add('job', 'trainer', 'actor/pg_loss', pts(1500, 1600));
  r.flush();
  assert.equal(new MetricsStore({ dir }).get(key)!.length, 1600);
});

test('a forgotten run (a restarted demo) is gone: its series, experiences and start, after a reload too', () => {
  const dir = tmp();
  const s = new MetricsStore({ dir });
  s.add('demo-a', 'explorer', 'rollout/accuracy/mean', pts(0, 600));
  s.add('demo-b', 'explorer', 'rollout/accuracy/mean', pts(0, 5));
  const row = (id: number) => ({ id, table: 'exp', task_id: 't1', run_id: 0, model_version: 1, reward: 1, timestamp: null });
  s.addExperiences('e1', 'sql:buffer.db#exp', 'demo-a', [row(1), row(2)]);
  s.addExperiences('e2', 'sql:buffer.db#exp', 'demo-b', [row(1)]);
  s.flush();
  s.forgetRun('demo-a');
  assert.deepEqual(s.runs(), ['demo-b']);
  assert.equal(s.experiences.countFor('demo-a'), 0);
  assert.equal(s.experiences.countFor('demo-b'), 1);
  assert.ok(Number.isNaN(s.runStart('demo-a')));
  s.addExperiences('e2', 'sql:buffer.db#exp', 'demo-b', [row(2)]);
  s.flush();
  const r = new MetricsStore({ dir });
  assert.deepEqual(r.runs(), ['demo-b']);
  assert.equal(r.experiences.countFor('demo-a'), 0);
  assert.equal(r.experiences.countFor('demo-b'), 2);
  assert.equal(fs.readdirSync(path.join(dir, 'series')).length, 1, 'the forgotten series file is deleted');
});

test('a torn write after the last flush is ignored (the manifest is the truth)', () => {
  const dir = tmp();
  const s = new MetricsStore({ dir });
  s.add('r', 'x', 't', pts(0, 10));
  s.flush();
  const file = fs.readdirSync(path.join(dir, 'series'))[0];
  fs.appendFileSync(path.join(dir, 'series', file), Buffer.alloc(30, 7)); // 1.25 garbage records
  const r = new MetricsStore({ dir });
  assert.equal(values(r, seriesKey('r', 'x', 't')).step.length, 10);
  r.add('r', 'x', 't', pts(10, 12));
  r.flush();
  assert.deepEqual(values(new MetricsStore({ dir }), seriesKey('r', 'x', 't')).step, [...Array(12).keys()]);
});

test('memory bound: cold series spill to disk and read back intact; appends while spilled are kept', () => {
  const dir = tmp();
  const limit = 1024 * 1024; // 1 MiB ≈ 43 k points
  const s = new MetricsStore({ dir, memoryLimitBytes: limit });
  const tags = Array.from({ length: 8 }, (_, i) => `perf/t${i}`);
  for (const t of tags)
    s.add(
      'run',
      'trainer',
      t,
      pts(0, 20_000, (x) => x * 0.5),
    );
  assert.ok(s.spills > 0, 'nothing spilled');
  assert.ok(s.memoryBytes <= limit, `${s.memoryBytes} resident > ${limit}`);
  const spilled = s.list().filter((x) => !x.resident);
  assert.ok(spilled.length >= 4, `${spilled.length} spilled`);
  // Appending to a spilled series does not read it back.
  const loads = s.loads;
  const cold = spilled[0];
  s.add(
    'run',
    'trainer',
    cold.tag,
    pts(20_000, 20_100, (x) => x * 0.5),
  );
  assert.equal(s.loads, loads);
  assert.equal(cold.resident, false);
  // Reading it back gives every point in order.
  const v = values(s, cold.key);
  assert.equal(v.step.length, 20_100);
  assert.ok(v.step.every((x, i) => x === i));
  assert.ok(v.value.every((x, i) => x === i * 0.5));
  assert.ok(s.memoryBytes <= limit + 20_100 * 24 * 1.6, 'bound kept after a read-back');
  // Persisted too.
  s.flush();
  const r = new MetricsStore({ dir, memoryLimitBytes: limit });
  for (const t of tags) assert.equal(r.get(seriesKey('run', 'trainer', t))!.length, t === cold.tag ? 20_100 : 20_000);
});

test('clear() forgets everything, on disk too', () => {
  const dir = tmp();
  const s = new MetricsStore({ dir });
  s.add('r', 'x', 't', pts(0, 10));
  s.setCursor('e', { source: 'a', offset: 1 });
  s.flush();
  s.clear();
  s.flush();
  const r = new MetricsStore({ dir });
  assert.equal(r.list().length, 0);
  assert.deepEqual(r.cursors('e'), []);
});

test("takes a relay batch's columns as they are: views of one array, NaN/±Inf, out of order and repeats", () => {
  const s = new MetricsStore();
  // One Float64Array cut into per-tag views, as a decoded points frame is.
  const f = Float64Array.from([0, 1, 2, 10, 11, 12, 0.5, NaN, Infinity, /* next tag */ 5, 50, -Infinity]);
  const a = s.addColumns('run', 'trainer', 'a', { step: f.subarray(0, 3), wallTime: f.subarray(3, 6), value: f.subarray(6, 9) });
  const b = s.addColumns('run', 'trainer', 'b', { step: f.subarray(9, 10), wallTime: f.subarray(10, 11), value: f.subarray(11, 12) });
  assert.deepEqual([a.added, a.appendedFrom, b.added], [3, 0, 1]);
  const ca = s.columns(seriesKey('run', 'trainer', 'a'))!;
  assert.deepEqual([...ca.step.subarray(0, 3)], [0, 1, 2]);
  assert.deepEqual([...ca.wallTime.subarray(0, 3)], [10, 11, 12]);
  assert.deepEqual([...ca.value.subarray(0, 3)], [0.5, NaN, Infinity]);
  assert.equal(s.columns(seriesKey('run', 'trainer', 'b'))!.value[0], -Infinity);
  assert.equal(s.runStart('run'), 10);
  // The store copies: the batch's array may be reused or dropped.
  f.fill(7);
  assert.equal(ca.step[2], 2);
  // A late point and a repeat in one batch: inserted in order, the repeat dropped.
  const late = s.addColumns('run', 'trainer', 'a', { step: [1.5, 2], wallTime: [11.5, 12], value: [3, 0] });
  assert.deepEqual([late.added, late.reordered], [1, true]);
  assert.deepEqual(values(s, seriesKey('run', 'trainer', 'a')).step, [0, 1, 1.5, 2]);
});

test('cursorBook.move: a relay brought back at a new URL takes over the cursors of the one it replaces', () => {
  const store = new MetricsStore();
  store.setCursor('url:ws://127.0.0.1:1/', { source: 'a', fid: '1:2', offset: 10 });
  store.setCursor('url:ws://127.0.0.1:1/', { source: 'b', offset: 20 });
  store.cursorBook.move('url:ws://127.0.0.1:1/', 'url:ws://127.0.0.1:2/');
  assert.deepEqual(store.cursors('url:ws://127.0.0.1:1/'), []);
  assert.deepEqual(store.cursors('url:ws://127.0.0.1:2/'), [
    { source: 'a', fid: '1:2', offset: 10 },
    { source: 'b', offset: 20 },
  ]);
  store.cursorBook.move('url:ws://127.0.0.1:2/', 'url:ws://127.0.0.1:2/');
  store.cursorBook.move('url:none', 'url:ws://127.0.0.1:2/');
  assert.equal(store.cursors('url:ws://127.0.0.1:2/').length, 2, 'a move to itself or from nothing changes nothing');
});
