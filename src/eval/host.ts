// The comparison's extension-host bundle (dist/eval-host.js), loaded on first use: the command
// flow of "Compare Models on Tasks…" (a saved comparison, an `agentrl` launch entry with
// `compareModels`, or a new one described in a few questions), the comparison run in the window,
// the comparison panel (and its revival after a reload), the saved comparisons' tree and the
// checkpoints of a Trinity job.
import * as path from 'path';
import * as vscode from 'vscode';
import type { RolloutService } from '../feature-api/rollouts';
import { loadEval, listSaved } from './run/eval-record';
import { DEFAULT_REPEAT, DEFAULT_TASKS } from './run/launch-spec';
import { checkModelsInput, knownEndpoints, prefillModels } from './run/known-endpoints';
import { probeEndpoint } from './run/run-eval';
import { ComparePanel } from './panel';
import { runComparison } from './run-comparison';
import type { ViewState } from './protocol/messages';
import { maskUrl } from '../base/url-secrets';

export { ComparisonsTree, type ComparisonNode } from './comparisons-tree';
export { serveCheckpoint } from './checkpoints-flow';

/** What the bundle needs from activate.ts. */
export interface EvalPort {
  context: vscode.ExtensionContext;
  rollouts(): RolloutService;
  /** The saved comparisons changed (the tree refreshes). */
  changed(): void;
}

/** The launch attribute that makes an `agentrl` entry a comparison, and the entry key that
 *  ties a launch started by the command to its run (so the command can return its folder). */
const RUN_KEY = '__agentrlEvalRun';
const pendingRuns = new Map<string, Promise<string | undefined>>();
let nextRun = 0;

export function openComparison(port: EvalPort, dir: string): ComparePanel {
  return ComparePanel.open(port.context.extensionUri, dir, () => port.rollouts());
}

/** The debug configuration provider's hook: an entry with `compareModels` runs the comparison
 *  in the window and starts no debug session (resolving to undefined cancels the launch). */
export function launchComparison(port: EvalPort, folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): undefined {
  const run = runComparison(
    {
      rollouts: () => port.rollouts(),
      open: (dir) => {
        port.changed();
        openComparison(port, dir);
      },
    },
    folder,
    config,
  );
  const key: unknown = config[RUN_KEY];
  if (typeof key === 'string') pendingRuns.set(key, run);
  return undefined;
}

/** Starts a comparison through the debug configuration resolution (so launch.json variables,
 *  Workspace Trust and the config check apply as for F5); resolves with its folder. */
async function startComparison(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<string | undefined> {
  const key = `run-${++nextRun}`;
  await vscode.debug.startDebugging(folder, {
    ...config,
    type: 'agentrl',
    request: 'launch',
    name: config.name ?? vscode.l10n.t('Compare Models on Tasks'),
    [RUN_KEY]: key,
  });
  const run = pendingRuns.get(key);
  pendingRuns.delete(key);
  return run; // undefined: the launch was refused before the comparison (trust, config errors)
}

export function revivePanel(port: EvalPort, panel: vscode.WebviewPanel, state: unknown): void {
  const s = state as Partial<ViewState> | undefined;
  try {
    if (!s || typeof s.dir !== 'string') throw new Error(vscode.l10n.t('the view kept no comparison folder'));
    new ComparePanel(port.context.extensionUri, s.dir, loadEval(s.dir), () => port.rollouts(), panel, { a: s.a, b: s.b });
  } catch (e) {
    panel.dispose();
    void vscode.window.showWarningMessage(vscode.l10n.t('The model comparison could not be restored: {0}', (e as Error).message));
  }
}

interface Item extends vscode.QuickPickItem {
  run?: () => Promise<string | undefined>;
}

function launchEntries(): Item[] {
  const out: Item[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    const entries = vscode.workspace.getConfiguration('launch', folder).get<vscode.DebugConfiguration[]>('configurations') ?? [];
    for (const c of entries) {
      if (c?.type !== 'agentrl' || c.compareModels === undefined) continue;
      out.push({ label: `$(play) ${c.name}`, description: vscode.l10n.t('launch.json · {0}', folder.name), run: () => startComparison(folder, c) });
    }
  }
  return out;
}

function savedItems(port: EvalPort): Item[] {
  const out: Item[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    for (const s of listSaved(folder.uri.fsPath)) {
      out.push({
        label: `$(git-compare) ${s.id}`,
        description: s.record.models.map((m) => m.name).join(' ↔ '),
        detail: `${path.basename(s.record.config)} · ${s.record.tasks} × ${s.record.repeat}`,
        run: () => Promise.resolve(openComparison(port, s.dir).dir),
      });
    }
  }
  return out;
}

/** "Compare Models on Tasks…". `arg`: a saved comparison's folder opens it; a launch
 *  configuration (`compareModels`…) runs it. Resolves with the comparison's folder. */
export async function compareModelsCommand(port: EvalPort, arg?: unknown): Promise<string | undefined> {
  if (typeof arg === 'string') return openComparison(port, arg).dir;
  if (arg && typeof arg === 'object') return startComparison(vscode.workspace.workspaceFolders?.[0], arg as vscode.DebugConfiguration);
  const launches = launchEntries();
  const saved = savedItems(port);
  const items: Item[] = [
    { label: vscode.l10n.t('$(add) New comparison…'), run: () => newComparison() },
    ...(launches.length ? [{ label: vscode.l10n.t('Launch configurations'), kind: vscode.QuickPickItemKind.Separator }, ...launches] : []),
    ...(saved.length ? [{ label: vscode.l10n.t('Saved comparisons'), kind: vscode.QuickPickItemKind.Separator }, ...saved] : []),
  ];
  const pick = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Compare Models on Tasks'),
    placeHolder: vscode.l10n.t('Run a comparison, or open a saved one'),
  });
  return pick?.run?.();
}

