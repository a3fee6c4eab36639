// "Agent RL: Start Demo Run": runs the demo's stand-in trainer (demo/demo_trainer.py, shipped in
// the VSIX; "demo: simulated trainer") into <workspace>/.agentrl/demo/ and connects the metrics
// view to its job dir. In the `npm start` sandbox the demo already runs: it is connected instead.
// One demo run at a time: a restarted demo replaces the one before (its connection, its points),
// so the new run has the charts, their axes and the one "demo: simulated trainer" chip to itself.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DEMO_NAME, SANDBOX_FALLBACK_URL, firstAnswering, readSandboxMarker } from '../workspace-files/sandbox';
import { connect } from './commands';
import { endpointId, forgetConnection, savedConnections } from './endpoints';
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

/**
 * Connects the view to a demo run's job dir, first forgetting every other demo run (saved
 * connection, cursors, and the points, experiences and start of its runs).
 */
export async function connectDemo(host: MetricsHost, jobDir: string, reveal = true): Promise<string | undefined> {
  const older = savedConnections(host.context.workspaceState).filter((c) => c.name === DEMO_NAME && c.dir && path.resolve(c.dir) !== path.resolve(jobDir));
  if (older.length) {
    const ids = older.map(endpointId);
    const runs = new Set(older.map((c) => c.run ?? path.basename(c.dir!)));
    for (const st of host.statuses()) if (ids.includes(st.id)) for (const r of st.runs) runs.add(r);
    for (const id of ids) {
      await forgetConnection(host.context.workspaceState, id);
      host.store.forgetEndpoint(id);
    }
    await host.reconnect(); // the old demo's relay stops before its runs are forgotten
    // A job dir's stage runs are named `<run>/<stage>` (relay discovery).
    for (const r of host.store.runs()) if ([...runs].some((o) => r === o || r.startsWith(`${o}/`))) host.store.forgetRun(r);
    host.store.flush();
    host.controller.refresh();
    host.log.info(`demo: ${older.map((c) => c.dir).join(', ')} replaced by ${jobDir}`);
  }
  return connect(host, { dir: jobDir, mode: 'job', name: DEMO_NAME, reveal });
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
    return connectDemo(host, marker.demo.jobDir);
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  let jobDir = path.join(folder, '.agentrl', 'demo', `demo-${stamp}`);
  for (let n = 2; fs.existsSync(jobDir); n++) jobDir = path.join(folder, '.agentrl', 'demo', `demo-${stamp}-${n}`);
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
  return connectDemo(host, jobDir);
}
