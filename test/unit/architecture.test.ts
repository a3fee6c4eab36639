// The house rules as a test: features never import each other (they import library folders), no import cycle
// between folders, files ≤ 600 lines (no cap on classes or functions), vscode only in
// adapters, user-visible text through l10n. Each rule is first shown to fail on a small
// in-memory fixture (and to pass on a clean one), then run over the real src/ tree; a failure
// lists every violation as `file:line: reason`.
import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type FileSet,
  type Violation,
  featureImports,
  fileCycles,
  fileSet,
  folderCycles,
  folderGraph,
  formatViolation,
  l10nBypasses,
  longFiles,
  moduleRefs,
  readTree,
  vscodeImports,
} from '../harness/architecture';
import { repoRoot } from '../harness/paths';

const lines = (...ls: string[]): string => `${ls.join('\n')}\n`;
const LIBRARIES_ONLY =
  'features import library folders only (src/base, src/relay-protocol, src/feature-api, src/webview-shell, src/webview-ui, src/tokens, src/workspace-files, src/tfrecord, src/sqlite, src/types, src/pipeline, src/tasks); move what both need into one';
const report = (vs: Violation[]): string[] => vs.map(formatViolation);
/** n lines of filler statements. */
const filler = (n: number, indent = '  '): string[] => Array.from({ length: n }, (_, i) => `${indent}x${i % 10} = ${i};`);

let real: FileSet | undefined;
const tree = (): FileSet => (real ??= readTree(repoRoot, 'src'));
/** The real-tree check: no violation, and the message is the whole list. */
function assertClean(vs: Violation[]): void {
  assert.equal(vs.length, 0, `${vs.length} violation(s):\n${report(vs).join('\n')}`);
}

test('the real tree is read and parsed (so the tree checks below cannot pass vacuously)', () => {
  const files = tree();
  assert.ok(files.has('src/extension.ts') && files.size > 100, `only ${files.size} files read`);
  const refs = moduleRefs(files);
  assert.ok(refs.some((r) => r.file === 'src/extension.ts' && r.spec === 'vscode'));
  assert.ok(refs.some((r) => r.file === 'src/extension.ts' && r.target === 'src/metrics/activate.ts'));
  assert.ok(folderGraph(files).get('src')?.has('src/metrics'));
});

describe('rule 1: features never import each other', () => {
  test('fails on a feature importing another, a library importing a feature, a feature importing the wiring', () => {
    const files = fileSet({
      'src/metrics/panel.ts': lines('// why', "import { RayClient } from '../ray/api/client';", "import { log } from '../base/log';"),
      'src/ray/api/client.ts': lines('export class RayClient {}'),
      'src/base/log.ts': lines("import type { Model } from '../config/model';", 'export const log = 1;'),
      'src/config/model.ts': lines('export interface Model {}'),
      'src/debug/host.ts': lines("import type { AgentRlApi } from '../extension';"),
      'src/extension.ts': lines("import './metrics/panel';", 'export interface AgentRlApi {}'),
    });
    assert.deepEqual(report(featureImports(files)), [
      'src/base/log.ts:1: library src/base imports types from feature config (src/config/model.ts): a library imports no feature',
      'src/debug/host.ts:1: src/debug imports types from the wiring src/extension.ts: only the wiring imports features, never the reverse',
      `src/metrics/panel.ts:2: feature metrics imports the internals of feature ray (src/ray/api/client.ts): ${LIBRARIES_ONLY}`,
    ]);
  });

  test("fails on a feature importing another feature's internals instead of a library folder, and on a folder that is neither", () => {
    const files = fileSet({
      // online reaching into metrics for the relay's explorers: the wrong way …
      'src/online/host.ts': lines(
        "import type { RelayExplorer } from '../metrics/protocol/view-protocol';",
        "import { RelayClient } from '../relay-protocol/client';",
      ),
      'src/metrics/protocol/view-protocol.ts': lines('export interface RelayExplorer {}'),
      // … and the right way: the shape both need in a library folder
      'src/ray/explorer.ts': lines("import type { RelayExplorer } from '../feature-api/commands';"),
      'src/feature-api/commands.ts': lines('export interface RelayExplorer {}'),
      'src/relay-protocol/client.ts': lines("import { isObj } from '../base/validate';", 'export class RelayClient {}'),
      'src/base/validate.ts': lines('export const isObj = 1;'),
      // a drawer nobody named
      'src/shared/misc.ts': lines('export const misc = 1;'),
      'src/shared/more.ts': lines("import { misc } from './misc';"),
    });
    assert.deepEqual(report(featureImports(files)), [
      `src/online/host.ts:1: feature online imports types from the internals of feature metrics (src/metrics/protocol/view-protocol.ts): ${LIBRARIES_ONLY}`,
      'src/shared/misc.ts:1: src/shared is neither a feature nor a library folder: name it in FEATURES or LIBRARIES (test/harness/architecture/layers.ts) and in CONTRIBUTING',
    ]);
  });

  test('passes on wiring importing features and features importing library folders, their own folders and packages', () => {
    const files = fileSet({
      'src/extension.ts': lines("import { a } from './metrics/activate';", "import type { C } from './config/checker';"),
      'src/cli.ts': lines("export const run = () => import('./relay/cli');"),
      'src/metrics/activate.ts': lines(
        "import { b } from './store/store';",
        "import { s } from '../base/s';",
        "import * as fs from 'node:fs';",
        'export const a = 1;',
      ),
      'src/metrics/store/store.ts': lines(
        "import { s } from '../../base/s';",
        "import type { T } from '../../types/t';",
        "import { c } from '../../relay-protocol/client';",
        'export const b = 1;',
      ),
      'src/config/checker.ts': lines("import type { ConfigChecker } from '../feature-api/config-checker';"),
      'src/relay/cli.ts': lines("import { s } from '../base/s';"),
      'src/relay-protocol/client.ts': lines("import { s } from '../base/s';", 'export const c = 1;'),
      'src/feature-api/config-checker.ts': lines('export interface ConfigChecker {}'),
      'src/base/s.ts': lines("import { v } from './v';", 'export const s = 1;'),
      'src/base/v.ts': lines('export const v = 1;'),
      'src/types/t.d.ts': lines('export interface T {}'),
    });
    assert.deepEqual(report(featureImports(files)), []);
  });

  test('src/ has none', () => assertClean(featureImports(tree())));
});

