// The unit tier runs no process and opens no socket: anything that spawns Python,
// a model server, the CLI bundle, Ray or Trinity, or listens / connects, is a component test
// (test/component). This reads every file of test/unit and fails on what would break that.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../harness/paths';

const unitDir = path.join(repoRoot, 'test', 'unit');

/** Modules that start processes or sockets (esbuild runs its own service process). */
const FORBIDDEN_MODULES = new Set(['child_process', 'net', 'http', 'https', 'http2', 'tls', 'dgram', 'cluster', 'ws', 'esbuild']);
/** test/harness modules that start model servers, Ray, Trinity, VS Code, browsers, Python or the relay. */
const FORBIDDEN_HARNESS = new Set([
  'model-server',
  'ray-cluster',
  'trinity-serve',
  'lsp-stdio',
  'vscode-server',
  'browser',
  'webview-page',
  'relay',
  'run-ext-tests',
  'runner-python',
]);
/** Calls into src/ that listen or connect even though the module import looks harmless. */
const FORBIDDEN_CALLS: [RegExp, string][] = [
  [/\bfetch\(/, 'fetch() (network)'],
  [/\.listen\(/, '.listen() (a server socket)'],
  [/\bnew (?:Relay|RelayClient|WebSocket|WebSocketServer)\(/, 'a relay server or client (WebSocket)'],
  [/\b(?:openGateway|startGateway|startAdapter)\(/, 'the debug gateway / adapter (an HTTP or DAP socket)'],
  // `npm run test:unit` compiles with tsc alone (no esbuild): a test of a bundle is a component test
  [/['"`]dist['"`/]/, 'into dist/ (the esbuild bundles, which the unit tier does not build)'],
];

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Comments out, so that prose naming a module or a call does not count. */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Value (not type-only) module specifiers: import … from, bare import, export … from, require(), import(). */
function specifiers(code: string): string[] {
  const out: string[] = [];
  const patterns = [
    /^\s*import\s+(?!type\s)[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /^\s*export\s+(?!type\s)[^'";]*?\bfrom\s*['"]([^'"]+)['"]/gm,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(m[1]);
  return out;
}

/** Why a file of test/unit at `file` with this text breaks the tier's rule (empty: it does not). */
export function violations(file: string, text: string): string[] {
  const code = stripComments(text);
  const found: string[] = [];
  for (const spec of specifiers(code)) {
    const bare = spec.replace(/^node:/, '').split('/')[0];
    if (!spec.startsWith('.') && FORBIDDEN_MODULES.has(bare)) found.push(`imports ${spec}`);
    if (!spec.startsWith('.')) continue;
    const rel = path.relative(path.join(repoRoot, 'test'), path.resolve(path.dirname(file), spec)).split(path.sep);
    if (['component', 'integration', 'e2e', 'bench'].includes(rel[0])) found.push(`imports ${spec} (another tier)`);
    if (rel[0] === 'harness' && FORBIDDEN_HARNESS.has(rel[1])) found.push(`imports ${spec} (a process harness)`);
  }
  for (const [re, what] of FORBIDDEN_CALLS) if (re.test(code)) found.push(`calls ${what}`);
  return found;
}

test('the rule catches what it is meant to catch (and not prose or type-only imports)', () => {
  const f = path.join(unitDir, 'x', 'y.test.ts');
  const bad = [
    "import { spawnSync } from 'node:child_process';",
    "import * as http from 'http';",
    "const cp = require('child_process');",
    "import { startModelServer } from '../../harness/model-server';",
    "import { startRelay } from '../../harness/relay';",
    "import { cli } from '../../component/scaffold/helpers';",
    "await fetch('http://127.0.0.1:1/');",
    'server.listen(0);',
    'const r = new Relay(opts);',
    "const bundle = path.join(repoRoot, 'dist', 'agentrl.js');",
  ];
  for (const line of bad) assert.ok(violations(f, line).length > 0, `not caught: ${line}`);
  const fine = [
    "import type { IncomingMessage } from 'node:http';",
    '// spawns nothing: child_process is in test/component',
    "import { tmpDir } from '../helpers';",
    "import { repoRoot } from '../../harness/paths';",
    "const s = 'import os\\nprint(1)';",
    "const SQL = require('sql.js/dist/sql-wasm-inline.js');",
  ];
  for (const line of fine) assert.deepEqual(violations(f, line), [], line);
});

test('no file of test/unit imports a process or socket module, a process harness or another tier', () => {
  // this file names the forbidden things in its own samples above
  const files = tsFiles(unitDir).filter((f) => path.basename(f) !== 'test-tiers.test.ts');
  assert.ok(files.length > 50, `found only ${files.length} files under ${unitDir}`);
  const bad = files.flatMap((f) => violations(f, fs.readFileSync(f, 'utf8')).map((v) => `${path.relative(repoRoot, f)}: ${v}`));
  assert.deepEqual(bad, [], `move these to test/component (or split the file):\n${bad.join('\n')}`);
});
