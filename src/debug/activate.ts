// Registers the `agentrl` debug type and the Rollouts view at activation. Tiny on purpose:
// everything heavy (DAP session, gateway, openai SDK) is in dist/debug-host.js, loaded the
// first time a rollout is debugged or the view is shown.
import * as path from 'path';
import * as vscode from 'vscode';
import { RAY_ATTACH_FIRST } from '../feature-api/commands';
import type { ConfigChecker } from '../feature-api/config-checker';
import type { ExperienceReader } from '../feature-api/experience-reader';
import type { RolloutService } from '../feature-api/rollouts';
import type { Logger } from '../base/log';
import { lazyBundle } from '../base/lazy';
import { asPromise } from '../base/promise';
import type * as Host from './host';
import { offerLive } from './go-live';

export interface RolloutDebugger {
  /** Refreshes the Rollouts view (also done when a run ends). */
  refreshRollouts(): void;
  /** The dynamic launch entries (one per RL config in the folder). */
  provideConfigurations(folder: vscode.WorkspaceFolder | undefined): Promise<vscode.DebugConfiguration[]>;
  /** Top-level items of the Rollouts view (saved runs, newest first). */
  rolloutRuns(): Promise<vscode.TreeItem[]>;
  /** Children of the run `runId` in the Rollouts view (episodes, then forks). */
  rolloutChildren(runId: string): Promise<vscode.TreeItem[]>;
  /** Headless and recorded runs for other features (loads the debugger's bundle). */
  rollouts(): RolloutService;
}

/** `checker` gives the config engine, `experiences` the relay's reader of a training run's
 *  rows (both wired by extension.ts, loaded on first use). */
export function activateDebug(
  context: vscode.ExtensionContext,
  log: Logger,
  checker: () => ConfigChecker,
  experiences?: () => ExperienceReader,
): RolloutDebugger {
  const host = lazyBundle<typeof Host>('debug-host');
  const runnerDir = path.join(context.extensionPath, 'dist', 'runner');
  let provider: Host.RolloutConfigurationProvider | undefined;
  const configs = () => (provider ??= new (host().RolloutConfigurationProvider)(checker, log));
  const delegate: vscode.DebugConfigurationProvider = {
    provideDebugConfigurations: (folder) => configs().provideDebugConfigurations(folder),
    // `"request": "attach"` with `"ray"`: the Ray feature waits for the first paused task and
    // answers with its attach configuration (another debug type); the rollout debugger stays unloaded
    resolveDebugConfiguration: (folder, config) => (config.request === 'attach' ? attachToRay(config) : configs().resolveDebugConfiguration(folder, config)),
    resolveDebugConfigurationWithSubstitutedVariables: (folder, config) =>
      config.request === 'attach' ? config : configs().resolveDebugConfigurationWithSubstitutedVariables(folder, config),
  };
  const changed = new vscode.EventEmitter<Host.RolloutNode | undefined>();
  let tree: Host.RolloutsTree | undefined;
  const rollouts = () => {
    if (!tree) {
      tree = new (host().RolloutsTree)();
      context.subscriptions.push(tree.onDidChangeTreeData(() => changed.fire(undefined)));
    }
    return tree;
  };
  const refreshRollouts = () => (tree ? tree.refresh() : changed.fire(undefined));
  const watcher = vscode.workspace.createFileSystemWatcher('**/.agentrl/runs/*/summary.json');
  context.subscriptions.push(
    vscode.debug.registerDebugConfigurationProvider('agentrl', delegate, vscode.DebugConfigurationProviderTriggerKind.Initial),
    vscode.debug.registerDebugConfigurationProvider(
      'agentrl',
      { provideDebugConfigurations: (f) => configs().provideDebugConfigurations(f) },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    vscode.debug.registerDebugAdapterDescriptorFactory('agentrl', {
      createDebugAdapterDescriptor: (session) => host().createAdapter(session, checker(), log, runnerDir, experiences),
    }),
    vscode.window.registerTreeDataProvider<Host.RolloutNode>('agentrl.rollouts', {
      onDidChangeTreeData: changed.event,
      getChildren: (n) => rollouts().getChildren(n),
      getTreeItem: (n) => rollouts().getTreeItem(n),
    }),
    changed,
    watcher,
    watcher.onDidCreate(refreshRollouts),
    watcher.onDidChange(refreshRollouts),
    vscode.debug.onDidTerminateDebugSession((s) => s.type === 'agentrl' && refreshRollouts()),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => void offerLive(e)),
    vscode.commands.registerCommand('agentrl.rollouts.refresh', refreshRollouts),
    vscode.commands.registerCommand('agentrl.rollouts.replay', (node?: Host.RolloutNode) => node?.kind === 'run' && host().replayRun(node)),
    vscode.commands.registerCommand('agentrl.rollouts.openTrajectories', (node?: Host.RolloutNode) => node?.kind === 'run' && host().openTrajectories(node)),
    vscode.commands.registerCommand('agentrl.rollouts.compareFork', (node?: Host.RolloutNode) => node?.kind === 'fork' && host().compareFork(node)),
    vscode.commands.registerCommand('agentrl.rollouts.transcript', (arg?: Host.TranscriptArg) => arg && host().openEpisodeTranscript(arg)),
    vscode.commands.registerCommand('agentrl.debug.showTokens', (arg?: Host.VariableMenuArg) => host().showCallTokens(arg, context.extensionUri)),
    vscode.commands.registerCommand('agentrl.debug.showExperienceTokens', (arg?: Host.VariableMenuArg) =>
      host().showExperienceTokens(arg, context.extensionUri),
    ),
  );
  let service: RolloutService | undefined;
  return {
    rollouts: () => (service ??= host().createRolloutService(checker(), runnerDir)),
    refreshRollouts,
    provideConfigurations: (folder) => configs().provideDebugConfigurations(folder),
    rolloutRuns: () =>
      asPromise(() =>
        rollouts()
          .getChildren()
          .map((n) => rollouts().getTreeItem(n)),
      ),
    rolloutChildren: (runId) =>
      asPromise(() => {
        const run = rollouts()
          .getChildren()
          .find((n) => n.kind === 'run' && n.run.id === runId);
        return run
          ? rollouts()
              .getChildren(run)
              .map((n) => rollouts().getTreeItem(n))
          : [];
      }),
  };
}

/** An `agentrl` attach entry: `"ray": {"dashboard": URL, "job"?: ID}`. */
async function attachToRay(config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
  const ray = config.ray as { dashboard?: unknown; job?: unknown } | undefined;
  if (typeof ray?.dashboard !== 'string' || !ray.dashboard) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t('An agentrl "attach" entry needs "ray": {"dashboard": "http://127.0.0.1:8265", "job": "<submission id>"} (the job is optional).'),
    );
    return undefined;
  }
  const job = typeof ray.job === 'string' && ray.job ? ray.job : undefined;
  return RAY_ATTACH_FIRST.run(vscode.commands, { dashboard: ray.dashboard, job });
}
