// Every finding code the engine can produce is exercised by some unit test (a code that no
// test breaks on purpose is a rule nobody checked).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../harness/paths';

/** Defensive codes no valid input reaches, with the reason. */
const UNREACHABLE: Record<string, string> = {
  // the derived schemas only use type/properties/additionalProperties/items/if/x-py keywords,
  // each mapped to its own code; this is the fallback for anything else ajv might report
  'schema.invalid': 'fallback for other ajv keywords',
};

function files(dir: string, ext: RegExp): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name), ext) : ext.test(e.name) ? [path.join(dir, e.name)] : []));
}

test('every finding code is produced by a unit test', () => {
  const src = files(path.join(repoRoot, 'src', 'config'), /\.ts$/)
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
  const codes = new Set<string>();
  for (const m of src.matchAll(/code: (?:[^'\n]*\? )?'([a-z]+\.[a-z0-9.-]+)'(?: : '([a-z]+\.[a-z0-9.-]+)')?/g)) {
    codes.add(m[1]);
    if (m[2]) codes.add(m[2]);
  }
  for (const m of src.matchAll(/'(input\.[a-z-]+|yaml\.[a-z-]+)'/g)) codes.add(m[1]);
  assert.ok(codes.size > 60, `found ${codes.size} codes`);
  const tests = files(path.join(repoRoot, 'test', 'unit', 'config'), /\.test\.ts$/)
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n');
  const untested = [...codes].filter((c) => !UNREACHABLE[c] && !tests.includes(`'${c}'`)).sort();
  assert.deepEqual(untested, []);
});
