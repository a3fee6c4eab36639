// The map from the TypeScript relay to the Python relay (src/relay/python/README.md) cannot go
// stale: every TypeScript module of src/relay/ and every Python module of agentrl_relay/ is on
// it, and every file it names exists. Shown failing on a small table first.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../harness/paths';

const README = path.join(repoRoot, 'src', 'relay', 'python', 'README.md');
const PY_DIR = path.join(repoRoot, 'src', 'relay', 'python', 'agentrl_relay');

function filesUnder(dir: string, ext: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p, ext) : e.name.endsWith(ext) ? [p] : [];
  });
}

/** What is wrong with the table: modules missing from it, files it names that do not exist, rows without a reason. */
function tableProblems(readme: string, tsModules: string[], pyModules: string[], exists: (repoPath: string) => boolean): string[] {
  const rows = readme
    .split('\n')
    .filter((l) => /^\| `/.test(l))
    .map((l) => l.split('|').map((c) => c.trim()));
  const problems: string[] = [];
  const left = new Set<string>();
  const named = new Set<string>();
  for (const [, ts, py] of rows) {
    const tsPath = /^`([^`]+)`/.exec(ts)?.[1];
    if (!tsPath) continue;
    left.add(tsPath);
    if (!exists(tsPath)) problems.push(`${tsPath}: on the table, not in the tree`);
    const pys = [...py.matchAll(/`([\w.]+\.py)`/g)].map((m) => m[1]);
    if (!pys.length && !/^— \(.+\)$/.test(py)) problems.push(`${tsPath}: no Python module and no reason (— (why))`);
    for (const p of pys) {
      named.add(p);
      if (!pyModules.includes(p)) problems.push(`${tsPath}: names ${p}, which agentrl_relay/ does not have`);
    }
  }
  for (const m of tsModules) if (!left.has(m)) problems.push(`${m}: not on the table`);
  for (const p of pyModules) if (!named.has(p)) problems.push(`agentrl_relay/${p}: not on the table`);
  return problems;
}

test('the table check fails on a missing module, a file that is gone and a row without a reason', () => {
  const readme = [
    '| TypeScript | Python |',
    '|---|---|',
    '| `src/relay/a.ts` | `a.py` |',
    '| `src/relay/gone.ts` | `b.py`, `nope.py` |',
    '| `src/relay/c.ts` | |',
  ].join('\n');
  const exists = (p: string) => p !== 'src/relay/gone.ts';
  assert.deepEqual(tableProblems(readme, ['src/relay/a.ts', 'src/relay/c.ts', 'src/relay/new.ts'], ['a.py', 'b.py', 'extra.py'], exists), [
    'src/relay/gone.ts: on the table, not in the tree',
    'src/relay/gone.ts: names nope.py, which agentrl_relay/ does not have',
    'src/relay/c.ts: no Python module and no reason (— (why))',
    'src/relay/new.ts: not on the table',
    'agentrl_relay/extra.py: not on the table',
  ]);
});

test('src/relay/python/README.md maps every TypeScript relay module to its Python counterpart', () => {
  const tsModules = filesUnder(path.join(repoRoot, 'src', 'relay'), '.ts')
    .map((f) => path.relative(repoRoot, f).split(path.sep).join('/'))
    .filter((f) => !f.startsWith('src/relay/python/'));
  const pyModules = fs.readdirSync(PY_DIR).filter((f) => f.endsWith('.py'));
  assert.ok(tsModules.length > 20 && pyModules.length > 10, `read ${tsModules.length} TypeScript and ${pyModules.length} Python modules`);
  const problems = tableProblems(fs.readFileSync(README, 'utf8'), tsModules, pyModules, (p) => fs.existsSync(path.join(repoRoot, p)));
  assert.deepEqual(problems, [], problems.join('\n'));
});
