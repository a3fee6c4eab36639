// Relay jobs end with their run, against a REAL Ray 2.58 head (loopback-only network namespace;
// only Ray's telemetry packages stood in, ../shared/fixtures/ray): a short run (the STAND-IN
// trainer, test/fixtures/ray/standin_trainer.py: no GPU / vLLM here) gets a relay job as
// watchMetrics starts it; the monitor's polls stop that relay once the run has SUCCEEDED and the
// (shortened) grace period is over, and at once a relay whose run does not exist.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'yaml';
import { isTerminal } from '../../../../src/ray/api/api-types';
import { RayClient } from '../../../../src/ray/api/client';
import { ClusterMonitor } from '../../../../src/ray/cluster/monitor';
import type { RelayStop } from '../../../../src/ray/cluster/relay-reaper';
import { runInfo } from '../../../../src/ray/submit/entrypoint';
import { startRelayJob, submitRun } from '../../../../src/ray/submit/submit';
import { repoRoot, venvPython } from '../../../harness/paths';
import { killNetnsStrays, netnsStrays, RAY_PROCESS, raySkipReason, startRayCluster, type RayCluster } from '../../../harness/ray-cluster';
import { until } from '../../../harness/wait';

const skip = raySkipReason();
const cli = path.join(repoRoot, 'dist', 'agentrl.js');
describe('relay jobs end with their run (real Ray 2.58 head, loopback-only netns)', { skip }, () => {
  let cluster: RayCluster | undefined;
  let client: RayClient;
  let tmp: string;

  before(async () => {
    assert.ok(fs.existsSync(cli), 'dist/agentrl.js is built');
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'arl-reaper-'));
    cluster = await startRayCluster({ worker: false });
    client = new RayClient({ url: cluster.url });
    await until(
      'the dashboard',
      () =>
        client.version().then(
          (v) => v,
          () => undefined,
        ),
      30_000,
      300,
    );
  });

  after(async () => {
    await cluster?.stop();
    assert.deepEqual(netnsStrays(RAY_PROCESS), [], 'no Ray process left in the namespace');
    await killNetnsStrays(/./); // this namespace holds only this test: anything else left is ours too
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('the monitor stops a relay job once its run has ended (after the grace period) and one whose run is gone', { timeout: 240_000 }, async () => {
    const folder = path.join(tmp, 'ws');
    fs.mkdirSync(folder, { recursive: true });
    fs.copyFileSync(path.join(repoRoot, 'test', 'fixtures', 'ray', 'standin_trainer.py'), path.join(folder, 'standin_trainer.py'));
    fs.copyFileSync(path.join(repoRoot, 'test', 'fixtures', 'metrics', 'trinity_job.py'), path.join(folder, 'trinity_job.py'));
    const config = path.join(folder, 'gsm8k.yaml');
    fs.writeFileSync(config, `project: reaper\nname: run1\ncheckpoint_root_dir: ${path.join(tmp, 'ckpt')}\nmode: both\n`);
    const info = runInfo('trinity', parse(fs.readFileSync(config, 'utf8')));
    const sub = await submitRun(client, {
      folder,
      config,
      info,
      entrypoint: `${venvPython} standin_trainer.py --config gsm8k.yaml --steps 8 --interval 0.5`,
      limitBytes: 50 * 2 ** 20,
      cliBundle: cli,
      resources: { head_node: 0.5 },
    });
    const relay = await startRelayJob(
      client,
      { packageUri: sub.pkg.uri, jobDir: info.jobDir!, forRun: sub.submissionId, runName: 'run1', resource: 'head_node' },
      60_000,
    );
    const orphan = await startRelayJob(
      client,
      { packageUri: sub.pkg.uri, jobDir: info.jobDir!, forRun: 'raysubmit_deleted_long_ago', resource: 'head_node' },
      60_000,
    );

    const graceMs = 3000;
    // The monitor's clock: the run's start by Ray's clock, then 500 ms a poll (the polls' own
    // pace), so the grace period is counted in polls whatever the machine's load.
    let clock = (await client.job(sub.submissionId)).start_time ?? 0;
    const reported: Array<RelayStop & { at: number }> = [];
    const monitor = new ClusterMonitor({
      url: cluster!.url,
      relayGraceMs: graceMs,
      actors: false,
      now: () => clock,
      onRelayStopped: (s, e) => {
        assert.equal(e, undefined, `stopping ${s.relay}`);
        reported.push({ ...s, at: clock });
      },
    });
    let runEndedSeenAt: number | undefined;
    const statusOf = (id: string) => monitor.snapshot.jobs.find((j) => j.submission_id === id)?.status;
    await until(
      'both relays STOPPED',
      async () => {
        const polledAt = (clock += 500); // the reaper's first-seen-terminal time is at least this
        await monitor.refresh();
        const run = statusOf(sub.submissionId);
        if (run && isTerminal(run)) runEndedSeenAt ??= polledAt;
        else assert.ok(!reported.some((r) => r.relay === relay.submissionId), 'the relay of a running run is left alone');
        return (statusOf(relay.submissionId) === 'STOPPED' && statusOf(orphan.submissionId) === 'STOPPED') || undefined;
      },
      90_000,
      500,
    );

    assert.equal(statusOf(sub.submissionId), 'SUCCEEDED');
    assert.deepEqual(
      reported.map((r) => `${r.relay}:${r.reason}`).sort(),
      [`${orphan.submissionId}:run-gone`, `${relay.submissionId}:run-ended`].sort(),
      'each stopped once',
    );
    const stoppedAt = reported.find((r) => r.relay === relay.submissionId)!.at;
    assert.ok(stoppedAt - runEndedSeenAt! >= graceMs, `the relay outlived its run by the grace period (${stoppedAt - runEndedSeenAt!} ms)`);
  });
});
