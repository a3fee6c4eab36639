// Fixed-seed fuzzing (mutated real configs) and hostile inputs, bounded in work and memory: the
// inputs too big, too deep or too aliased are refused before parsing (limits.ts), with one
// diagnostic each. Their time is measured in `npm run bench -- config-hostile` (against the
// YAML parser on the same text); the 10 000-case run lives in `npm run bench -- config`.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyze } from '../../../../src/config/engine/engine';
import { hasShared, repoRoot, sharedDir } from '../../../harness/paths';
import { fuzz, hostileInputs, hostileMutate, rng } from '../fuzz';
import { trinity } from '../helpers';

function seeds(): string[] {
  const out = [trinity(), fs.readFileSync(path.join(repoRoot, 'sample-workspace', 'gsm8k', 'gsm8k.yaml'), 'utf8')];
  if (hasShared) {
    const walk = (d: string): string[] =>
      fs
        .readdirSync(d, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : /\.ya?ml$/.test(e.name) ? [path.join(d, e.name)] : []));
    for (const f of walk(path.join(sharedDir, 'corpus')).sort()) out.push(fs.readFileSync(f, 'utf8'));
  }
  return out;
}

test('fuzz: 400 mutated configs never crash; findings stay inside the text; chunked = whole parse', () => {
  const s = seeds();
  // a large seed so the chunked parse is exercised too
  s.push(
    trinity({ buffer: { explorer_input: { eval_tasksets: Array.from({ length: 80 }, (_, i) => ({ name: `e${i}`, path: 'openai/gsm8k', split: 'test' })) } } }),
  );
  const stats = fuzz(s, 400, 7);
  assert.equal(stats.cases, 400);
  assert.ok(stats.chunkedCompared > 0, 'compared some chunked parses');
});

test('hostile inputs: a diagnostic (or nothing) within bounded time and memory', () => {
  for (const { name, text } of hostileInputs()) {
    const rss0 = process.memoryUsage().rss;
    const a = analyze(text, '/fuzz/hostile.yaml', {});
    const grew = (process.memoryUsage().rss - rss0) / 1024 / 1024;
    assert.ok(grew < 600, `${name}: RSS grew ${grew.toFixed(0)} MB`);
    // The work is bounded by the input: at most a finding per key written (and the few about
    // the whole file); refused inputs get one diagnostic and no analysis at all.
    const keys = text.split(':').length - 1;
    assert.ok(a.findings.length <= keys + 3, `${name}: ${a.findings.length} findings for ${keys} keys`);
    const refused = (code: string) =>
      assert.deepEqual(
        a.findings.map((f) => f.code),
        [code],
        name,
      );
    if (name === 'binary') refused('input.binary');
    if (name === '10 MB') refused('input.too-large');
    if (name.startsWith('deep')) refused('input.too-deep');
    if (name === 'alias bomb') refused('input.alias-expansion');
    if (name === 'empty') assert.deepEqual([a.kind, a.findings.length], [null, 0]);
    if (name === 'empty, forced trinity') assert.ok(a.findings.some((f) => f.code === 'trinity.buffer.no-taskset'));
  }
});

test(
  'hostile mutations of real configs (tabs, deep nesting, huge scalars, alias bombs, bad interpolations): no crash, a kind for every named file',
  { timeout: 60_000 },
  () => {
    const s = seeds();
    const r = rng(27);
    const codes = new Set<string>();
    for (let c = 0; c < 240; c++) {
      const seed = s[c % s.length];
      let text = hostileMutate(seed, r);
      if (r() < 0.3) text = hostileMutate(text, r);
      let a;
      try {
        a = analyze(text, '/fuzz/named.yaml', { checkPaths: false, guessKind: true });
      } catch (err) {
        throw new Error(`case ${c} (seed 27) threw ${(err as Error).stack}\n--- input ---\n${text.slice(0, 2000)}`, { cause: err });
      }
      // a file the user named is never "not a config" (unless its own modeline says so)
      assert.ok(a.kind !== null || a.detection.by === 'modeline', `case ${c}: no kind\n${text.slice(0, 500)}`);
      for (const f of a.findings) {
        assert.ok(f.span.start >= 0 && f.span.end <= text.length && f.span.start <= f.span.end, `case ${c}: ${f.code} span outside the text`);
        codes.add(f.code);
      }
    }
    // the mutations reach each defence
    for (const code of ['yaml.syntax', 'input.too-deep', 'input.alias-expansion', 'input.too-large', 'interp.syntax', 'input.kind-guessed'])
      assert.ok(codes.has(code), `no case reached ${code}: ${[...codes].sort().join(' ')}`);
  },
);