describe('rule 2: no import cycle between folders', () => {
  test("fails on a parent ↔ child cycle and a three-folder cycle (type-only imports count), naming each edge's files", () => {
    const files = fileSet({
      'src/config/engine.ts': lines('// why', "import { parse } from './yaml/parse';"),
      'src/config/model.ts': lines('export interface Model {}'),
      'src/config/yaml/parse.ts': lines("import type { Model } from '../model';", 'export const parse = 1;'),
      'src/p/a.ts': lines("import { b } from '../q/b';"),
      'src/q/b.ts': lines("import { c } from '../r/c';", 'export const b = 1;'),
      'src/r/c.ts': lines("import { a } from '../p/a';", "import { a2 } from '../p/a2';", 'export const c = 1;'),
      'src/p/a2.ts': lines('export const a2 = 1;'),
    });
    assert.deepEqual(report(folderCycles(files)), [
      'src/config/engine.ts:2: import cycle between folders src/config → src/config/yaml → src/config: src/config → src/config/yaml (src/config/engine.ts:2); src/config/yaml → src/config (src/config/yaml/parse.ts:1)',
      'src/p/a.ts:1: import cycle between folders src/p → src/q → src/r → src/p: src/p → src/q (src/p/a.ts:1); src/q → src/r (src/q/b.ts:1); src/r → src/p (src/r/c.ts:1, src/r/c.ts:2)',
    ]);
  });

  test('passes on a folder tree that only imports downward and sideways without coming back', () => {
    const files = fileSet({
      'src/extension.ts': lines("import { a } from './config/activate';"),
      'src/config/activate.ts': lines("import { p } from './yaml/parse';", "import { s } from '../base/s';", 'export const a = 1;'),
      'src/config/yaml/parse.ts': lines("import { m } from '../model/model';", "import { s } from '../../base/s';", 'export const p = 1;'),
      'src/config/model/model.ts': lines('export const m = 1;'),
      'src/base/s.ts': lines('export const s = 1;'),
    });
    assert.deepEqual(report(folderCycles(files)), []);
  });

  test('src/ has none', () => assertClean(folderCycles(tree())));
});

