// The Python relay's own unit tests (test_*.py beside this file: plain unittest, pytest runs them
// too) on each Python the relay supports — 3.8, its oldest, and the machine's current python3 —
// against the package in src/relay/python.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../harness/paths';
import { relayInterpreter, type RelayRuntime } from '../../harness/relay';

for (const runtime of ['python3.8', 'python3'] as RelayRuntime[]) {
  const exe = relayInterpreter(runtime);
  test(`the Python relay's unit tests pass [${runtime}]`, { skip: !exe && `no ${runtime} here`, timeout: 180_000 }, () => {
    const r = spawnSync(exe!, ['-m', 'unittest', 'discover', '-s', path.join(repoRoot, 'test', 'component', 'relay', 'python'), '-p', 'test_*.py'], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', PYTHONPATH: path.join(repoRoot, 'src', 'relay', 'python') },
      timeout: 170_000,
    });
    const summary = /Ran (\d+) tests?/.exec(r.stderr);
    assert.equal(r.status, 0, r.stderr.slice(-4000));
    assert.ok(summary && Number(summary[1]) >= 15, `ran ${summary?.[1]} tests`);
  });
}
