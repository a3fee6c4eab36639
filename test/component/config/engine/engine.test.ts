// Seeded fuzz of `agentrl check` as CI runs it (the bundled dist/agentrl.js, plain node): hostile
// mutations of the real configs (tabs, deep nesting, huge scalars, alias bombs, bad
// interpolations) named on the command line. Never a crash, a hang, an internal error or a
// file reported as "not a config" — each of those was a CI false pass or a broken build step.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { hasShared, repoRoot, sharedDir } from '../../../harness/paths';
import { hostileMutate, rng } from '../../../unit/config/fuzz';
import { tempDir, trinity } from '../../../unit/config/helpers';

const bundle = path.join(repoRoot, 'dist', 'agentrl.js');
const SEED = 2027;
const FILES = 120;

function seeds(): string[] {
  const out = [trinity(), fs.readFileSync(path.join(repoRoot, 'sample-workspace', 'gsm8k', 'gsm8k.yaml'), 'utf8')];
  if (hasShared) {
    const walk = (d: string): string[] =>
      fs
        .readdirSync(d, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : /\.ya?ml$/.test(e.name) ? [path.join(d, e.name)] : []));
    for (const f of walk(path.join(sharedDir, 'corpus')).sort()) {
      const text = fs.readFileSync(f, 'utf8');
      if (!/^#\s*agentrl:\s*none/m.test(text)) out.push(text);
    }
  }
  return out;
}

interface Result {
  file: string;
  kind: string | null;
  diagnostics: { code: string; severity: string; message: string; range: { start: { line: number }; end: { line: number } } }[];
}

test(`agentrl check on ${FILES} hostile mutations of the corpus (seed ${SEED}): exit 0/1, no crash, every named file checked`, { timeout: 60_000 }, () => {
  const dir = tempDir('agentrl-cli-fuzz-');
  const s = seeds();
  const r = rng(SEED);
  const names: string[] = [];
  for (let i = 0; i < FILES; i++) {
    let text = hostileMutate(s[Math.floor(r() * s.length)], r);
    if (r() < 0.3) text = hostileMutate(text, r);
    const name = `case-${String(i).padStart(3, '0')}.yaml`;
    fs.writeFileSync(path.join(dir, name), text);
    names.push(name);
  }
  const run = spawnSync(process.execPath, [bundle, 'check', '--format', 'json', '--no-paths', ...names], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
    timeout: 50_000,
    maxBuffer: 256 * 1024 * 1024,
  });
  assert.equal(run.error, undefined, `the CLI did not finish: ${run.error?.message}`);
  assert.equal(run.signal, null);
  assert.ok(run.status === 0 || run.status === 1, `exit ${run.status}\n${run.stderr.slice(0, 2000)}`);
  assert.equal(run.stderr, '', 'nothing on stderr (no stack trace)');
  const results = JSON.parse(run.stdout) as Result[];
  assert.deepEqual(
    results.map((x) => x.file),
    names,
  );
  const codes = new Set<string>();
  for (const x of results) {
    assert.notEqual(x.kind, null, `${x.file} reported as not a config`);
    // a megabyte value is not repeated in full in its finding
    for (const d of x.diagnostics) assert.ok(d.message.length < 4000, `${x.file}: a ${d.code} message of ${d.message.length} characters`);
    const lines = fs.readFileSync(path.join(dir, x.file), 'utf8').split('\n').length;
    for (const d of x.diagnostics) {
      codes.add(d.code);
      assert.ok(d.range.start.line >= 0 && d.range.end.line < lines, `${x.file}: ${d.code} at line ${d.range.start.line} of ${lines}`);
      assert.notEqual(d.code, 'internal.rule-failed', `${x.file}: a rule crashed`);
    }
  }
  for (const code of ['yaml.syntax', 'input.too-deep', 'input.kind-guessed']) assert.ok(codes.has(code), `no case reached ${code}`);
  // the text summary counts every named file as a config
  const text = spawnSync(process.execPath, [bundle, 'check', '--no-paths', ...names.slice(0, 20)], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
    timeout: 50_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const summary = text.stdout.trimEnd().split('\n').pop();
  assert.match(summary ?? '', /in 20 configs of 20 files$/);
});