describe('rule 2b: no import cycle between files', () => {
  test('fails on two files of one folder that import each other, type-only or not', () => {
    const files = fileSet({
      'src/d/runtime.ts': lines("import { fork } from './fork';", 'export class Runtime {}'),
      'src/d/fork.ts': lines("import type { Runtime } from './runtime';", 'export const fork = 1;'),
      'src/d/other.ts': lines("import { fork } from './fork';"),
    });
    assert.deepEqual(report(fileCycles(files)), [
      'src/d/fork.ts:1: import cycle between files src/d/fork.ts → src/d/runtime.ts → src/d/fork.ts: src/d/fork.ts → src/d/runtime.ts (src/d/fork.ts:1); src/d/runtime.ts → src/d/fork.ts (src/d/runtime.ts:1)',
    ]);
  });

  test('src/ has none', () => assertClean(fileCycles(tree())));
});

describe('rule 3: a file is at most 600 lines', () => {
  test('fails on 601-line .ts and .py files, ignores other kinds', () => {
    const files = fileSet({
      'src/a/big.ts': lines(...filler(601, '')),
      'src/a/runner.py': lines(...Array.from({ length: 700 }, (_, i) => `x = ${i}`)),
      'src/a/schema.json': lines(...Array.from({ length: 900 }, () => '1')),
      'src/a/ok.ts': lines(...filler(600, '')),
    });
    assert.deepEqual(report(longFiles(files)), [
      'src/a/big.ts:601: file has 601 lines (max 600): split it by job',
      'src/a/runner.py:601: file has 700 lines (max 600): split it by job',
    ]);
  });

  test('passes at exactly 600 lines (a final newline opens no line)', () => {
    assert.deepEqual(report(longFiles(fileSet({ 'src/a/ok.ts': lines(...filler(600, '')), 'src/a/ok.py': filler(600, '').join('\n') }))), []);
  });

  test('src/ has none', () => assertClean(longFiles(tree())));
});

describe('rule 5: vscode only in adapters (type-only imports count)', () => {
  test('fails in a library folder, src/relay, src/cli.ts, any cli.ts and a feature subfolder other than vscode/', () => {
    const files = fileSet({
      'src/base/log.ts': lines("import * as vscode from 'vscode';"),
      'src/relay/serve/relay.ts': lines('// why', "const vscode = require('vscode');"),
      'src/cli.ts': lines("import type { Uri } from 'vscode';"),
      'src/debug/cli.ts': lines("import type * as vscode from 'vscode';"),
      'src/metrics/store/store.ts': lines("import { type Memento } from 'vscode';"),
      'src/metrics/view/lazy.ts': lines("export type V = typeof import('vscode');"),
    });
    assert.deepEqual(report(vscodeImports(files)), [
      'src/base/log.ts:1: vscode import: library src/base is shared with the CLI and the webviews',
      'src/cli.ts:1: type-only vscode import: src/cli.ts runs outside VS Code',
      'src/debug/cli.ts:1: type-only vscode import: a cli.ts runs outside VS Code',
      'src/metrics/store/store.ts:1: type-only vscode import: src/metrics/store/ is pure logic (only src/metrics/*.ts and src/metrics/vscode/ may import vscode)',
      'src/metrics/view/lazy.ts:1: type-only vscode import: src/metrics/view/ is pure logic (only src/metrics/*.ts and src/metrics/vscode/ may import vscode)',
      'src/relay/serve/relay.ts:2: vscode import: src/relay runs outside VS Code (the relay CLI)',
    ]);
  });

  test('passes in src/extension.ts, a feature root, src/<feature>/vscode/**, and for vscode-* packages anywhere', () => {
    const files = fileSet({
      'src/extension.ts': lines("import * as vscode from 'vscode';"),
      'src/metrics/activate.ts': lines("import * as vscode from 'vscode';"),
      'src/metrics/host.ts': lines("import type { ExtensionContext } from 'vscode';"),
      'src/debug/vscode/tree.ts': lines("import * as vscode from 'vscode';"),
      'src/debug/vscode/deep/more.ts': lines("import * as vscode from 'vscode';"),
      'src/config/features/hover.ts': lines("import type { Hover } from 'vscode-languageserver';"),
      'src/debug/dap/frames.ts': lines("import { Source } from '@vscode/debugadapter';"),
    });
    assert.deepEqual(report(vscodeImports(files)), []);
  });

  test('src/ has none', () => assertClean(vscodeImports(tree())));
});

