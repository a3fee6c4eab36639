#!/usr/bin/env node
// The linters and the repository checks, each one counted result (`npm run lint`; the lint tier
// of `npm test` runs the same):
//   eslint        typescript-eslint's type-aware rules (eslint.config.mjs)
//   knip          unused files, exports and dependencies (knip.jsonc)
//   ruff          the repo's Python and the rendered scaffold templates (ruff.toml)
//   comment-refs  paths and files comments name exist; no citation of documents kept elsewhere
//   test-mirror   test files mirror src/
//   test-hygiene  no assertion on the wall clock, no test that passes when its subject is missing
//   node scripts/lint.mjs [check…] [--grep REGEX] [--all] [--write-baseline]
// Findings print as `file:line: rule: message`. scripts/lint/baseline.json records the findings
// not fixed yet, per check, file and rule: a check fails on any finding beyond it (a new one).
// --write-baseline lowers the record to today's findings; it never raises a count. Without the
// file, every finding fails. Last line: `N passed, N failed`.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CHECKS } from './lint/checks.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { grep: { type: 'string' }, all: { type: 'boolean', default: false }, 'write-baseline': { type: 'boolean', default: false } },
});
for (const p of positionals) if (!CHECKS[p]) { console.error(`unknown check '${p}' (expected ${Object.keys(CHECKS).join(', ')})`); process.exit(2); }
const names = (positionals.length ? positionals : Object.keys(CHECKS)).filter((n) => !opts.grep || new RegExp(opts.grep).test(n));

const baselineFile = path.join(root, 'scripts', 'lint', 'baseline.json');
/** @type {Record<string, Record<string, Record<string, number>>>} check → file → rule → count */
const baseline = fs.existsSync(baselineFile) ? JSON.parse(fs.readFileSync(baselineFile, 'utf8')) : {};

let passed = 0;
let failed = 0;
const found = {};
for (const name of names) {
  const t0 = Date.now();
  console.log(`\n--- ${name}`);
  let findings;
  try {
    findings = await CHECKS[name](root);
  } catch (e) {
    console.log(`${name}: could not run: ${e instanceof Error ? e.message : String(e)}`);
    failed++;
    continue;
  }
  found[name] = findings;
  const known = baseline[name] ?? {};
  const fresh = beyond(findings, known);
  const recorded = Object.values(known).flatMap((r) => Object.values(r)).reduce((a, b) => a + b, 0);
  for (const f of opts.all ? findings : fresh) console.log(`${f.file}:${f.line}: ${f.rule}: ${f.message}`);
  if (findings.length) console.log(`${name}: by folder: ${byFolder(findings)}`);
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (fresh.length) {
    failed++;
    console.log(`${name}: FAILED: ${fresh.length} new finding(s) above (${findings.length} in all, ${recorded} recorded in scripts/lint/baseline.json) [${secs} s]`);
  } else {
    passed++;
    const lower = findings.length < recorded ? `; ${recorded - findings.length} fewer than recorded: node scripts/lint.mjs --write-baseline` : '';
    console.log(`${name}: ok, ${findings.length} finding(s)${recorded ? ` (recorded, to fix: scripts/lint/baseline.json${lower})` : ''} [${secs} s]`);
  }
}

if (opts['write-baseline']) writeBaseline();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

/** The findings beyond the recorded count of their file and rule (all of them when none is recorded). */
function beyond(findings, known) {
  const seen = {};
  return findings.filter((f) => {
    const k = `${f.file}\0${f.rule}`;
    seen[k] = (seen[k] ?? 0) + 1;
    return seen[k] > (known[f.file]?.[f.rule] ?? 0);
  });
}

/** `src/config 12 · test/unit 3`: findings per top folder (two levels for src/ and test/). */
function byFolder(findings) {
  const n = {};
  for (const f of findings) {
    const parts = f.file.split('/');
    const key = parts.length > 2 && /^(src|test)$/.test(parts[0]) ? parts.slice(0, 2).join('/') : parts.length > 1 ? parts[0] : f.file;
    n[key] = (n[key] ?? 0) + 1;
  }
  return Object.entries(n).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(' · ');
}

/** Records today's findings of the checks that ran, never above what was recorded before. */
function writeBaseline() {
  const next = { ...baseline };
  for (const [name, findings] of Object.entries(found)) {
    const counts = {};
    for (const f of findings) {
      const was = baseline[name]?.[f.file]?.[f.rule];
      const now = (counts[f.file]?.[f.rule] ?? 0) + 1;
      if (fs.existsSync(baselineFile) && (was === undefined || now > was)) continue; // a new finding: fix it
      (counts[f.file] ??= {})[f.rule] = now;
    }
    const sorted = Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
    if (Object.keys(sorted).length) next[name] = sorted;
    else delete next[name];
  }
  fs.writeFileSync(baselineFile, `${JSON.stringify(next, null, 1)}\n`);
  console.log(`wrote ${path.relative(root, baselineFile)}`);
}