/** A comparison described in three questions: the config, the models, tasks × repeats. */
async function newComparison(): Promise<string | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Open a workspace folder with an RL config first.'));
    return undefined;
  }
  const configs = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/*.{yaml,yml}'), '**/{node_modules,.agentrl}/**', 200);
  const config = await vscode.window.showQuickPick(
    configs.map((u) => ({ label: vscode.workspace.asRelativePath(u, false), uri: u })),
    { title: vscode.l10n.t('Workflow config') },
  );
  if (!config) return undefined;
  const models = await askModels();
  if (!models) return undefined;
  const shape = await vscode.window.showInputBox({
    title: vscode.l10n.t('Tasks × repeats'),
    value: `${DEFAULT_TASKS} ${DEFAULT_REPEAT}`,
    validateInput: (v) => (/^\s*[1-9]\d*\s+[1-9]\d*\s*$/.test(v) ? undefined : vscode.l10n.t('Two numbers: tasks and repeats')),
  });
  if (!shape) return undefined;
  const [tasks, repeat] = shape.trim().split(/\s+/).map(Number);
  const rel = path.relative(folder.uri.fsPath, config.uri.fsPath).split(path.sep).join('/');
  return startComparison(folder, {
    type: 'agentrl',
    request: 'launch',
    name: vscode.l10n.t('Compare models on {0}', rel),
    config: config.uri.fsPath,
    cwd: path.dirname(config.uri.fsPath),
    tasks,
    repeat,
    compareModels: models,
  });
}

/** The models, prefilled with the endpoints the workspace's launch entries name; each endpoint
 *  is asked before the tasks are (one that does not answer brings the question back). */
async function askModels(): Promise<string[] | undefined> {
  const entries = (vscode.workspace.workspaceFolders ?? []).flatMap(
    (f) => vscode.workspace.getConfiguration('launch', f).get<unknown[]>('configurations') ?? [],
  );
  const known = knownEndpoints(entries);
  let value = prefillModels(known);
  for (;;) {
    // VS Code shows what validateInput says only once the value is edited (or an Error on
    // Enter): a warning about the prefilled value (one endpoint twice) goes in the prompt.
    const prefilled = checkModelsInput(value, vscode.l10n).warning;
    const endpoints = known.length
      ? vscode.l10n.t('Endpoints named in launch.json: {0}', known.map((k) => `${maskUrl(k.url)} (${k.from})`).join(' · '))
      : vscode.l10n.t('No launch entry names a model endpoint yet: type NAME=URL pairs of OpenAI-compatible endpoints that are running.');
    const typed = await vscode.window.showInputBox({
      title: vscode.l10n.t('Models to compare (the baseline first)'),
      prompt: prefilled ? `${endpoints} — ${prefilled}` : endpoints,
      placeHolder: vscode.l10n.t('for example {0}', 'base=http://127.0.0.1:8000/v1 new=http://127.0.0.1:8001/v1'),
      value,
      ignoreFocusOut: true,
      validateInput: (v) => {
        const c = checkModelsInput(v, vscode.l10n);
        return c.error ?? (c.warning ? { message: c.warning, severity: vscode.InputBoxValidationSeverity.Warning } : undefined);
      },
    });
    if (!typed) return undefined;
    value = typed;
    const models = checkModelsInput(typed, vscode.l10n).models ?? [];
    const urls = [...new Set(models.map((m) => m.url))];
    const dead = (
      await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking the model endpoints…') }, () =>
        Promise.all(
          urls.map((url) =>
            probeEndpoint({ name: models.find((m) => m.url === url)!.name, baseUrl: url }, 5).then(
              () => undefined,
              () => url,
            ),
          ),
        ),
      )
    ).filter((u): u is string => !!u);
    if (!dead.length) return models.map((m) => `${m.name}=${m.url}`);
    const again = vscode.l10n.t('Change the Models');
    const choice = await vscode.window.showErrorMessage(
      vscode.l10n.t('Nothing answers at {0}: start the model server or change the URL. No task was run.', dead.map(maskUrl).join(', ')),
      again,
    );
    if (choice !== again) return undefined;
  }
}
