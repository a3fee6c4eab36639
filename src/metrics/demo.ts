// "Agent RL: Start Demo Run": runs the demo's stand-in trainer (demo/demo_trainer.py, shipped in
// the VSIX; "demo: simulated trainer") into <workspace>/.agentrl/demo/ and connects the metrics
// view to its job dir. In the `npm start` sandbox the demo already runs: it is connected instead.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DEMO_NAME, SANDBOX_FALLBACK_URL, firstAnswering, readSandboxMarker } from '../workspace-files/sandbox';
import { connect } from './commands';
import type { MetricsHost } from './metrics-host';

/** A job dir written to this recently is a demo still running. */
const RUNNING_MS = 30_000;

function recentlyWritten(dir: string): boolean {
  try {
    return Date.now() - fs.statSync(path.join(dir, 'explorer_meta.json')).mtimeMs < RUNNING_MS;
  } catch {
    return false;
  }
}

export async function startDemo(host: MetricsHost, args?: { steps?: number; stepSeconds?: number }): Promise<string | undefined> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!folder) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Agent RL: open a folder first; the demo run writes its job dir there.'));
    return undefined;
  }
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Agent RL: the demo run is disabled in an untrusted workspace.'));
    return undefined;
  }
  const marker = readSandboxMarker(folder);
  if (marker?.demo && recentlyWritten(marker.demo.jobDir)) {
    return connect(host, { dir: marker.demo.jobDir, mode: 'job', name: DEMO_NAME });
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const jobDir = path.join(folder, '.agentrl', 'demo', `demo-${stamp}`);
  fs.mkdirSync(jobDir, { recursive: true });
  const modelUrl = (await firstAnswering([...(marker?.model ? [marker.model] : []), SANDBOX_FALLBACK_URL])) ?? '';
  const script = host.context.asAbsolutePath(path.join('demo', 'demo_trainer.py'));
  const python = process.platform === 'win32' ? 'python' : 'python3';
  const argv = [
    script,
    '--job-dir',
    jobDir,
    '--model-url',
    modelUrl,
    '--steps',
    String(args?.steps ?? 300),
    '--step-seconds',
    String(args?.stepSeconds ?? 1),
    '--model-path',
    marker?.modelPath ?? '',
  ];
  // The sample workspace's tool-calling task, when this folder has it: the demo's rows then
  // carry their task_index into its taskset, and Debug This Rollout replays them through it.
  const toolcall = path.join(folder, 'toolcall');
  if (fs.existsSync(path.join(toolcall, 'toolcall.yaml')))
    argv.push('--taskset', path.join(toolcall, 'data', 'train.jsonl'), '--workflow-config', path.join(toolcall, 'toolcall.yaml'));
  const child = spawn(python, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  // Stopped with the window (the script also ends by itself after its steps).
  host.context.subscriptions.push({ dispose: () => void child.kill('SIGTERM') });
  child.stdout?.on('data', (b: Buffer) => host.log.info(String(b).trim()));
  child.stderr?.on('data', (b: Buffer) => host.log.warn(`demo: ${String(b).trim()}`));
  const started = await new Promise<boolean>((resolve) => {
    child.once('spawn', () => resolve(true));
    child.once('error', (e) => {
      host.log.error(`demo: ${python}: ${e.message}`);
      resolve(false);
    });
  });
  if (!started) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Agent RL: the demo run needs Python 3 ({0} was not found).', python));
    return undefined;
  }
  host.log.info(`demo: ${DEMO_NAME} in ${jobDir}${modelUrl ? `, rollouts on ${modelUrl}` : ', no model answers: simulated rewards'}`);
  return connect(host, { dir: jobDir, mode: 'job', name: DEMO_NAME });
}
