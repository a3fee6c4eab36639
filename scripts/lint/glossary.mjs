// Names in src/ that contradict the glossary (CONTRIBUTING.md, Words we use): each rule names
// the word it enforces and the name the glossary asks for. Comments and strings are left out
// (Trinity-RFT's own "rollouts per task" is Trinity's word, and prose may quote an old name);
// file and folder names count. Before reading the tree, every rule is run on its own bad
// example and must find it: a rule that no longer matches anything fails here, not silently.

import fs from 'node:fs';
import path from 'node:path';

/** @typedef {{ file: string, line: number, rule: string, message: string }} Finding */
/** @typedef {{ id: string, where: RegExp, code?: RegExp, path?: RegExp, say: string, bad: { file: string, text: string } }} Rule */

/** @type {Rule[]} */
export const RULES = [
  {
    id: 'run-says-which',
    where: /^src\/.+\.ts$/,
    code: /\bRunTokenizers\b/,
    say: 'a run is a debug run or a training run: say which (DebugRunTokenizers, TrainingRunTokenizers)',
    bad: { file: 'src/debug/tokens/run-tokenizer.ts', text: 'export class RunTokenizers {}' },
  },
  {
    id: 'run-handle-is-the-interface',
    where: /^src\/.+\.ts$/,
    code: /\btype\s+RunHandle\s*=/,
    say: 'RunHandle is the interface of src/debug/runtime/run-handle.ts: name a union for what it holds (LaunchedRun)',
    bad: { file: 'src/debug/dap/launch.ts', text: 'export type RunHandle = A | B;' },
  },
  {
    id: 'experience-not-rollout',
    where: /^src\/metrics\//,
    // type names (a PascalCase word holding Rollout); Trinity's `rollout/…` metric tags are Trinity's word
    code: /\b(?:[A-Z]\w*)?Rollouts?(?:[A-Z]\w*)?\b/,
    path: /(^|\/)rollouts?([-/.]|$)/,
    say: 'in the metrics view a buffer row is an experience (Experience…, experiences/); a rollout is a debug run',
    bad: { file: 'src/metrics/rollouts/table.ts', text: 'export interface DrillRolloutsMessage {}' },
  },
  {
    id: 'dap-not-protocol',
    where: /(^|\/)protocol\/[^/]+\.ts$/,
    code: /from\s+['"]@vscode\/debug(adapter|protocol)['"]/,
    say: 'protocol/ holds wire types; the Debug Adapter Protocol layer lives in dap/',
    bad: { file: 'src/debug/protocol/session.ts', text: "import { DebugSession } from '@vscode/debugadapter';" },
  },
];

/** Code without comments and template literals (where prose lives); quoted strings stay, so imports still read. */
function codeOnly(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
    .replace(/`(?:[^`\\]|\\.)*`/g, (m) => m.replace(/[^\n]/g, ' '));
}

/**
 * @param {{ file: string, text: string }[]} files
 * @param {Rule[]} rules
 * @returns {Finding[]}
 */
export function glossaryFindings(files, rules = RULES) {
  const findings = [];
  for (const { file, text } of files) {
    for (const r of rules) {
      if (!r.where.test(file)) continue;
      if (r.path?.test(file)) findings.push({ file, line: 1, rule: r.id, message: `file name: ${r.say}` });
      if (!r.code) continue;
      codeOnly(text)
        .split('\n')
        .forEach((l, i) => {
          const m = l.match(r.code);
          if (m) findings.push({ file, line: i + 1, rule: r.id, message: `${m[0]}: ${r.say}` });
        });
    }
  }
  return findings;
}

/**
 * @param {string} root
 * @param {string[]} files  repo-relative paths (repo-files.mjs)
 * @returns {Finding[]}
 */
export function glossary(root, files) {
  for (const r of RULES) {
    if (!glossaryFindings([r.bad], [r]).length) throw new Error(`rule ${r.id} does not catch its own bad example ${r.bad.file}`);
  }
  const src = files.filter((f) => f.startsWith('src/') && f.endsWith('.ts')).map((file) => ({ file, text: fs.readFileSync(path.join(root, file), 'utf8') }));
  return glossaryFindings(src);
}
