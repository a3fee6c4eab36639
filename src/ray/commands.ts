// The Ray commands' flows. Each takes arguments too (scripts, tests, keybindings), so no UI is
// needed: connect({url, name}), submit({config, cluster, entrypoint?, …}), stop/delete/showLogs
// ({cluster, id}), watchMetrics({cluster, id, relay?}), startLocalCluster({port?}).
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { METRICS_CONNECT, RAY_WATCH_METRICS, type Revive } from '../feature-api/commands';
import { META } from './api/api-types';
import { normalizeDashboardUrl, RayError, type RayClient } from './api/client';
import { runProbeJob } from './diagnostics/trinity-probe';
import { pausedSupport } from './paused/support';
import { debugpyProbeRequest, debugRun, debugTagsOfLaunch, parseDebugpyProbe, type DebugpyProbe, type DebugRunOptions } from './submit/debug-run';
import { relaysOf } from './cluster/relay-reaper';
import { configTarget, isFileRef } from './submit/config-target';
import { deriveEntrypoint, runInfo, type RunInfo } from './submit/entrypoint';
import type { RayHost } from './ray-host';
import { startLocalCluster, stopLocalCluster } from './cluster/local-cluster';
import { jobDirPlace, waitForDir } from './submit/local-job-dir';
import { PackageTooLargeError } from './submit/package';
import { pinResource, reachable, tunnelHint } from './submit/relay-job';
import { startRelayJob, submitRun } from './submit/submit';

/** A localized message for an error from the Ray client or the packer. */
export function describeError(e: unknown): string {
  if (e instanceof RayError) {
    switch (e.kind) {
      case 'unreachable':
        return vscode.l10n.t(
          'Cannot reach the Ray dashboard at {0} ({1}). Is the cluster running and the SSH tunnel open (ssh -L 8265:127.0.0.1:8265 <head-node>)?',
          e.url,
          e.detail ?? '',
        );
      case 'not-ray':
        return vscode.l10n.t('{0} does not look like a Ray dashboard: {1}', e.url, e.message);
      case 'refused':
        return vscode.l10n.t('Ray refused the job: {0}', e.detail ?? e.message);
      case 'http':
        return vscode.l10n.t('The Ray dashboard at {0} returned an error (HTTP {1}): {2}', e.url, String(e.status ?? '?'), e.detail ?? e.message);
      default:
        return e.message;
    }
  }
  if (e instanceof PackageTooLargeError) return vscode.l10n.t('The workspace folder is too large to upload to Ray: {0}', e.message);
  return e instanceof Error ? e.message : String(e);
}

function untrusted(): boolean {
  if (vscode.workspace.isTrusted) return false;
  void vscode.window.showWarningMessage(vscode.l10n.t('Agent RL: Ray clusters are disabled in an untrusted workspace.'));
  return true;
}

export async function connect(host: RayHost, args?: { url?: string; name?: string }): Promise<string | undefined> {
  if (untrusted()) return undefined;
  let url = args?.url;
  let name = args?.name;
  if (!url) {
    const configured = host.settingsSnapshot().clusters;
    if (configured.length) {
      const pick = await vscode.window.showQuickPick(
        [
          ...configured.map((c) => ({ label: c.name ?? c.url, description: c.url, url: c.url })),
          { label: vscode.l10n.t('Other dashboard URL…'), description: '', url: '' },
        ],
        { title: vscode.l10n.t('Connect to Ray Cluster') },
      );
      if (!pick) return undefined;
      url = pick.url;
      if (url) name = pick.label;
    }
    url ||= await vscode.window.showInputBox({
      title: vscode.l10n.t('Connect to Ray Cluster'),
      prompt: vscode.l10n.t('The Ray dashboard URL (usually an SSH tunnel to the head node: ssh -L 8265:127.0.0.1:8265 <head-node>)'),
      value: 'http://127.0.0.1:8265',
      ignoreFocusOut: true,
      validateInput: (v) => {
        try {
          normalizeDashboardUrl(v);
          return undefined;
        } catch {
          return vscode.l10n.t('Not a URL: {0}', v);
        }
      },
    });
    if (!url) return undefined;
  }
  let normalized: string;
  try {
    normalized = normalizeDashboardUrl(url);
  } catch {
    void vscode.window.showErrorMessage(vscode.l10n.t('Not a URL: {0}', url));
    return undefined;
  }
  const entry = host.add(normalized, name);
  try {
    const v = await entry.monitor.client.version();
    await host.remember(entry.monitor.client.url, name);
    host.log.info(`ray: connected to ${normalized} (Ray ${v.ray_version})`);
    void vscode.commands.executeCommand('agentrl.ray.focus');
    return entry.monitor.client.url;
  } catch (e) {
    const msg = describeError(e);
    host.log.warn(`ray: ${msg}`);
    void vscode.window.showErrorMessage(msg);
    await host.remove(entry.monitor.client.url);
    return undefined;
  }
}

