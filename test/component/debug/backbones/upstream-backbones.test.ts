// `launcherArgs`: AgentJet / ASTuner launcher flags (ajet/launcher.py: --exp-dir, --with-ray-cluster,
// --autokill...) reach the upstream CLI after our own arguments. The CLI is a FAKE stand-in
// (AgentJet needs vLLM and a GPU) that records the arguments it was started with; a child process.
// `debugTags` become `--debug=TAG1|TAG2` (AgentJet's `bp(TAG)` splits DEBUG_TAGS on `|`).
// Their validation is in test/unit/debug/runtime/plan.test.ts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UpstreamRun } from '../../../../src/debug/backbones/upstream-backbones';
import type { RolloutSummary } from '../../../../src/debug/trajectory/trajectory';

/** Runs the upstream backbone with a FAKE `ajet` that records its argv; returns that argv. */
async function argvOfAjet(opts: { launcherArgs?: string[]; debugTags?: string[] }): Promise<{ argv: string[]; config: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-launcher-'));
  try {
    const argsFile = path.join(dir, 'args.json');
    const cli = path.join(dir, 'ajet');
    fs.writeFileSync(
      cli,
      `#!/usr/bin/env python3\n# FAKE ajet CLI (test stand-in)\nimport json, sys\njson.dump(sys.argv[1:], open(${JSON.stringify(argsFile)}, "w"))\n`,
      { mode: 0o755 },
    );
    const config = path.join(dir, 'ajet.yaml');
    fs.writeFileSync(config, 'ajet:\n  project_name: x\n');
    const run = new UpstreamRun({ backbone: 'ajet', cli, config, python: 'python3', runnerDir: '', cwd: dir, env: process.env, ...opts, meta: {} });
    const ended = new Promise<void>((resolve) => run.once('ended', () => resolve()));
    await run.start();
    await ended;
    return { argv: JSON.parse(fs.readFileSync(argsFile, 'utf8')) as string[], config };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('launcherArgs are appended to `ajet --conf X --backbone debug`', async () => {
  const { argv, config } = await argvOfAjet({ launcherArgs: ['--exp-dir', 'saved_experiments', '--autokill'] });
  assert.deepEqual(argv, ['--conf', config, '--backbone', 'debug', '--exp-dir', 'saved_experiments', '--autokill']);
});

test('debugTags become AgentJet\'s `--debug=TAG1|TAG2`, so `bp("TAG1")` stops there', async () => {
  const { argv, config } = await argvOfAjet({ debugTags: ['TAG_1', 'reward'], launcherArgs: ['--autokill'] });
  assert.deepEqual(argv, ['--conf', config, '--backbone', 'debug', '--debug=TAG_1|reward', '--autokill']);
  const none = await argvOfAjet({ debugTags: [] });
  assert.deepEqual(none.argv, ['--conf', none.config, '--backbone', 'debug']);
});

test('a run whose record cannot be saved (its run dir deleted meanwhile) still ends, and says so', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-lostrecord-'));
  try {
    const cli = path.join(dir, 'ajet');
    // FAKE ajet CLI (test stand-in): removes the run's record folder, as a user cleaning up might.
    fs.writeFileSync(cli, `#!/usr/bin/env python3\nimport shutil\nshutil.rmtree(${JSON.stringify(path.join(dir, '.agentrl'))})\n`, { mode: 0o755 });
    const config = path.join(dir, 'ajet.yaml');
    fs.writeFileSync(config, 'ajet:\n  project_name: x\n');
    const run = new UpstreamRun({ backbone: 'ajet', cli, config, python: 'python3', runnerDir: '', cwd: dir, env: process.env, runRoot: dir, meta: {} });
    const said: string[] = [];
    run.on('output', (o: { text: string }) => said.push(o.text));
    const ended = new Promise<RolloutSummary | undefined>((resolve) => run.once('ended', resolve));
    await run.start();
    const summary = await ended;
    assert.equal(summary?.status, 'completed');
    assert.ok(
      said.some((t) => /^Could not save the run's record in .*ENOENT/.test(t)),
      said.join(''),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
