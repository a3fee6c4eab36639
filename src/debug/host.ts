// The rollout debugger's extension-host bundle (dist/debug-host.js), loaded on first use so
// activation stays cheap: the DAP session (@vscode/debugadapter), the gateway (openai SDK),
// the configuration provider and the Rollouts view.
import * as vscode from 'vscode';
import type { ConfigChecker } from '../shared/config-api';
import type { Logger } from '../shared/log';
import { RolloutDebugSession } from './protocol/session';
import { RolloutConfigurationProvider } from './vscode/configurations';
import { attachPythonDebugger } from './vscode/python';
import { RolloutsTreeProvider, runTranscriptFile, transcriptFile } from './views/rollouts-tree';
import type { RunInfo } from './results/run-store';
import type { EpisodeTrajectory } from '../shared/trajectory';

export { RolloutConfigurationProvider, RolloutsTreeProvider };

export function createAdapter(session: vscode.DebugSession, checker: ConfigChecker, log: Logger, runnerScript: string): vscode.DebugAdapterInlineImplementation {
  const dap = new RolloutDebugSession({
    checker,
    logger: log,
    runnerScript,
    startPythonDebugger: (endpoint) => attachPythonDebugger(session, endpoint),
  });
  return new vscode.DebugAdapterInlineImplementation(dap);
}

export type { RolloutNode } from './views/rollouts-tree';
type RunNode = Extract<import('./views/rollouts-tree').RolloutNode, { kind: 'run' }>;

/** Debugs the run again from its recording: no model needed. */
export function replayRun(node: RunNode): Thenable<boolean> {
  const l = node.run.launch ?? {};
  const keep = ['config', 'workflow', 'tasks', 'split', 'repeat', 'cwd', 'python', 'env'] as const;
  const config: vscode.DebugConfiguration = { type: 'agentrl', request: 'launch', name: vscode.l10n.t('Replay {0}', node.run.id), replay: node.run.dir };
  for (const k of keep) if (l[k] !== undefined) config[k] = l[k];
  return vscode.debug.startDebugging(node.folder, config);
}

/** The run as a readable chat transcript (Markdown preview), not one-line JSONL. */
export async function openTrajectories(node: RunNode): Promise<void> {
  await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.file(runTranscriptFile(node.run)));
}

export interface TranscriptArg {
  run: RunInfo;
  episode: EpisodeTrajectory;
}

/** Clicking an episode or a turn in the Rollouts view: its transcript beside the editor. */
export async function openEpisodeTranscript(arg: TranscriptArg): Promise<void> {
  await vscode.commands.executeCommand('markdown.showPreviewToSide', vscode.Uri.file(transcriptFile(arg.run, arg.episode)));
}
