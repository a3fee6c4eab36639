#!/usr/bin/env node
// The linters and the repository checks, each one counted result (`npm run lint`; the lint tier
// of `npm test` runs the same):
//   eslint        typescript-eslint's type-aware rules (eslint.config.mjs)
//   knip          unused files, exports and dependencies (knip.jsonc)
//   ruff          the repo's Python and the rendered scaffold templates (ruff.toml)
//   comment-refs  paths and files comments name exist; no citation of documents kept elsewhere
//   test-mirror   test files mirror src/
//   test-hygiene  no assertion on the wall clock, no test that passes when its subject is missing
//   glossary      no name in src/ contradicts the glossary of CONTRIBUTING.md (scripts/lint/glossary.mjs)
//   format        Prettier's formatting (.prettierrc.json; `npm run format`), once switched on (scripts/lint/format.mjs)
//   node scripts/lint.mjs [check…] [--grep REGEX]
// Findings print as `file:line: rule: message`; a check fails on any finding (fix it, or where a
// rule is wrong for one line, disable it there with the reason: CONTRIBUTING.md, Linting).
// Last line: `N passed, N failed`.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CHECKS } from './lint/checks.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { grep: { type: 'string' } },
});
for (const p of positionals)
  if (!CHECKS[p]) {
    console.error(`unknown check '${p}' (expected ${Object.keys(CHECKS).join(', ')})`);
    process.exit(2);
  }
const names = (positionals.length ? positionals : Object.keys(CHECKS)).filter((n) => !opts.grep || new RegExp(opts.grep).test(n));

let passed = 0;
let failed = 0;
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
  for (const f of findings) console.log(`${f.file}:${f.line}: ${f.rule}: ${f.message}`);
  if (findings.length) console.log(`${name}: by folder: ${byFolder(findings)}`);
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  if (findings.length) {
    failed++;
    console.log(`${name}: FAILED: ${findings.length} finding(s) above [${secs} s]`);
  } else {
    passed++;
    console.log(`${name}: ok [${secs} s]`);
  }
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

/** `src/config 12 · test/unit 3`: findings per top folder (two levels for src/ and test/). */
function byFolder(findings) {
  const n = {};
  for (const f of findings) {
    const parts = f.file.split('/');
    const key = parts.length > 2 && /^(src|test)$/.test(parts[0]) ? parts.slice(0, 2).join('/') : parts.length > 1 ? parts[0] : f.file;
    n[key] = (n[key] ?? 0) + 1;
  }
  return Object.entries(n)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(' · ');
}