async function pickCluster(host: RayHost, url?: string) {
  const c = host.get(url);
  if (c) return c;
  if (url) {
    const added = await connect(host, { url });
    return added ? host.get(added) : undefined;
  }
  const pick = await vscode.window.showQuickPick(
    [...host.clusters.values()].map((x) => ({ label: x.monitor.snapshot.name, description: x.monitor.client.url, url: x.monitor.client.url })),
    { title: vscode.l10n.t('Which Ray cluster?'), placeHolder: host.clusters.size ? undefined : vscode.l10n.t('No cluster connected yet') },
  );
  if (pick) return host.get(pick.url);
  const added = host.clusters.size ? undefined : await connect(host);
  return added ? host.get(added) : undefined;
}

export interface SubmitArgs {
  config?: string;
  cluster?: string;
  entrypoint?: string;
  env?: Record<string, string>;
  numGpus?: number;
  numCpus?: number;
  resources?: Record<string, number>;
  /** After submitting: start a relay and connect the metrics view ('auto' prefers a local job dir). */
  metrics?: 'auto' | 'cluster' | 'local' | 'none';
  /** The resource pinning the relay (default: the run's custom resource or its driver's node). */
  relayResource?: string;
  /** The debug variant: Ray's debugger on (RAY_DEBUG=1), post-mortem on request, debugpy added when
   *  the cluster lacks it, AgentJet's `--debug=TAGS` (default: the config's launch entry's `debugTags`). */
  debug?: DebugRunOptions;
}

export interface SubmitResult {
  submissionId: string;
  cluster: string;
  entrypoint: string;
  relay?: { submissionId?: string; url?: string; dir?: string; tunnel?: string };
  /** The debug variant: whether the cluster had debugpy (false: pip-installed into the job's env; undefined: the check failed). */
  debug?: { debugpy?: boolean; ray?: string; envVars: Record<string, string>; pip?: string[] };
}

/** The active tab's file, when it is a text editor (set before its text has loaded). */
function activeTabUri(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  return input instanceof vscode.TabInputText ? input.uri : undefined;
}

/** "Debug on Ray Cluster…": "Run on Ray Cluster…" with Ray's debugger on (SubmitArgs.debug). */
export const debugSubmit = (host: RayHost, arg?: SubmitArgs | vscode.Uri): Promise<SubmitResult | undefined> => submit(host, arg, {});

/** The debug variant's options: post-mortem asked for when not given, the tags from the config's launch entry. */
async function debugOptions(given: DebugRunOptions, file: string, folder: string): Promise<DebugRunOptions | undefined> {
  let postMortem = given.postMortem;
  if (postMortem === undefined) {
    const pick = await vscode.window.showQuickPick(
      [
        { label: vscode.l10n.t('Stop at breakpoints'), postMortem: false },
        { label: vscode.l10n.t('Stop at breakpoints and where a task raises (post-mortem)'), postMortem: true },
      ],
      { title: vscode.l10n.t('Debug on Ray Cluster') },
    );
    if (!pick) return undefined;
    postMortem = pick.postMortem;
  }
  const launch = vscode.workspace.getConfiguration('launch', vscode.Uri.file(folder)).get<unknown[]>('configurations');
  return { postMortem, debugTags: given.debugTags ?? debugTagsOfLaunch(launch, file, folder) };
}

