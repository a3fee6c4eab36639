// The Trinity version probe: its command run by a real python3 (with trinity-rft installed as pip
// records an install — a dist-info folder — and without), and its job's life against a stand-in
// of the dashboard's job API (submit, status, logs, stop, delete; the real API is exercised by the
// Ray netns tests), with a fake sleep.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import type { JobStatus, RayJob, SubmitJobRequest } from '../../../../src/ray/api/api-types';
import { META } from '../../../../src/ray/api/api-types';
import { silentLogger, type Logger } from '../../../../src/base/log';
import { renderDiagnostics } from '../../../../src/ray/diagnostics/report';
import {
  TRINITY_PROBE_ENTRYPOINT,
  parseTrinityProbe,
  probeTrinityVersion,
  trinityProbeRequest,
  type TrinityProbe,
} from '../../../../src/ray/diagnostics/trinity-probe';

const hasPython = spawnSync('python3', ['--version']).status === 0;

function runProbe(pythonPath?: string): string {
  const r = spawnSync('sh', ['-c', TRINITY_PROBE_ENTRYPOINT], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...(pythonPath ? { PYTHONPATH: pythonPath } : {}) },
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('the probe command, run by python3: the installed trinity-rft version, or that there is none', { skip: hasPython ? false : 'no python3' }, () => {
  const site = fs.mkdtempSync(path.join(os.tmpdir(), 'trinity-probe-'));
  try {
    // What `pip install trinity-rft==0.5.2` leaves for importlib.metadata (the name as pip normalises it).
    const info = path.join(site, 'trinity_rft-0.5.2.dist-info');
    fs.mkdirSync(info);
    fs.writeFileSync(path.join(info, 'METADATA'), 'Metadata-Version: 2.1\nName: trinity-rft\nVersion: 0.5.2\n');
    assert.equal(parseTrinityProbe(`some Ray banner\n${runProbe(site)}`), '0.5.2');
    assert.equal(parseTrinityProbe(runProbe()), null, 'this machine has no trinity-rft installed in python3');
  } finally {
    fs.rmSync(site, { recursive: true, force: true });
  }
  assert.equal(parseTrinityProbe('Traceback (most recent call last):\nModuleNotFoundError'), undefined, 'no answer is not "not installed"');
});

test("the probe job runs in the run's Python (pip, conda, uv, py_executable), reserves no CPU and carries none of the run's variables or files", () => {
  const run = {
    submission_id: 'raysubmit_1',
    status: 'RUNNING',
    entrypoint: 'trinity run',
    runtime_env: { pip: ['trinity-rft==0.5.2'], env_vars: { OPENAI_API_KEY: 'sk-secret' }, working_dir: 'gcs://x.zip' },
  } as unknown as RayJob;
  const r = trinityProbeRequest(run);
  assert.deepEqual(r.runtime_env, { pip: ['trinity-rft==0.5.2'] });
  assert.equal(r.entrypoint_num_cpus, 0);
  assert.equal(r.metadata?.[META.role], 'probe');
  assert.equal(r.metadata?.[META.forRun], 'raysubmit_1');
  assert.equal(trinityProbeRequest({ ...run, runtime_env: null }).runtime_env, undefined);
});

/**
 * A stand-in of the dashboard's job API: the job goes through `statuses`, then prints `log`; once
 * stopped it reports STOPPED (or, with `o.stopIgnored`, keeps its status); with `o.deleteFails`
 * the delete is refused as Ray refuses it.
 */
function fakeDashboard(statuses: JobStatus[], log: string, o: { stopIgnored?: boolean; deleteFails?: boolean } = {}) {
  const calls: string[] = [];
  let polls = 0;
  let stopped = false;
  return {
    calls,
    client: {
      submit: (req: SubmitJobRequest) => {
        calls.push(`submit ${req.entrypoint.slice(0, 10)}`);
        return Promise.resolve({ submission_id: 'probe_1' });
      },
      job: (id: string) => {
        const status = stopped && !o.stopIgnored ? 'STOPPED' : statuses[Math.min(polls++, statuses.length - 1)];
        return Promise.resolve({ submission_id: id, status, entrypoint: '', message: 'exited' } as RayJob);
      },
      logs: () => Promise.resolve(log),
      stop: (id: string) => {
        calls.push(`stop ${id}`);
        stopped = true;
        return Promise.resolve(true);
      },
      delete: (id: string) => {
        calls.push(`delete ${id}`);
        return o.deleteFails ? Promise.reject(new Error('Ray dashboard error: DELETE /api/jobs/probe_1 → HTTP 500')) : Promise.resolve(true);
      },
    },
  };
}
const run = { submission_id: 'raysubmit_1', status: 'RUNNING', entrypoint: 'trinity run' } as RayJob;
const noWait = () => Promise.resolve();

/** A logger that keeps its warnings. */
function memoryLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warnings, warn: (m: string) => warnings.push(m) };
}

