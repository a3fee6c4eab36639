// The bundled CLI (dist/agentrl.js) run as a child process the way a GPU node runs it: plain
// node, no node_modules on the path; and the bundle's shape (its shebang, its requires). main()
// called in process is in test/unit/cli.test.ts.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { cliBundle as bundle } from '../harness/relay';
import { repoRoot } from '../harness/paths';

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

test('package.json bin points at the bundle', () => {
  assert.equal(pkg.bin.agentrl, './dist/agentrl.js');
  assert.match(fs.readFileSync(bundle, 'utf8').slice(0, 40), /^#!\/usr\/bin\/env node/);
});

test('the bundle is self-contained (requires only node built-ins)', () => {
  const src = fs.readFileSync(bundle, 'utf8');
  // ajv keeps `require("ajv/dist/runtime/…")` inside string literals for its standalone
  // code generator; those are text, not calls, so a quote or backtick before `require` is skipped
  const required = [...src.matchAll(/(?<![`'])require\("([^"]+)"\)/g)].map((m) => m[1]);
  const builtins = new Set(builtinModules);
  const foreign = required.filter((r) => !builtins.has(r.replace(/^node:/, '')));
  assert.deepEqual(foreign, [], `non-builtin requires in dist/agentrl.js: ${foreign.join(', ')}`);
});

/** Runs the bundled CLI the way a GPU node would: plain node, no node_modules on the path. */
function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [bundle, ...args], { encoding: 'utf8', cwd: '/', env: { PATH: process.env.PATH } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('agentrl --version prints the package version', () => {
  const r = cli('--version');
  assert.equal(r.code, 0);
  assert.equal(r.stdout.trim(), pkg.version);
  assert.equal(cli('-v').stdout.trim(), pkg.version);
});

test('agentrl --help lists usage and exits 0', () => {
  const r = cli('--help');
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Usage: agentrl <command>/);
  assert.match(r.stdout, /--version/);
});

test('no arguments prints usage to stderr and exits 2', () => {
  const r = cli();
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Usage: agentrl/);
});

test('an unknown command or option is a clear usage error with exit 2', () => {
  const a = cli('frobnicate');
  assert.equal(a.code, 2);
  assert.match(a.stderr, /unknown command 'frobnicate'.*agentrl --help/);
  const b = cli('--frob');
  assert.equal(b.code, 2);
  assert.match(b.stderr, /unknown option '--frob'/);
});