/** Asks the cluster whether its Python has debugpy (a probe job); says what it found and what follows. */
async function checkDebugpy(host: RayHost, client: RayClient, resources?: Record<string, number>): Promise<DebugpyProbe | undefined> {
  const pin = Object.keys(resources ?? {}).find((k) => !['CPU', 'GPU', 'memory', 'object_store_memory'].includes(k));
  const r = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Checking whether the Ray cluster has debugpy…') },
    () => runProbeJob(client, debugpyProbeRequest(pin), parseDebugpyProbe, { timeoutMs: 120_000, log: host.log }),
  );
  if ('error' in r) {
    host.log.warn(`ray: debugpy probe: ${r.error}`);
    void vscode.window.showWarningMessage(
      vscode.l10n.t('Could not check whether the Ray cluster has debugpy ({0}): adding debugpy to the job’s runtime env (pip).', r.error),
    );
    return undefined;
  }
  const support = pausedSupport(r.answer.ray, []);
  if (!support.ok)
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'Ray {0} on this cluster does not report paused tasks (num_paused_threads, from Ray {1} on): breakpoints will pause the job but the Ray view cannot list them. Upgrade Ray on the cluster.',
        support.rayVersion,
        support.since,
      ),
    );
  void vscode.window.showInformationMessage(
    r.answer.debugpy
      ? vscode.l10n.t('Debugging on Ray {0}: RAY_DEBUG=1 is set; the cluster has debugpy.', r.answer.ray)
      : vscode.l10n.t('Debugging on Ray {0}: RAY_DEBUG=1 is set; the cluster lacks debugpy, so it is added to the job’s runtime env (pip).', r.answer.ray),
  );
  return r.answer;
}

/** `arg`: SubmitArgs, or the editor's URI when run from the editor title / context menu. */
export async function submit(host: RayHost, arg: SubmitArgs | vscode.Uri = {}, debug?: DebugRunOptions): Promise<SubmitResult | undefined> {
  if (untrusted()) return undefined;
  const args: SubmitArgs = isFileRef(arg) ? { debug } : { ...arg, debug: arg.debug ?? debug };
  const file = args.config ?? configTarget(isFileRef(arg) ? arg : undefined, vscode.window.activeTextEditor?.document.uri, activeTabUri());
  if (!file) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Open a training config (YAML) first.'));
    return undefined;
  }
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(file))?.uri.fsPath ?? path.dirname(file);
  // The config is checked first: errors stop the submission, as for debugging.
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file);
  const checked = await host.checker().check(file, doc?.getText());
  if (!checked.kind) {
    void vscode.window.showErrorMessage(vscode.l10n.t('{0} is not a Trinity-RFT, ASTuner or AgentJet config.', path.basename(file)));
    return undefined;
  }
  const errors = checked.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length) {
    void vscode.window.showErrorMessage(
      vscode.l10n.t('The config has {0} error(s); fix them before running on Ray: {1}', String(errors.length), errors[0].message),
    );
    return undefined;
  }
  const info: RunInfo = runInfo(checked.kind, checked.resolved);
  const rel = path.relative(folder, file).split(path.sep).join('/');
  const debugOpts = args.debug ? await debugOptions(args.debug, file, folder) : undefined;
  if (args.debug && !debugOpts) return undefined;
  let entrypoint = args.entrypoint ?? deriveEntrypoint(info, rel);
  if (debugOpts) entrypoint = debugRun(checked.kind, entrypoint, undefined, debugOpts, true).entrypoint;
  if (!args.entrypoint) {
    const edited = await vscode.window.showInputBox({
      title: debugOpts ? vscode.l10n.t('Debug on Ray Cluster') : vscode.l10n.t('Run on Ray Cluster'),
      prompt: vscode.l10n.t('Entrypoint (runs in the uploaded workspace folder)'),
      value: entrypoint,
      ignoreFocusOut: true,
    });
    if (!edited) return undefined;
    entrypoint = edited;
  }
  const cluster = await pickCluster(host, args.cluster);
  if (!cluster) return undefined;
  const client = cluster.monitor.client;
  const limitBytes = host.settingsSnapshot().packageLimitMB * 2 ** 20;
  let envVars = args.env ?? vscode.workspace.getConfiguration('agentrl.ray').get<Record<string, string>>('envVars');
  let debugged: SubmitResult['debug'];
  if (debugOpts) {
    const probe = await checkDebugpy(host, client, args.resources);
    const d = debugRun(checked.kind, entrypoint, envVars, debugOpts, probe?.debugpy ?? false);
    envVars = d.envVars;
    debugged = { debugpy: probe?.debugpy, ray: probe?.ray, envVars: d.envVars, pip: d.pip };
  }
  const cliBundle = path.join(host.context.extensionPath, 'dist', 'agentrl.js');
  let submitted;
  try {
    submitted = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Run on Ray Cluster'), cancellable: true },
      (progress, token) =>
        submitRun(client, {
          folder,
          config: file,
          info,
          entrypoint,
          limitBytes,
          cliBundle: fs.existsSync(cliBundle) ? cliBundle : undefined,
          envVars,
          pip: debugged?.pip,
          numGpus: args.numGpus,
          numCpus: args.numCpus,
          resources: args.resources,
          onProgress: (stage, detail) =>
            progress.report({
              message:
                stage === 'pack'
                  ? vscode.l10n.t('packing {0}', detail)
                  : stage === 'upload'
                    ? vscode.l10n.t('uploading {0}', detail)
                    : vscode.l10n.t('submitting {0}', detail),
            }),
          cancelled: () => token.isCancellationRequested,
        }),
    );
  } catch (e) {
    const msg = describeError(e);
    host.log.warn(`ray: submit failed: ${msg}`);
    void vscode.window.showErrorMessage(msg);
    return undefined;
  }
  host.log.info(`ray: submitted ${submitted.submissionId} to ${client.url} (${submitted.pkg.name}, ${submitted.uploaded ? 'uploaded' : 'reused'})`);
  host.showLogs(client.url, submitted.submissionId);
  cluster.poller.now();
  const result: SubmitResult = { submissionId: submitted.submissionId, cluster: client.url, entrypoint, debug: debugged };
  const mode = args.metrics ?? 'auto';
  if (mode !== 'none' && info.kind === 'trinity' && info.jobDir) {
    result.relay = await watchMetrics(host, {
      cluster: client.url,
      id: submitted.submissionId,
      relay: mode,
      resource: args.relayResource ?? pinResource({} as never, [], args.resources),
      packageUri: submitted.pkg.uri,
      jobDir: info.jobDir,
      run: info.name,
    });
  }
  return result;
}

