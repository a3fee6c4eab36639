// "Agent RL: Run the Demo on Ray": the newcomer's whole cluster flow without a GPU
// — a cluster (a local single-node one, started only when the user agrees), the demo trainer as
// a Ray job, its logs streaming, its nodes and job in the Ray view, and its live charts.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SANDBOX_FALLBACK_URL, firstAnswering, readSandboxMarker } from '../workspace-files/sandbox';
import { describeError, startLocal, watchMetrics, type SubmitResult } from './commands';
import type { RayHost } from './ray-host';
import { prepareDemoRun } from './submit/demo-run';
import { submitRun } from './submit/submit';

export interface DemoArgs {
  cluster?: string;
  steps?: number;
  stepSeconds?: number;
  /** '' runs without a model (simulated rewards). Default: the sandbox's model if it answers. */
  modelUrl?: string;
  /** The interpreter on the nodes (default python3; the trainer needs only the standard library). */
  python?: string;
}

export interface DemoResult extends SubmitResult {
  jobDir: string;
}

async function clusterFor(host: RayHost, url?: string) {
  if (url) return host.get(url);
  if (host.clusters.size === 1) return [...host.clusters.values()][0];
  if (host.clusters.size > 1) {
    const pick = await vscode.window.showQuickPick(
      [...host.clusters.values()].map((x) => ({ label: x.monitor.snapshot.name, description: x.monitor.client.url, url: x.monitor.client.url })),
      { title: vscode.l10n.t('Which Ray cluster?') },
    );
    return pick ? host.get(pick.url) : undefined;
  }
  // No cluster yet: the local one costs memory and time, so startLocal asks first.
  const started = await startLocal(host);
  return started ? host.get(started) : undefined;
}

export async function runDemo(host: RayHost, args: DemoArgs = {}): Promise<DemoResult | undefined> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Agent RL: Ray clusters are disabled in an untrusted workspace.'));
    return undefined;
  }
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  if (!workspace) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Agent RL: open a folder first; the demo run writes its job dir there.'));
    return undefined;
  }
  const cluster = await clusterFor(host, args.cluster);
  if (!cluster) return undefined;
  const marker = readSandboxMarker(workspace);
  const modelUrl = args.modelUrl ?? (await firstAnswering([...(marker?.model ? [marker.model] : []), SANDBOX_FALLBACK_URL])) ?? '';
  const name = `ray-demo-${new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)}`;
  const client = cluster.monitor.client;
  let result: DemoResult;
  try {
    const demo = prepareDemoRun({
      baseDir: path.join(workspace, '.agentrl', 'ray-demo'),
      script: host.context.asAbsolutePath(path.join('demo', 'demo_trainer.py')),
      name,
      steps: args.steps ?? 300,
      stepSeconds: args.stepSeconds ?? 1,
      modelUrl,
      python: args.python,
    });
    // The job dir exists before the job starts, so the metrics view can watch it from the first
    // step when the cluster shares this disk (a local cluster); elsewhere a relay job reads it.
    fs.mkdirSync(demo.info.jobDir, { recursive: true });
    const cliBundle = host.context.asAbsolutePath(path.join('dist', 'agentrl.js'));
    const submitted = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Run the Demo on Ray') }, () =>
      submitRun(client, {
        folder: demo.folder,
        config: demo.config,
        info: demo.info,
        entrypoint: demo.entrypoint,
        limitBytes: 16 * 2 ** 20,
        cliBundle: fs.existsSync(cliBundle) ? cliBundle : undefined,
      }),
    );
    host.log.info(
      `ray: demo run ${name} submitted as ${submitted.submissionId} to ${client.url}${modelUrl ? `, rollouts on ${modelUrl}` : ', no model: simulated rewards'}`,
    );
    host.showLogs(client.url, submitted.submissionId);
    cluster.poller.now();
    result = { submissionId: submitted.submissionId, cluster: client.url, entrypoint: demo.entrypoint, jobDir: demo.info.jobDir };
    // Same machine (a local cluster): the metrics view reads the job dir; else a relay job.
    result.relay = await watchMetrics(host, {
      cluster: client.url,
      id: submitted.submissionId,
      relay: 'auto',
      packageUri: submitted.pkg.uri,
      jobDir: demo.info.jobDir,
      run: name,
    });
  } catch (e) {
    const msg = describeError(e);
    host.log.warn(`ray: demo run failed: ${msg}`);
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not run the demo on Ray: {0}', msg));
    return undefined;
  }
  return result;
}
