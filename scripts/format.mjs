#!/usr/bin/env node
// `npm run format`: Prettier over our code (.prettierrc.json, .prettierignore) and `ruff format`
// over the Python we ship (src/), in place. The first run also switched on the lint tier's
// `format` check (ENFORCED in scripts/lint/format.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ruffBin } from './lint/checks.mjs';
import { formatOne, formattedFiles } from './lint/format.mjs';
import { repoFiles } from './lint/repo-files.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
let changed = 0;
const files = await formattedFiles(root, repoFiles(root));
for (const file of files) {
  const { text, formatted } = await formatOne(root, file);
  if (text === formatted) continue;
  fs.writeFileSync(path.join(root, file), formatted);
  changed++;
}
const switchFile = path.join(root, 'scripts', 'lint', 'format.mjs');
const src = fs.readFileSync(switchFile, 'utf8');
if (/^export const ENFORCED = false;$/m.test(src)) {
  fs.writeFileSync(switchFile, src.replace(/^export const ENFORCED = false;$/m, 'export const ENFORCED = true;'));
  console.log('format: the lint check is now enforced (scripts/lint/format.mjs: ENFORCED = true)');
}
console.log(`format: ${changed} of ${files.length} files reformatted`);
const ruff = spawnSync(ruffBin(root), ['format', '--no-cache', 'src'], { cwd: root, encoding: 'utf8' });
process.stdout.write(ruff.stdout);
if (ruff.status !== 0) {
  process.stderr.write(ruff.stderr);
  process.exit(1);
}