export interface WatchArgs {
  cluster?: string;
  id?: string;
  relay?: 'auto' | 'cluster' | 'local';
  resource?: string;
  packageUri?: string;
  jobDir?: string;
  run?: string;
  /** Set when the metrics view brings back a relay that is gone: the connection it replaces. */
  replaces?: string;
}

/** Whether the job dir is on this machine; on shared storage (its parent is here) the trainer
 *  may not have created it yet, so wait for it a little before concluding it is not. */
async function localJobDir(jobDir: string): Promise<boolean> {
  const place = jobDirPlace(jobDir);
  if (place !== 'maybe-soon') return place === 'here';
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Waiting for the run to create {0}…', jobDir), cancellable: true },
    (_progress, token) => waitForDir(jobDir, { timeoutMs: 60_000, cancelled: () => token.isCancellationRequested }),
  );
}

/** Metrics without scp: a local job dir (shared storage / Remote-SSH on the head) or a relay job. */
export async function watchMetrics(host: RayHost, a: WatchArgs): Promise<SubmitResult['relay']> {
  const cluster = await pickCluster(host, a.cluster);
  if (!cluster || !a.id) return undefined;
  const client = cluster.monitor.client;
  const job = await client.job(a.id);
  const meta = job.metadata ?? {};
  const jobDir = a.jobDir ?? meta[META.jobDir];
  const run = a.run ?? meta[META.name];
  if (!jobDir) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Job {0} names no job dir (not submitted from a Trinity config).', a.id));
    return undefined;
  }
  // A relative job dir is relative to the run's working_dir on the node: never a local path.
  if ((a.relay ?? 'auto') !== 'cluster' && (await localJobDir(jobDir))) {
    await METRICS_CONNECT.run(vscode.commands, { dir: jobDir, mode: 'job', name: run, run });
    return { dir: jobDir };
  }
  if (a.relay === 'local') {
    void vscode.window.showErrorMessage(vscode.l10n.t('The job dir {0} is not on this machine.', jobDir));
    return undefined;
  }
  const packageUri = a.packageUri ?? (job.runtime_env?.working_dir as string | undefined);
  if (!packageUri) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Job {0} has no uploaded package to start the relay from.', a.id));
    return undefined;
  }
  let nodes = await client.nodes();
  let resource = a.resource;
  // Without a resource, pin next to the run's driver: wait (briefly) until Ray has placed it.
  for (let i = 0; !resource && i < 60; i++) {
    const j = i === 0 ? job : await client.job(a.id);
    resource = pinResource(j, nodes);
    if (!resource) await new Promise((r) => setTimeout(r, 500));
    nodes = await client.nodes();
  }
  // Brought back by the metrics view: a relay of this run that still runs is only out of reach
  // (a closed SSH tunnel); a second one would not help.
  if (a.replaces && relaysOf(await client.jobs(), a.id).length) {
    host.log.info(`ray: the relay of ${a.id} still runs but cannot be reached; not starting another`);
    return undefined;
  }
  const token = randomBytes(24).toString('base64url');
  let relay;
  try {
    relay = await startRelayJob(client, { packageUri, jobDir, forRun: a.id, runName: run, resource, token });
  } catch (e) {
    const msg = describeError(e);
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not start the relay on the cluster: {0}', msg));
    return undefined;
  }
  await host.context.secrets.store(`agentrl.ray.relayToken:${relay.submissionId}`, token);
  cluster.poller.now();
  if (!(await reachable(relay.url))) {
    // The node the relay job landed on (its driver), else the one the pin names.
    const driver = (await client.job(relay.submissionId).catch(() => undefined))?.driver_node_id;
    const ip = nodes.find((n) => n.node_id === driver)?.node_ip ?? nodes.find((n) => resource === `node:${n.node_ip}`)?.node_ip ?? '<node>';
    const tunnel = tunnelHint(relay.url, ip);
    void vscode.window.showWarningMessage(
      vscode.l10n.t('The relay runs at {0} on the cluster but is not reachable from here. Open an SSH tunnel: {1}', relay.url, tunnel),
    );
    return { submissionId: relay.submissionId, url: relay.url, tunnel };
  }
  // Once the relay ends itself (idle, RELAY_JOB_IDLE_EXIT_S), the metrics view calls this again.
  const revive: Revive = { command: RAY_WATCH_METRICS.id, args: { cluster: client.url, id: a.id, relay: 'cluster' } };
  await METRICS_CONNECT.run(vscode.commands, {
    url: relay.url,
    token,
    name: `ray:${run ?? a.id}`,
    run,
    revive,
    replaces: a.replaces,
    reveal: a.replaces ? false : undefined,
  });
  return { submissionId: relay.submissionId, url: relay.url };
}

