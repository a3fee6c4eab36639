// Ray's timeline windows from both relays (`timeline` request; the Node relay's
// sources/ray-timeline.ts and timeline-scan.ts, the Python relay's timeline.py): on a real
// timeline.json Ray wrote here (test/fixtures/pipeline/ray-timeline.json: explorer, trainer,
// synchronizer and two runners, `ray.timeline(filename=…)`) in a job dir's monitor/, and on a
// damaged copy (a corrupt event, an event nested too deep, the file cut short), the Python relay
// on Python 3.8 and on the current python3 answers the same windows as the Node relay: lanes,
// names, events, the longest kept over the cap, the problems counted; none for another run.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { RelayClient } from '../../../../src/relay-protocol/client';
import { repoRoot } from '../../../harness/paths';
import { until } from '../../../harness/wait';
import { tmpDir } from '../helpers';
import { PYTHON_RUNTIMES, type RelayRuntime, relaySkipReason, startRelay } from './helpers';

const real = fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'pipeline', 'ray-timeline.json'), 'utf8');

function jobDir(text: string): string {
  const job = path.join(tmpDir('conf-timeline-'), 'run');
  fs.mkdirSync(path.join(job, 'monitor'), { recursive: true });
  fs.writeFileSync(path.join(job, 'monitor', 'timeline.json'), text);
  return job;
}

/** The real file with one event made corrupt, one nested 70 deep, and cut at 80 %. */
function damaged(): string {
  const at = real.indexOf('{"cat"', 3000);
  const deep = `{"ph":"X","ts":1,"dur":1,"args":${'['.repeat(69)}${']'.repeat(69)}}, `;
  const text = `${real.slice(0, at)}${deep}{"cat": ??? ${real.slice(at + 6)}`;
  return text.slice(0, Math.floor(text.length * 0.8));
}

type Window = { lanes: string[]; names: string[]; lane: number[]; start: number[]; dur: number[]; span: number; dropped: number; problems: unknown[] };

/** A relay of `runtime` on a job dir holding `text` as its timeline, and a client it has greeted. */
async function withClient<T>(runtime: RelayRuntime, text: string, use: (client: RelayClient) => Promise<T>): Promise<T> {
  const relay = await startRelay(['--job-dir', jobDir(text)], { runtime });
  const client = new RelayClient({ url: relay.url, experiences: false });
  let opened = false;
  client.on('hello', () => (opened = true));
  try {
    client.start();
    await until('hello', () => opened, 60_000);
    return await use(client);
  } finally {
    await client.close();
    await relay.stop();
  }
}

function windows(runtime: RelayRuntime, text: string): Promise<(Window | undefined)[]> {
  return withClient(runtime, text, async (client) => {
    const all = (await client.requestTimeline({ run: 'run', from: null, to: null, maxEvents: 100_000 })) as Window;
    return [
      all,
      (await client.requestTimeline({ run: 'run', from: all.span / 3, to: all.span / 2, maxEvents: 100_000 })) as Window,
      (await client.requestTimeline({ run: 'run', from: null, to: null, maxEvents: 25 })) as Window,
      (await client.requestTimeline({ run: 'other', from: null, to: null, maxEvents: 10 })) as Window | undefined,
    ];
  });
}

let node: Promise<[(Window | undefined)[], (Window | undefined)[]]> | undefined;
const reference = () => (node ??= Promise.all([windows('node', real), windows('node', damaged())]));

test(
  'the Node relay: per-actor lanes of the real timeline, windows, the longest over the cap, the damage counted',
  { skip: relaySkipReason('node'), timeout: 120_000 },
  async () => {
    const [[all, part, capped, other], [hurt]] = await reference();
    const events = (JSON.parse(real) as { ph: string }[]).filter((e) => e.ph === 'X').length;
    assert.equal(all?.lane.length, events);
    assert.deepEqual(all?.problems, []);
    assert.ok(all?.lanes.some((l) => l.startsWith('explorer (Explorer)')));
    assert.ok(part && part.lane.length > 0 && part.lane.length < events);
    assert.equal(capped?.lane.length, 25);
    assert.equal(capped?.dropped, events - 25);
    assert.equal(other, undefined);
    assert.ok(hurt && hurt.lane.length > 0 && hurt.lane.length < events);
    assert.deepEqual(hurt.problems, [
      { kind: 'corrupt', count: 2 },
      { kind: 'truncated', count: hurt.lane.length },
    ]);
  },
);

for (const runtime of PYTHON_RUNTIMES) {
  test(`the Python relay answers the same windows [${runtime}]`, { skip: relaySkipReason(runtime) || relaySkipReason('node'), timeout: 180_000 }, async () => {
    const [ref, refHurt] = await reference();
    assert.deepEqual(await windows(runtime, real), ref);
    assert.deepEqual(await windows(runtime, damaged()), refHurt);
  });
}

test(
  'a timeline request the relay would refuse (no run) is refused by the client at once, not after its whole timeout',
  { skip: relaySkipReason('node'), timeout: 120_000 },
  () =>
    withClient('node', real, async (client) => {
      // A caller past the types (a script reading hello.runs[0] of a job with no run) sends no run.
      const asked = client.requestTimeline({ run: undefined as unknown as string, from: null, to: null, maxEvents: 10 }, 60_000);
      await assert.rejects(asked, /^Error: a request the relay would refuse: timeline: needs request, run, from, to/);
      // The connection stays usable.
      const w = (await client.requestTimeline({ run: 'run', from: null, to: null, maxEvents: 10 })) as Window;
      assert.equal(w.lane.length, 10);
    }),
);
