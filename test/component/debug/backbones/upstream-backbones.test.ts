// `launcherArgs`: AgentJet / ASTuner launcher flags (ajet/launcher.py: --exp-dir, --with-ray-cluster,
// --autokill...) reach the upstream CLI after our own arguments. The CLI is a FAKE stand-in
// (AgentJet needs vLLM and a GPU) that records the arguments it was started with; a child process.
// Their validation is in test/unit/debug/runtime/plan.test.ts.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { UpstreamRun } from '../../../../src/debug/backbones/upstream-backbones';

test('launcherArgs are appended to `ajet --conf X --backbone debug`', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-launcher-'));
  try {
    const argsFile = path.join(dir, 'args.json');
    const cli = path.join(dir, 'ajet');
    fs.writeFileSync(cli, `#!/usr/bin/env python3\n# FAKE ajet CLI (test stand-in)\nimport json, sys\njson.dump(sys.argv[1:], open(${JSON.stringify(argsFile)}, "w"))\n`, { mode: 0o755 });
    const config = path.join(dir, 'ajet.yaml');
    fs.writeFileSync(config, 'ajet:\n  project_name: x\n');
    const run = new UpstreamRun({ backbone: 'ajet', cli, config, python: 'python3', runnerDir: '', cwd: dir, env: process.env,
      launcherArgs: ['--exp-dir', 'saved_experiments', '--autokill'], meta: {} });
    const ended = new Promise<void>((resolve) => run.once('ended', () => resolve()));
    await run.start();
    await ended;
    assert.deepEqual(JSON.parse(fs.readFileSync(argsFile, 'utf8')), ['--conf', config, '--backbone', 'debug', '--exp-dir', 'saved_experiments', '--autokill']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