/** A run the user stopped needs its relay no longer: no grace period, unlike a run that ends. */
async function stopRelays(host: RayHost, client: RayClient, run: string): Promise<void> {
  try {
    for (const relay of relaysOf(await client.jobs(), run)) {
      await client.stop(relay);
      host.log.info(`ray: stopped relay ${relay} with its run ${run}`);
    }
  } catch (e) {
    // The run did stop; the poll stops the relay once the grace period is over.
    host.log.warn(`ray: could not stop the relay of ${run} yet: ${describeError(e)}`);
  }
}

async function jobAction(host: RayHost, what: 'stop' | 'delete', a?: { cluster?: string; id?: string }): Promise<boolean> {
  const cluster = await pickCluster(host, a?.cluster);
  const id = a?.id;
  if (!cluster || !id) return false;
  try {
    const ok = what === 'stop' ? await cluster.monitor.client.stop(id) : await cluster.monitor.client.delete(id);
    if (what === 'stop') await stopRelays(host, cluster.monitor.client, id);
    cluster.poller.now();
    return ok;
  } catch (e) {
    void vscode.window.showErrorMessage(describeError(e));
    return false;
  }
}

export const stopJob = (host: RayHost, a?: { cluster?: string; id?: string }) => jobAction(host, 'stop', a);
export const deleteJob = (host: RayHost, a?: { cluster?: string; id?: string }) => jobAction(host, 'delete', a);

export async function startLocal(host: RayHost, a?: { port?: number; resources?: Record<string, number> }): Promise<string | undefined> {
  if (untrusted()) return undefined;
  if (!a) {
    const ok = await vscode.window.showInformationMessage(
      vscode.l10n.t('Start a local single-node Ray cluster? It uses about 1 GB of memory and takes about 10 s. The dashboard stays on 127.0.0.1.'),
      { modal: true },
      vscode.l10n.t('Start'),
    );
    if (!ok) return undefined;
  }
  const ray = host.settingsSnapshot().rayPath;
  try {
    const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting a local Ray cluster…') }, () =>
      startLocalCluster({ ray, dashboardPort: a?.port ?? 8265, resources: a?.resources }),
    );
    host.log.info(`ray: local cluster started: ${r.dashboardUrl}`);
    return await connect(host, { url: r.dashboardUrl, name: vscode.l10n.t('local cluster') });
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not start a local Ray cluster with {0}: {1}', ray, (e as Error).message));
    return undefined;
  }
}

export async function stopLocal(host: RayHost): Promise<boolean> {
  const r = await stopLocalCluster(host.settingsSnapshot().rayPath);
  for (const c of [...host.clusters.values()])
    if (/^http:\/\/127\.0\.0\.1:/.test(c.monitor.client.url) && c.monitor.snapshot.name === vscode.l10n.t('local cluster'))
      await host.remove(c.monitor.client.url);
  return r.code === 0;
}
