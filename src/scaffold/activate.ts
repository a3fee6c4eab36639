// Registers "Agent RL: New Workflow…" and the Explorer's "New RL Workflow Here". The wizard
// itself (templates, ajv, jsonc-parser) lives in dist/scaffold-host.js, loaded on first use.
import * as vscode from 'vscode';
import { lazyBundle } from '../base/lazy';
import type { Logger } from '../base/log';
import type * as Wizard from './host';

const NEW_WORKFLOW = 'agentrl.newWorkflow';
const NEW_WORKFLOW_HERE = 'agentrl.newWorkflowHere';

export function activateScaffold(context: vscode.ExtensionContext, log: Logger): void {
  const wizard = lazyBundle<typeof Wizard>('scaffold-host');
  const host = { extensionPath: context.extensionPath, log };
  context.subscriptions.push(
    vscode.commands.registerCommand(NEW_WORKFLOW, (arg?: unknown) => wizard().newWorkflow(host, arg)),
    vscode.commands.registerCommand(NEW_WORKFLOW_HERE, (folder?: vscode.Uri) => wizard().newWorkflow(host, folder)),
  );
}
