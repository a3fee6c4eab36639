// The Trinity version probe against a REAL Ray 2.58 head (loopback-only network namespace; only
// Ray's telemetry packages are stood in for, ../shared/fixtures/ray): a probe that finishes is
// read and its job record deleted; one that times out is stopped and, once Ray reports it ended,
// deleted too — no probe is left in the user's job list either way.
import * as assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { META, type RayJob } from '../../../../src/ray/api/api-types';
import { RayClient } from '../../../../src/ray/api/client';
import { probeTrinityVersion } from '../../../../src/ray/diagnostics/trinity-probe';
import { silentLogger } from '../../../../src/base/log';
import { killNetnsStrays, netnsStrays, RAY_PROCESS, raySkipReason, startRayCluster, type RayCluster } from '../../../harness/ray-cluster';
import { until } from '../../../harness/wait';

const skip = raySkipReason();
const run = { submission_id: 'raysubmit_probe_test', status: 'RUNNING', entrypoint: 'trinity run --config x.yaml' } as RayJob;

describe('the Trinity probe job on a real Ray cluster (loopback-only netns)', { skip, timeout: 240_000 }, () => {
  let cluster: RayCluster;
  let client: RayClient;
  const probes = async () => (await client.jobs()).filter((j) => j.metadata?.[META.role] === 'probe');

  before(async () => {
    cluster = await startRayCluster({ worker: false });
    client = new RayClient({ url: cluster.url });
    await until(
      'the dashboard',
      () =>
        client.version().then(
          (v) => v,
          () => undefined,
        ),
      60_000,
    );
  });

  after(async () => {
    await cluster?.stop();
    assert.deepEqual(netnsStrays(RAY_PROCESS), [], 'no Ray process left in the namespace');
    await killNetnsStrays(/./); // anything else in this test's namespace is ours too
  });

  test('a probe that finishes: its answer, and its job record deleted', async () => {
    const warnings: string[] = [];
    // python3 on the cluster's PATH is Ray's own venv, which has no trinity-rft.
    const r = await probeTrinityVersion(client, run, { pollMs: 300, log: { ...silentLogger, warn: (m: string) => warnings.push(m) } });
    assert.deepEqual(r, { installed: false });
    assert.deepEqual(await probes(), [], 'no probe job left in the job list');
    assert.deepEqual(warnings, []);
  });

  test('a probe that times out: stopped, then its job record deleted once Ray reports it ended', async () => {
    const warnings: string[] = [];
    // A timeout of 0: the first status read right after the submit (PENDING) is already too late.
    const r = await probeTrinityVersion(client, run, { timeoutMs: 0, pollMs: 300, log: { ...silentLogger, warn: (m: string) => warnings.push(m) } });
    assert.ok('error' in r && /^the probe job (\S+) did not finish in 0 s \((PENDING|RUNNING)\)$/.test(r.error), JSON.stringify(r));
    const id = /^the probe job (\S+)/.exec(r.error)![1];
    assert.deepEqual(warnings, []);
    const left = await probes();
    assert.deepEqual(
      left.map((j) => `${j.submission_id} ${j.status}`),
      [],
      'the stopped probe job is not left in the job list',
    );
    await assert.rejects(client.job(id), /404|not found|does not exist/i, 'its record is gone');
  });
});
