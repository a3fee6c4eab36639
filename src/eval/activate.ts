// The model comparison's part of activate(): the "Compare Models on Tasks…" command, the
// `compareModels` launch attribute of `agentrl` entries, the saved comparisons' view and the
// comparison panel's serializer; the flows and the panel (dist/eval-host.js) load on first use.
import * as vscode from 'vscode';
import { lazyBundle } from '../base/lazy';
import type { RolloutService } from '../feature-api/rollouts';
import { EVAL_VIEW_TYPE } from './protocol/messages';
import type * as Host from './host';

export interface ModelComparisons {
  /** The items of the Model Comparisons view (saved comparisons, newest first). */
  savedComparisons(): vscode.TreeItem[];
}

/** `rollouts` gives the debugger's recorded runs (wired by extension.ts, loaded on first use). */
export function activateEval(context: vscode.ExtensionContext, rollouts: () => RolloutService): ModelComparisons {
  const host = lazyBundle<typeof Host>('eval-host');
  const changed = new vscode.EventEmitter<undefined>();
  let tree: Host.ComparisonsTree | undefined;
  const comparisons = () => {
    if (!tree) {
      tree = new (host().ComparisonsTree)();
      context.subscriptions.push(
        tree,
        tree.onDidChangeTreeData(() => changed.fire(undefined)),
      );
    }
    return tree;
  };
  const refresh = () => (tree ? tree.refresh() : changed.fire(undefined));
  const port: Host.EvalPort = { context, rollouts, changed: refresh };
  const watcher = vscode.workspace.createFileSystemWatcher('**/.agentrl/eval/*/eval.json');
  context.subscriptions.push(
    vscode.commands.registerCommand('agentrl.eval.compare', (arg?: unknown) => host().compareModelsCommand(port, arg)),
    vscode.commands.registerCommand('agentrl.eval.refresh', refresh),
    vscode.commands.registerCommand('agentrl.eval.serveCheckpoint', (jobDir?: unknown) =>
      host().serveCheckpoint(typeof jobDir === 'string' ? jobDir : undefined),
    ),
    // Runs after the debugger's resolver (registered first): Workspace Trust, the config check
    // and the interpreter are settled by then.
    vscode.debug.registerDebugConfigurationProvider('agentrl', {
      resolveDebugConfigurationWithSubstitutedVariables: (folder, config) =>
        config.compareModels === undefined ? config : host().launchComparison(port, folder, config),
    }),
    vscode.window.registerTreeDataProvider<Host.ComparisonNode>('agentrl.comparisons', {
      onDidChangeTreeData: changed.event,
      getChildren: (n) => comparisons().getChildren(n),
      getTreeItem: (n) => comparisons().getTreeItem(n),
    }),
    vscode.window.registerWebviewPanelSerializer(EVAL_VIEW_TYPE, {
      deserializeWebviewPanel: (panel, state) => Promise.resolve(host().revivePanel(port, panel, state)),
    }),
    changed,
    watcher,
    watcher.onDidCreate(refresh),
    watcher.onDidChange(refresh),
    watcher.onDidDelete(refresh),
  );
  return {
    savedComparisons: () =>
      comparisons()
        .getChildren()
        .map((n) => comparisons().getTreeItem(n)),
  };
}
