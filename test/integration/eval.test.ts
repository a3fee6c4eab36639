// "Compare Models on Tasks…" in the real VS Code extension host: an `agentrl` launch entry with
// `compareModels` runs the sample tool-calling workflow's tasks against the real llama.cpp
// fixture model and a DELIBERATELY WEAKENED copy of it (the same model answering with at most 3
// tokens) in the window, saves the comparison under .agentrl/eval/, opens the comparison view,
// lists it in the Model Comparisons view; F5 on such an entry starts no debug session.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { activated } from './extension.test';
import { modelRuntimeInstalled, startModelServer, type ModelServer } from '../harness/model-server';
import { venvPython } from '../harness/paths';
import { until } from '../harness/wait';

const python = fs.existsSync(venvPython) ? venvPython : 'python3';
const ws = () => vscode.workspace.workspaceFolders![0];

interface SavedEval {
  models: { name: string; status: string; runDir: string; episodes: { reward: number | null }[] }[];
}

const comparisonTabs = () =>
  vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('agentrl.evalComparison'));

suite('Compare Models on Tasks (real VS Code, two real models)', function () {
  this.timeout(240_000);
  let base: ModelServer | undefined;
  let weakened: ModelServer | undefined;

  suiteSetup(async function () {
    if (!modelRuntimeInstalled) this.skip();
    await activated();
    [base, weakened] = await Promise.all([startModelServer(), startModelServer({ maxTokens: 3 })]);
  });
  suiteTeardown(async () => {
    await Promise.all([base?.stop(), weakened?.stop()]);
  });

  const entry = (extra: Record<string, unknown> = {}) => ({
    type: 'agentrl',
    request: 'launch',
    name: 'compare toolcall',
    config: '${workspaceFolder}/toolcall/toolcall.yaml',
    cwd: '${workspaceFolder}/toolcall',
    python,
    pythonDebugger: false,
    tasks: 2,
    repeat: 1,
    compareModels: [`base=${base!.url}`, { name: 'weakened', baseUrl: weakened!.url }],
    ...extra,
  });

  test('the command runs the comparison in the window, saves it and opens the view; the tree lists it', async () => {
    const sessions: string[] = [];
    const watch = vscode.debug.onDidStartDebugSession((s) => sessions.push(s.name));
    const dir = await vscode.commands.executeCommand<string | undefined>('agentrl.eval.compare', entry());
    watch.dispose();
    assert.ok(dir, 'the command resolves with the comparison folder');
    assert.strictEqual(path.dirname(dir), path.join(ws().uri.fsPath, '.agentrl', 'eval'), 'kept in the workspace, not the workflow folder');
    const saved = JSON.parse(fs.readFileSync(path.join(dir, 'eval.json'), 'utf8')) as SavedEval;
    assert.deepStrictEqual(
      saved.models.map((m) => [m.name, m.status, m.episodes.length]),
      [
        ['base', 'completed', 2],
        ['weakened', 'completed', 2],
      ],
    );
    assert.deepStrictEqual(
      saved.models[0].episodes.map((e) => e.reward),
      [1, 1],
      'the fixture model answers both tasks',
    );
    assert.deepStrictEqual(
      saved.models[1].episodes.map((e) => e.reward),
      [0, 0],
      'the weakened copy answers none',
    );
    for (const m of saved.models) assert.ok(fs.existsSync(path.join(dir, m.runDir, 'recording.jsonl')), `${m.name}'s calls are recorded`);
    assert.deepStrictEqual(sessions, [], 'no debug session was started');
    await until('the comparison view', () => comparisonTabs().some((t) => t.label.endsWith(path.basename(dir))));
    // The Model Comparisons view lists it, the verdict in its tooltip.
    const item = (await activated()).eval.savedComparisons().find((i) => i.id === dir);
    assert.ok(item, `the Model Comparisons view lists ${dir}`);
    assert.strictEqual(item.label, 'base ↔ weakened');
    assert.match(typeof item.tooltip === 'string' ? item.tooltip : '', /weakened is worse than base by 1\.00/);
    assert.deepStrictEqual(item.command?.arguments, [dir]);
    // Opening a saved comparison by its folder (the tree item's command) shows it again.
    for (const t of comparisonTabs()) await vscode.window.tabGroups.close(t);
    assert.strictEqual(await vscode.commands.executeCommand('agentrl.eval.compare', dir), dir);
    await until('the reopened view', () => comparisonTabs().length === 1);
  });

  test('a dead endpoint is refused before any task runs; nothing is saved', async () => {
    const evalDir = path.join(ws().uri.fsPath, '.agentrl', 'eval');
    const before = fs.existsSync(evalDir) ? fs.readdirSync(evalDir).length : 0;
    const dir = await vscode.commands.executeCommand<string | undefined>(
      'agentrl.eval.compare',
      entry({ compareModels: [`base=${base!.url}`, 'dead=http://127.0.0.1:9/v1'] }),
    );
    assert.strictEqual(dir, undefined);
    assert.strictEqual(fs.existsSync(evalDir) ? fs.readdirSync(evalDir).length : 0, before);
  });
});
