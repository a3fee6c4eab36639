// The model comparison's part of activate(): the "Compare Models on Tasks…" command; the
// command flow and the panel (dist/eval-host.js) load on first use.
import * as vscode from 'vscode';
import { lazyBundle } from '../base/lazy';
import type { RolloutService } from '../feature-api/rollouts';
import type * as Host from './host';

/** `rollouts` gives the debugger's recorded runs (wired by extension.ts, loaded on first use). */
export function activateEval(context: vscode.ExtensionContext, rollouts: () => RolloutService): void {
  const host = lazyBundle<typeof Host>('eval-host');
  context.subscriptions.push(
    vscode.commands.registerCommand('agentrl.eval.compare', (dir?: string) => host().compareModelsCommand(context, rollouts, typeof dir === 'string' ? dir : undefined).then((p) => !!p)),
  );
}
