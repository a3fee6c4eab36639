// The relay job's entrypoint run by a real `sh -c` (as Ray's job supervisor runs it) in a
// package folder holding both relays: Node ≥ 18 on PATH runs the Node relay; a node without
// Node (a CUDA/Python image) runs the Python relay with the same flags; a node with neither says
// so in the job's log and exits 127.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CLI_IN_PACKAGE, PY_RELAY_IN_PACKAGE, relayJobRequest, relayUrlFromLog } from '../../../../src/ray/submit/relay-job';
import { cliBundle, pythonRelayBundle, relayInterpreter } from '../../../harness/relay';
import { tmpDir } from '../../../unit/relay/helpers';

const noBundles = !(fs.existsSync(cliBundle) && fs.existsSync(pythonRelayBundle)) && 'dist/ is not built (npm run build)';

/** A Ray working_dir as the extension packs it, and a bin dir with the named commands only. */
function packageDir(commands: Record<string, string>): { cwd: string; bin: string; job: string } {
  const root = tmpDir('relay-entry-');
  const cwd = path.join(root, 'pkg');
  fs.mkdirSync(path.join(cwd, '.agentrl'), { recursive: true });
  fs.copyFileSync(cliBundle, path.join(cwd, CLI_IN_PACKAGE));
  fs.copyFileSync(pythonRelayBundle, path.join(cwd, PY_RELAY_IN_PACKAGE));
  const bin = path.join(root, 'bin');
  fs.mkdirSync(bin);
  for (const [name, target] of Object.entries(commands)) fs.symlinkSync(target, path.join(bin, name));
  const job = path.join(root, 'job');
  fs.mkdirSync(job);
  return { cwd, bin, job };
}

/** Runs the entrypoint until the relay prints its URL (then stops it) or the shell exits. */
function runEntrypoint(entrypoint: string, cwd: string, bin: string): Promise<{ url?: string; log: string; code: number | null }> {
  return new Promise((resolve) => {
    const p = spawn('/bin/sh', ['-c', entrypoint], { cwd, env: { PATH: bin }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const timer = setTimeout(() => p.kill('SIGKILL'), 30_000);
    const onData = (b: Buffer) => {
      log += b.toString();
      if (relayUrlFromLog(log) && /\[(info|warn)\]/.test(log)) p.kill('SIGTERM');
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ url: relayUrlFromLog(log), log, code });
    });
  });
}

const request = (job: string) => relayJobRequest({ packageUri: 'gcs://_ray_pkg_x.zip', jobDir: job, forRun: 'raysubmit_1', port: 0 }).entrypoint;

test('the relay job on a node with Node >= 18 runs the Node relay', { skip: noBundles, timeout: 60_000 }, async () => {
  const { cwd, bin, job } = packageDir({ node: process.execPath, python3: relayInterpreter('python3') ?? '/usr/bin/python3' });
  const r = await runEntrypoint(request(job), cwd, bin);
  assert.match(r.url ?? '', /^ws:\/\/127\.0\.0\.1:\d+\/$/, r.log);
  assert.doesNotMatch(r.log, /the Python relay/);
});

test(
  'the relay job on a node without Node runs the Python relay with the same flags',
  { skip: noBundles || (!relayInterpreter('python3') && 'no python3'), timeout: 60_000 },
  async () => {
    const { cwd, bin, job } = packageDir({ python3: relayInterpreter('python3')! });
    const r = await runEntrypoint(request(job), cwd, bin);
    assert.match(r.url ?? '', /^ws:\/\/127\.0\.0\.1:\d+\/$/, r.log);
    assert.match(r.log, /the Python relay on Python 3\./);
  },
);

test(
  'the relay job on a node with only an old node and python 3.8 picks the Python relay',
  { skip: noBundles || (!relayInterpreter('python3.8') && 'no Python 3.8 here'), timeout: 60_000 },
  async () => {
    const { cwd, bin, job } = packageDir({ python: relayInterpreter('python3.8')! });
    fs.writeFileSync(path.join(bin, 'node'), '#!/bin/sh\n# an old node: v16 answers no to >= 18\nexit 1\n', { mode: 0o755 });
    const r = await runEntrypoint(request(job), cwd, bin);
    assert.ok(r.url, r.log);
    assert.match(r.log, /the Python relay on Python 3\.8\./);
  },
);

test('the relay job on a node with neither says so and exits 127', { skip: noBundles, timeout: 60_000 }, async () => {
  const { cwd, bin, job } = packageDir({});
  const r = await runEntrypoint(request(job), cwd, bin);
  assert.equal(r.code, 127);
  assert.match(r.log, /neither node >= 18 nor python >= 3\.8/);
});
