// The CLI bundle checked in process (its shape, its requires) and main() called directly; running
// the bundle as a child process is in test/component/cli.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli';
import { repoRoot } from '../harness/paths';

const bundle = path.join(repoRoot, 'dist', 'agentrl.js');
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

test('main() never treats Object.prototype names as commands', async () => {
  let err = '';
  const code = await main(['constructor'], { stdout: () => undefined, stderr: (s) => (err += s) });
  assert.equal(code, 2);
  assert.match(err, /unknown command 'constructor'/);
});