describe('rule 6: user-visible text goes through l10n', () => {
  test('fails on literals shown by VS Code, in adapter and webview UI properties, and on l10n.t messages built at run time', () => {
    const files = fileSet({
      'src/a/commands.ts': lines(
        "import * as vscode from 'vscode';",
        "void vscode.window.showErrorMessage('Could not connect');",
        "void vscode.window.showWarningMessage(vscode.l10n.t('Delete?'), { modal: true, detail: `All ${n} runs` }, 'Delete');",
        "void vscode.window.showQuickPick(['Yes', { label: 'No' }], { title: 'Pick one', placeHolder: vscode.l10n.t('p') });",
        "void vscode.window.showInputBox({ prompt: ok ? vscode.l10n.t('Token') : 'Password' });",
        "void vscode.window.withProgress({ location: 15, title: 'Submitting…' }, async () => 1);",
        "item.text = '$(sync~spin) Connecting';",
        "item.tooltip = 'Status: ' + state;",
        'const node = new vscode.TreeItem(`Run ${id}`);',
        'void vscode.l10n.t(`Connected to ${url}`);',
        "const row = { label: vscode.l10n.t('Nodes'), description: 'alive' };",
        "progress.report({ message: 'Uploading' });",
      ),
      'src/a/webview/main.ts': lines(
        '// the DOM side: strings come from the host',
        "button.textContent = 'Reset zoom';",
        "button.setAttribute('aria-label', `Close ${name}`);",
        "post({ type: 'log', message: `chart ${id} failed` });",
        "el.setAttribute('data-id', 'not text');",
      ),
      'src/a/pure/runner.ts': lines(
        '// no vscode here: only the call rules apply',
        "ui.showInformationMessage('Done');",
        "const row = { label: 'not shown by VS Code' };",
      ),
    });
    const bypass = (line: number, lit: string, where: string) =>
      `src/a/commands.ts:${line}: ${lit} as ${where} bypasses l10n: use vscode.l10n.t (or a strings module)`;
    assert.deepEqual(report(l10nBypasses(files)), [
      bypass(2, "'Could not connect'", 'showErrorMessage text'),
      bypass(3, "'Delete'", 'showWarningMessage text'),
      bypass(3, '`All ${n} runs`', 'showWarningMessage option detail'),
      bypass(4, "'No'", 'quick pick item label'),
      bypass(4, "'Pick one'", 'showQuickPick option title'),
      bypass(4, "'Yes'", 'quick pick item'),
      bypass(5, "'Password'", 'showInputBox option prompt'),
      bypass(6, "'Submitting…'", 'withProgress option title'),
      bypass(7, "'$(sync~spin) Connecting'", '.text'),
      bypass(8, "'Status: '", '.tooltip'),
      bypass(9, '`Run ${id}`', 'TreeItem text'),
      'src/a/commands.ts:10: l10n.t message `Connected to ${url}` is built at run time: one literal with {0} placeholders, or it cannot be translated',
      bypass(11, "'alive'", 'property description'),
      bypass(12, "'Uploading'", 'report option message'),
      "src/a/pure/runner.ts:2: 'Done' as showInformationMessage text bypasses l10n: use vscode.l10n.t (or a strings module)",
      "src/a/webview/main.ts:2: 'Reset zoom' as .textContent bypasses l10n: use vscode.l10n.t (or a strings module)",
      'src/a/webview/main.ts:3: `Close ${name}` as aria-label attribute bypasses l10n: use vscode.l10n.t (or a strings module)',
    ]);
  });

  test('passes on l10n.t, strings-module calls, names, codicons, numbers, URLs and acronyms', () => {
    const files = fileSet({
      'src/a/commands.ts': lines(
        "import * as vscode from 'vscode';",
        "import { describeError } from './strings';",
        "void vscode.window.showErrorMessage(describeError(e), vscode.l10n.t('Retry'));",
        "void vscode.window.showInputBox({ title: vscode.l10n.t('Connect'), placeHolder: 'ws://127.0.0.1:8765/', value: 'default' });",
        "void vscode.window.showQuickPick(['CSV', 'JSON'], { title: vscode.l10n.t('Format') });",
        'item.text = `$(pulse) ${label}`;',
        'item.tooltip = `${a} — ${b}\\n${c}`;',
        'item.description = String(n);',
        "const t = vscode.l10n.t('{0} of {1}', a, b);",
        "const u = vscode.l10n.t({ message: 'Saved', comment: ['a button'] });",
      ),
    });
    assert.deepEqual(report(l10nBypasses(files)), []);
  });

  test('src/ has none', () => assertClean(l10nBypasses(tree())));
});
