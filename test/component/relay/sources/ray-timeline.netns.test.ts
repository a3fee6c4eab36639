// Ray's timeline of a real Ray job: the actors a Trinity-RFT run has (explorer, trainer,
// synchronizer, two workflow runners; test/fixtures/pipeline/ray_timeline_job.py) on the test
// cluster (Ray 2.58, loopback-only netns), the file written by `ray.timeline(filename=…)` as
// Trinity's launcher writes it with monitor.enable_ray_timeline, put where Trinity puts it
// (<job dir>/monitor/timeline.json), and read through a relay process (`agentrl relay`) in windows.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { RelayClient } from '../../../../src/relay-protocol/client';
import { repoRoot } from '../../../harness/paths';
import { type RayCluster, killNetnsStrays, raySkipReason, rayVenv, startRayCluster } from '../../../harness/ray-cluster';
import { startRelay } from '../../../harness/relay';

const skip = raySkipReason();
const script = path.join(repoRoot, 'test', 'fixtures', 'pipeline', 'ray_timeline_job.py');

describe("Ray's timeline of a real Ray job, through the relay", { skip }, () => {
  let cluster: RayCluster;
  let job: string;

  before(async () => {
    cluster = await startRayCluster();
    job = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'arl-timeline-')), 'run');
    fs.mkdirSync(path.join(job, 'monitor'), { recursive: true });
    const r = spawnSync(path.join(rayVenv, 'bin', 'python'), [script, path.join(job, 'monitor', 'timeline.json'), '4', '127.0.0.1:6390'], {
      env: cluster.env,
      encoding: 'utf8',
      timeout: 180_000,
    });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  });

  after(async () => {
    await cluster?.stop();
    await killNetnsStrays(/./);
  });

  test('per-actor lanes named from their constructors, every complete event, windows cut by the relay', { timeout: 120_000 }, async () => {
    const file = path.join(job, 'monitor', 'timeline.json');
    const events = (JSON.parse(fs.readFileSync(file, 'utf8')) as { ph: string }[]).filter((e) => e.ph === 'X');
    assert.ok(events.length > 20, `${events.length} events`);
    const relay = await startRelay(['--job-dir', job]);
    const client = new RelayClient({ url: relay.url, experiences: false, backoff: { initialMs: 100, maxMs: 1000 } });
    try {
      const run = await new Promise<string>((resolve) => {
        client.on('hello', (h) => resolve(h.runs[0] ?? 'run'));
        client.start();
      });
      const w = (await client.requestTimeline({ run: 'run', from: null, to: null, maxEvents: 100_000 })) as {
        lanes: string[];
        names: string[];
        lane: number[];
        start: number[];
        dur: number[];
        span: number;
        problems: unknown[];
      };
      assert.equal(run, 'run');
      assert.equal(w.lane.length, events.length);
      assert.deepEqual(w.problems, []);
      const lanes = w.lanes.map((l) => l.split(' · ')[0]);
      for (const actor of ['explorer (Explorer)', 'trainer (Trainer)', 'synchronizer (Synchronizer)', 'runner_0 (WorkflowRunner)', 'runner_1 (WorkflowRunner)'])
        assert.ok(lanes.includes(actor), `${actor} in ${lanes.join(', ')}`);
      for (const name of ['Explorer.explore_step', 'Trainer.train_step', 'Synchronizer.set_model_state_dict', 'WorkflowRunner.run_task'])
        assert.ok(w.names.includes(name), `${name} in ${w.names.join(', ')}`);
      // a window: only what overlaps it
      const half = (await client.requestTimeline({ run: 'run', from: 0, to: w.span / 2, maxEvents: 100_000 })) as { start: number[]; lane: number[] };
      assert.ok(half.lane.length > 0 && half.lane.length < w.lane.length);
      assert.ok(half.start.every((s) => s <= w.span / 2));
      // another run of the relay has none
      assert.equal(await client.requestTimeline({ run: 'other', from: null, to: null, maxEvents: 10 }), undefined);
    } finally {
      await client.close();
      await relay.stop();
    }
  });
});