test('the probe job: its answer read once it ended, then the job deleted', async () => {
  const d = fakeDashboard(['PENDING', 'RUNNING', 'SUCCEEDED'], 'AGENTRL_TRINITY_VERSION=0.6.0\n');
  assert.deepEqual(await probeTrinityVersion(d.client, run, { sleep: noWait }), { installed: true, version: '0.6.0' });
  assert.deepEqual(d.calls, ['submit python3 -c', 'delete probe_1']);
  const none = fakeDashboard(['SUCCEEDED'], 'AGENTRL_TRINITY_VERSION=\n');
  assert.deepEqual(await probeTrinityVersion(none.client, run, { sleep: noWait }), { installed: false });
});

test('a probe job that never starts is stopped after its timeout, then deleted once it ended; one that fails without an answer says so', async () => {
  const stuck = fakeDashboard(['PENDING'], '');
  const r = await probeTrinityVersion(stuck.client, run, { sleep: noWait, timeoutMs: 5000, pollMs: 1000 });
  assert.ok('error' in r && /did not finish in 5 s \(PENDING\)/.test(r.error), JSON.stringify(r));
  assert.deepEqual(stuck.calls, ['submit python3 -c', 'stop probe_1', 'delete probe_1']);
  const broken = fakeDashboard(['FAILED'], 'sh: 1: python3: not found\n');
  const b = await probeTrinityVersion(broken.client, run, { sleep: noWait });
  assert.ok('error' in b && /ended FAILED without an answer: exited/.test(b.error), JSON.stringify(b));
});

test('a probe job whose record cannot be deleted: the answer all the same, the failure logged', async () => {
  const refused = fakeDashboard(['SUCCEEDED'], 'AGENTRL_TRINITY_VERSION=0.6.0\n', { deleteFails: true });
  const log = memoryLog();
  assert.deepEqual(await probeTrinityVersion(refused.client, run, { sleep: noWait, log }), { installed: true, version: '0.6.0' });
  assert.deepEqual(log.warnings, ['ray: could not delete the probe job probe_1: Ray dashboard error: DELETE /api/jobs/probe_1 → HTTP 500']);
  // Stopped but still running after the grace: Ray would refuse the delete, so none is sent.
  const lingering = fakeDashboard(['RUNNING'], '', { stopIgnored: true });
  const log2 = memoryLog();
  const r = await probeTrinityVersion(lingering.client, run, { sleep: noWait, timeoutMs: 2000, pollMs: 1000, stopGraceMs: 3000, log: log2 });
  assert.ok('error' in r && /did not finish in 2 s \(RUNNING\)/.test(r.error), JSON.stringify(r));
  assert.deepEqual(lingering.calls, ['submit python3 -c', 'stop probe_1']);
  assert.deepEqual(log2.warnings, ['ray: the probe job probe_1 was stopped but is still RUNNING: its record is left in the job list']);
});

test('the report names the probed version, "not installed", or why it is unknown', () => {
  const line = (trinityProbe?: TrinityProbe, trinityVersion?: string) =>
    /- Trinity-RFT: (.*)/.exec(renderDiagnostics({ takenAt: 't', job: run, nodes: [], actors: [], logs: [], trinityVersion, trinityProbe }))?.[1];
  assert.equal(line(undefined, '0.5.2'), '0.5.2');
  assert.match(line({ installed: true, version: '0.6.0' }) ?? '', /^0\.6\.0 \(installed in the job's Python/);
  assert.match(line({ installed: false }) ?? '', /^not installed/);
  assert.match(line({ error: 'the probe job p did not finish in 60 s (PENDING)' }) ?? '', /^unknown .*did not finish in 60 s/);
});
