// The checks of scripts/lint.mjs: each takes the repository root and returns its findings,
// { file (repo-relative), line, rule, message }, or throws when it cannot run at all.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commentRefs } from './comment-refs.mjs';
import { formatCheck } from './format.mjs';
import { glossary } from './glossary.mjs';
import { repoFiles } from './repo-files.mjs';
import { testHygiene } from './test-hygiene.mjs';
import { testMirror } from './test-mirror.mjs';

/** @typedef {{ file: string, line: number, rule: string, message: string }} Finding */

/** @type {Record<string, (root: string) => Finding[] | Promise<Finding[]>>} */
export const CHECKS = {
  eslint,
  knip,
  ruff,
  'comment-refs': (root) => commentRefs(root, repoFiles(root)),
  'test-mirror': (root) => testMirror(repoFiles(root)),
  'test-hygiene': (root) => testHygiene(root, repoFiles(root)),
  glossary: (root) => glossary(root, repoFiles(root)),
  format: (root) => formatCheck(root, repoFiles(root)),
};

async function eslint(root) {
  const { ESLint } = await import('eslint');
  const results = await new ESLint({ cwd: root }).lintFiles(['.']);
  return results.flatMap((r) =>
    r.messages.map((m) => ({
      file: path.relative(root, r.filePath),
      line: m.line ?? 0,
      rule: m.ruleId ?? 'parse',
      message: m.message,
    })),
  );
}

function knip(root) {
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules', 'knip', 'bin', 'knip.js'), '--reporter', 'json', '--no-progress'], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  let report;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    throw new Error(`knip printed no report (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(0, 2000)}`);
  }
  const findings = [];
  for (const issue of report.issues) {
    for (const [type, entries] of Object.entries(issue)) {
      if (!Array.isArray(entries)) continue;
      for (const e of entries) findings.push({ file: issue.file, line: e.line ?? 1, rule: type, message: `${KNIP_WHAT[type] ?? type}: ${e.name}` });
    }
  }
  return findings;
}

const KNIP_WHAT = {
  files: 'unused file',
  dependencies: 'unused dependency',
  devDependencies: 'unused devDependency',
  unlisted: 'used but not in package.json',
  unresolved: 'import that does not resolve',
  binaries: 'program not installed by package.json',
  exports: 'exported, imported nowhere',
  nsExports: 'exported, imported nowhere',
  types: 'exported type, imported nowhere',
  nsTypes: 'exported type, imported nowhere',
  enumMembers: 'enum member used nowhere',
  duplicates: 'exported twice',
};

/** The ruff of scripts/python-requirements.txt: $AGENTRL_RUFF, setup's ruff venv (`bash scripts/setup.sh ruff`), the test venv's, or the PATH's. */
export function ruffBin(root) {
  const pinned = /^ruff==(\S+)/m.exec(fs.readFileSync(path.join(root, 'scripts', 'python-requirements.txt'), 'utf8'))?.[1];
  const candidates = [
    process.env.AGENTRL_RUFF,
    path.join(root, '.cache', 'ruff-venv', 'bin', 'ruff'),
    path.join(root, '.cache', 'venv', 'bin', 'ruff'),
    'ruff',
  ].filter(Boolean);
  for (const bin of candidates) {
    const v = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    if (v.status !== 0) continue;
    const version = v.stdout.trim().split(/\s+/)[1];
    if (pinned && version !== pinned) throw new Error(`${bin} is ruff ${version}; scripts/python-requirements.txt pins ${pinned} (bash scripts/setup.sh ruff)`);
    return bin;
  }
  throw new Error('ruff is not installed: bash scripts/setup.sh ruff (scripts/python-requirements.txt pins it)');
}

function ruff(root) {
  const bin = ruffBin(root);
  const config = path.join(root, 'ruff.toml');
  // `--config` would govern every file by the root ruff.toml; the repository's own run leaves
  // ruff to find the closest configuration (the runner's and the Python relay's are their own)
  const run = (cwd, target, ...args) => {
    const r = spawnSync(bin, ['check', '--no-cache', '--output-format', 'json', ...args, target], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0 && r.status !== 1) throw new Error(`ruff check ${target} failed (exit ${r.status}): ${r.stderr.trim()}`);
    return /** @type {Array<{ filename: string, code: string | null, message: string, location: { row: number } }>} */ (JSON.parse(r.stdout));
  };
  const findings = run(root, '.').map((d) => ({ file: path.relative(root, d.filename), line: d.location.row, rule: d.code ?? 'syntax', message: d.message }));
  // The Python we ship (the debug runner, the Python relay) is kept as `ruff format` writes it
  // (`npm run format` does it): a file it would change is a finding at its first changed line.
  const fmt = spawnSync(bin, ['format', '--check', '--no-cache', '--output-format', 'concise', 'src'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (fmt.status !== 0 && fmt.status !== 1) throw new Error(`ruff format --check src failed (exit ${fmt.status}): ${fmt.stderr.trim()}`);
  for (const m of fmt.stdout.matchAll(/^(.+?):(\d+):\d+: unformatted: /gm))
    findings.push({
      file: path.relative(root, path.resolve(root, m[1])),
      line: Number(m[2]),
      rule: 'format',
      message: 'ruff format would change this file (npm run format)',
    });
  // templates/ hold Python with {{placeholders}}: check what `agentrl new` makes of each, for
  // the Python the frameworks it targets need (Trinity-RFT, AgentJet: 3.10 or later)
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-lint-'));
  try {
    for (const { id, dir } of renderTemplates(root, out)) {
      for (const d of run(out, dir, '--config', config, '--target-version', 'py310')) {
        const rel = path.relative(dir, d.filename).split(path.sep).slice(1).join('/');
        findings.push({ file: `templates/${id}/${rel}`, line: d.location.row, rule: d.code ?? 'syntax', message: `${d.message} (line of the rendered file)` });
      }
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  return findings;
}

/** Every template rendered by the CLI bundle into `out/<id>`. */
function renderTemplates(root, out) {
  const cli = path.join(root, 'dist', 'agentrl.js');
  if (!fs.existsSync(cli)) throw new Error('dist/agentrl.js is missing (the templates are checked as rendered): npm run build');
  const list = spawnSync(process.execPath, [cli, 'new', '--list', '--json'], { encoding: 'utf8' });
  if (list.status !== 0) throw new Error(`agentrl new --list failed: ${list.stderr}`);
  return /** @type {Array<{ id: string }>} */ (JSON.parse(list.stdout)).map(({ id }) => {
    const dir = path.join(out, id);
    const r = spawnSync(process.execPath, [cli, 'new', id, dir, '--no-launch', '--json'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`agentrl new ${id} failed: ${r.stderr}`);
    return { id, dir };
  });
}
