#!/usr/bin/env node
// `npm run bench -- <name> [args…]` — runs test/bench/<name>.bench.ts (compiled to
// out/test/bench/<name>.bench.js). Each bench prints human-readable results, compares
// against a peer measured in the same run, and ends with one line `BENCH <name> key=value …`.
// Benchmarks are not part of `npm test`: these machines are shared and noisy.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const [name, ...rest] = process.argv.slice(2);
const benchDir = path.join(root, 'test', 'bench');
const available = fs
  .readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''));
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <name> [args]\navailable: ${available.join(', ') || '(none)'}`);
  process.exit(2);
}
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run('bash', ['scripts/setup.sh']);
run(process.execPath, ['esbuild.mjs']);
run(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', '.']);
run(process.execPath, ['--expose-gc', path.join(root, 'out', 'test', 'bench', `${name}.bench.js`), ...rest]);
