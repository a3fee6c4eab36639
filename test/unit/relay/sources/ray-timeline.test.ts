// Ray's timeline read in chunks into columns: test/fixtures/pipeline/ray-timeline.json is a real
// file written by Ray 2.58.0 here (`ray.timeline(filename=…)` after
// test/fixtures/pipeline/ray_timeline_job.py: explorer, trainer, synchronizer and two runners);
// broken copies of it stand for a corrupt or truncated file.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { TimelineCache, TimelineIndex, timelineFile, timelineReply } from '../../../../src/relay/sources/ray-timeline';
import { repoRoot } from '../../../harness/paths';

const real = path.join(repoRoot, 'test', 'fixtures', 'pipeline', 'ray-timeline.json');
const events = (JSON.parse(fs.readFileSync(real, 'utf8')) as { ph: string; dur: number }[]).filter((e) => e.ph === 'X');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ray-timeline-'));

function copy(text: string): string {
  const f = path.join(tmp(), 'timeline.json');
  fs.writeFileSync(f, text);
  return f;
}

test('a real Ray timeline: one lane per actor, named from its constructor, every complete event kept', async () => {
  const t = await TimelineIndex.read(real);
  assert.equal(t.events, events.length);
  const w = t.window(null, null, 100_000);
  assert.equal(w.lane.length, events.length);
  assert.deepEqual(w.problems, []);
  const lanes = w.lanes.map((l) => l.split(' · ')[0]).sort();
  for (const actor of [
    'explorer (Explorer)',
    'trainer (Trainer)',
    'synchronizer (Synchronizer)',
    'runner_0 (WorkflowRunner)',
    'runner_1 (WorkflowRunner)',
    'driver',
  ])
    assert.ok(lanes.includes(actor), `${actor} in ${lanes.join(', ')}`);
  assert.ok(w.names.includes('Explorer.explore_step') && w.names.includes('Trainer.train_step'), w.names.join(', '));
  // every event lies in the span, starts from the first one
  assert.equal(Math.min(...w.start), 0);
  assert.ok(w.start.every((s, i) => s + w.dur[i] <= w.span + 0.1));
});

test('chunks smaller than an event give the same columns (objects spanning chunks)', async () => {
  const whole = (await TimelineIndex.read(real)).window(null, null, 100_000);
  const tiny = (await TimelineIndex.read(real, { chunkBytes: 97 })).window(null, null, 100_000);
  assert.deepEqual(tiny, whole);
});

test('a window keeps the events overlapping it; over the cap the longest stay and the rest are counted', async () => {
  const t = await TimelineIndex.read(real);
  const all = t.window(null, null, 100_000);
  const mid = all.span / 2;
  const w = t.window(mid, mid + 50_000, 100_000);
  assert.ok(w.lane.length > 0 && w.lane.length < all.lane.length);
  assert.ok(w.start.every((s, i) => s <= mid + 50_000 && s + w.dur[i] >= mid));
  const capped = t.window(null, null, 10);
  assert.equal(capped.lane.length, 10);
  assert.equal(capped.dropped, events.length - 10);
  const longest = [...events.map((e) => e.dur)].sort((a, b) => b - a)[9];
  assert.ok(capped.dur.every((d) => d >= Math.round(longest * 10) / 10 - 0.1));
});

test('a corrupt event is skipped and counted; the rest is read', async () => {
  const text = fs.readFileSync(real, 'utf8');
  const at = text.indexOf('{"cat"', 5000);
  const broken = `${text.slice(0, at + 1)}"cat": ??? ${text.slice(at + 7)}`;
  const t = await TimelineIndex.read(copy(broken));
  assert.equal(t.events, events.length - 1);
  assert.deepEqual(t.problems(), [{ kind: 'corrupt', count: 1 }]);
});

test('a truncated file keeps the events before the cut and says so', async () => {
  const text = fs.readFileSync(real, 'utf8');
  const t = await TimelineIndex.read(copy(text.slice(0, Math.floor(text.length * 0.6))));
  assert.ok(t.events > 0 && t.events < events.length);
  assert.deepEqual(t.problems(), [{ kind: 'truncated', count: t.events }]);
  const w = t.window(null, null, 1000);
  assert.equal(w.lane.length, t.events);
});

test('not a JSON array, NaN and negative durations: said, nothing invented', async () => {
  const t = await TimelineIndex.read(copy('{"traceEvents": []}'));
  assert.deepEqual(t.problems(), [{ kind: 'not-array', count: 0 }]);
  const bad = await TimelineIndex.read(
    copy(
      '[{"ph":"X","ts":1,"dur":-5,"pid":1,"tid":1,"name":"a"},{"ph":"X","ts":"x","dur":1,"pid":1,"tid":1,"name":"b"},{"ph":"X","ts":2,"dur":3,"pid":1,"tid":1,"name":"c"}]',
    ),
  );
  assert.equal(bad.events, 1);
  assert.deepEqual(bad.problems(), [{ kind: 'corrupt', count: 2 }]);
});

test("the job dir's monitor/timeline.json answers the root run; none for another run or a missing file", async () => {
  const dir = tmp();
  const root = { mode: 'job' as const, dir };
  assert.equal(timelineFile(root, path.basename(dir)), path.join(dir, 'monitor', 'timeline.json'));
  assert.equal(timelineFile(root, 'other'), undefined);
  assert.equal(timelineFile({ mode: 'logdir', dir }, '../x'), undefined);
  const cache = new TimelineCache();
  const ask = { type: 'timeline' as const, request: 1, run: path.basename(dir), from: null, to: null, maxEvents: 5 };
  assert.deepEqual(await timelineReply(cache, root, ask), { type: 'timeline', request: 1, none: true });
  fs.mkdirSync(path.join(dir, 'monitor'));
  fs.copyFileSync(real, path.join(dir, 'monitor', 'timeline.json'));
  const r = await timelineReply(cache, root, ask);
  assert.equal((r.window as { lane: number[] }).lane.length, 5);
  assert.equal((r.window as { bytes: number }).bytes, fs.statSync(real).size);
});
