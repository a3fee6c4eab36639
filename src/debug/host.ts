// The rollout debugger's extension-host bundle (dist/debug-host.js), loaded on first use so
// activation stays cheap: the DAP session (@vscode/debugadapter), the gateway (openai SDK),
// the configuration provider and the Rollouts view.
import * as path from 'path';
import * as vscode from 'vscode';
import { FORK_EDITED_TRANSCRIPT, FORK_ORIGINAL_TRANSCRIPT } from './trajectory/trajectory';
import type { ConfigChecker } from '../feature-api/config-checker';
import type { ExperienceReader } from '../feature-api/experience-reader';
import type { RolloutService } from '../feature-api/rollouts';
import { DebugRolloutService } from './rollout-service';
import type { Logger } from '../base/log';
import { RolloutDebugSession } from './dap/session';
import { RolloutConfigurationProvider } from './vscode/configurations';
import { attachPythonDebugger } from './vscode/python';
import { RolloutsTree, runTranscriptFile, transcriptFile } from './vscode/rollouts-tree';
import type { RunInfo } from './results/run-store';
import type { EpisodeTrajectory } from './trajectory/trajectory';

export { RolloutConfigurationProvider, RolloutsTree };
export { showCallTokens, showExperienceTokens, type VariableMenuArg } from './vscode/tokens-panel';

export function createAdapter(
  session: vscode.DebugSession,
  checker: ConfigChecker,
  log: Logger,
  runnerDir: string,
  experiences?: () => ExperienceReader,
): vscode.DebugAdapterInlineImplementation {
  const rollout = (session.configuration as { rollout?: unknown }).rollout;
  const dap = new RolloutDebugSession({
    checker,
    // Loaded only for a session that replays a training run's experience.
    ...(rollout !== undefined && experiences ? { experiences: experiences() } : {}),
    logger: log,
    runnerDir,
    l10n: vscode.l10n,
    startPythonDebugger: (endpoint) => attachPythonDebugger(session, endpoint),
  });
  return new vscode.DebugAdapterInlineImplementation(dap);
}

export type { RolloutNode } from './vscode/rollouts-tree';
type RunNode = Extract<import('./vscode/rollouts-tree').RolloutNode, { kind: 'run' }>;

/** Debugs the run again from its recording: no model needed. */
export function replayRun(node: RunNode): Thenable<boolean> {
  const l = node.run.launch ?? {};
  const keep = ['config', 'workflow', 'tasks', 'split', 'repeat', 'cwd', 'python', 'env'] as const;
  const config: vscode.DebugConfiguration = { type: 'agentrl', request: 'launch', name: vscode.l10n.t('Replay {0}', node.run.id), replay: node.run.dir };
  for (const k of keep) if (l[k] !== undefined) config[k] = l[k];
  return vscode.debug.startDebugging(node.folder, config);
}

/** The two branches of a fork side by side: original (left) and edited (right) transcripts. */
export async function compareFork(node: Extract<import('./vscode/rollouts-tree').RolloutNode, { kind: 'fork' }>): Promise<void> {
  const left = vscode.Uri.file(path.join(node.dir, FORK_ORIGINAL_TRANSCRIPT));
  const right = vscode.Uri.file(path.join(node.dir, FORK_EDITED_TRANSCRIPT));
  await vscode.commands.executeCommand('vscode.diff', left, right, vscode.l10n.t('{0}: original ↔ edited', node.info.episode));
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

/** The debugger's headless runs and recorded runs for other features (the model comparison). */
export function createRolloutService(checker: ConfigChecker, runnerDir: string): RolloutService {
  return new DebugRolloutService(checker, runnerDir);
}
