#!/usr/bin/env node
// `npm run package` — production build, then `vsce package` into agent-rl-studio-<version>.vsix
// (or --out FILE). Prints the VSIX size. Dependencies are bundled, so vsce skips node_modules.
// vsce's listing of every file in the VSIX is left out (it buried `npm start`'s own lines);
// its warnings, errors and the DONE line stay; --verbose shows all of it, and a failure does.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const { values } = parseArgs({ options: { out: { type: 'string' }, verbose: { type: 'boolean', default: false } } });
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const out = path.resolve(values.out ?? `${pkg.name}-${pkg.version}.vsix`);

const step = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
// Stale development sourcemaps must not ship.
for (const d of ['dist', 'media']) if (fs.existsSync(d)) for (const f of fs.readdirSync(d)) if (f.endsWith('.map')) fs.rmSync(path.join(d, f));
step(process.execPath, ['esbuild.mjs', '--production']);
fs.mkdirSync(path.dirname(out), { recursive: true });
const vsce = spawnSync(path.join(root, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--out', out], {
  stdio: ['ignore', 'pipe', 'pipe'],
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
});
const said = `${vsce.stdout ?? ''}${vsce.stderr ?? ''}`;
if (vsce.status !== 0 || values.verbose) process.stdout.write(said);
else for (const line of said.split('\n')) if (/\b(WARNING|ERROR|DONE)\b/.test(line)) console.log(line);
if (vsce.status !== 0) process.exit(vsce.status ?? 1);
const kb = fs.statSync(out).size / 1024;
console.log(`VSIX ${path.relative(root, out)}: ${kb.toFixed(1)} KB`);
