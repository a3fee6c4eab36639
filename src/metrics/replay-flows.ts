// Bringing a training run's experience home: "Debug this rollout" (an `agentrl` debug session
// that replays one experience through the workspace's workflow and reward: the debugger's
// `rollout` launch attribute) and "Re-score" (the current reward code over every experience of
// a range of steps: `agentrl eval --rescore --from-job`). Both need the run's job dir (or relay
// URL) and the workflow config it was trained with (src/metrics/replay/run-config.ts; asked
// with a quick pick when several fit). Nothing here imports the debugger: the metrics feature
// starts the debug session itself.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { MetricsHost } from './metrics-host';
import type { ExperienceRef } from './protocol/experience-rows';
import type { RescoreResult } from './protocol/rescore';
import { configCandidates, configIdentity, jobConfigCopy, type ConfigCandidate, type RunConfigFile } from './replay/run-config';
import { launchEntryFor, replayLaunchConfig } from './replay/launch-config';
import { parseRescore, parseStepRange } from './replay/rescore-result';

const EXCLUDE = '**/{node_modules,.git,.venv,venv,.agentrl,checkpoints,saved_experiments,.cache,dist,out}/**';
/** Cheap text sniff before parsing a YAML as a Trinity-RFT config. */
const LOOKS_TRINITY = /^buffer:/m;
/** How long reading the experience through the relay may take before the command says so. */
const READ_TIMEOUT_MS = 20_000;
/** A re-score that has not finished after this long is stopped (the debugger bounds each row; this bounds the whole). */
const RESCORE_TIMEOUT_MS = 15 * 60_000;

/** A run the metrics view reads, ready to replay: where its experiences are and the config to replay them with. */
interface ReplayTarget {
  fromJob: string;
  config: string;
  folder: vscode.WorkspaceFolder | undefined;
  env: Record<string, string>;
}

/** What a flow told the user when it did not go on (the command's answer: scripts and tests read it). */
interface Refused {
  refused: string;
}

/** Shows `message` as an error; the flow's answer. */
function refuse(message: string): Refused {
  void vscode.window.showErrorMessage(message);
  return { refused: message };
}

function untrusted(): Refused | undefined {
  if (vscode.workspace.isTrusted) return undefined;
  return refuse(
    vscode.l10n.t("Agent RL: replaying a training rollout runs the workspace's workflow and reward code: trust this workspace first (Workspace Trust)."),
  );
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(vscode.l10n.t('the relay did not answer within {0} s', String(ms / 1000)))), ms);
    }),
  ]);
}

/** The workspace's Trinity-RFT configs (project, name, whether they can run). */
async function workspaceConfigs(): Promise<RunConfigFile[]> {
  const files = await vscode.workspace.findFiles('**/*.{yaml,yml}', EXCLUDE, 200);
  const out: RunConfigFile[] = [];
  for (const uri of files.sort((a, b) => a.fsPath.localeCompare(b.fsPath))) {
    const text = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
    if (!LOOKS_TRINITY.test(text)) continue;
    const id = configIdentity(uri.fsPath, text);
    if (id) out.push(id);
  }
  return out;
}

async function pickConfig(candidates: ConfigCandidate[]): Promise<string | undefined> {
  if (candidates.length === 1) return candidates[0].file;
  const why: Record<ConfigCandidate['why'], string> = {
    'same-run': vscode.l10n.t('same project and name as the run'),
    'job-copy': vscode.l10n.t("the job dir's copy of the run's config"),
    workspace: vscode.l10n.t('a workflow config of this workspace'),
  };
  const pick = await vscode.window.showQuickPick(
    candidates.map((c) => ({ label: vscode.workspace.asRelativePath(c.file), description: why[c.why], file: c.file })),
    { title: vscode.l10n.t('Which workflow config replays this run?'), placeHolder: vscode.l10n.t('Its workflow, taskset and reward are used') },
  );
  return pick?.file;
}

/** Where the endpoint's run is and which config replays it; refused (the user was told why), or undefined: cancelled. */
async function replayTarget(host: MetricsHost, endpoint: string): Promise<ReplayTarget | Refused | undefined> {
  const src = host.connections.source(endpoint);
  if (!src) return refuse(vscode.l10n.t('Agent RL: the training run of this experience is no longer connected.'));
  if (src.dir && !fs.existsSync(src.dir)) return refuse(vscode.l10n.t('Agent RL: the job directory cannot be read: {0}', src.dir));
  const fromJob = src.dir ?? src.url!;
  const candidates = configCandidates(src.dir, src.dir ? jobConfigCopy(src.dir) : undefined, await workspaceConfigs());
  if (!candidates.length)
    return refuse(
      vscode.l10n.t(
        'Agent RL: no workflow config to replay this run with: open the folder that holds the Trinity-RFT config the run was trained with (its taskset and workflow).',
      ),
    );
  const config = await pickConfig(candidates);
  if (!config) return undefined;
  host.log.info(`replay: ${fromJob} with ${config}`);
  return {
    fromJob,
    config,
    folder: vscode.workspace.getWorkspaceFolder(vscode.Uri.file(config)) ?? vscode.workspace.workspaceFolders?.[0],
    env: src.url && src.token ? { AGENTRL_RELAY_TOKEN: src.token } : {},
  };
}

/** Why an experience cannot be replayed (no conversation recorded), or undefined. */
function nothingToReplay(d: { messages?: unknown; prompt_text?: unknown; response_text?: unknown }): boolean {
  if (Array.isArray(d.messages) && d.messages.length) return false;
  return typeof d.response_text !== 'string' || !d.response_text;
}

/** Debug this rollout: starts the replay's debug session; resolves whether it started, or what the user was told instead. */
export async function debugRollout(
  host: MetricsHost,
  ref: Pick<ExperienceRef, 'endpoint' | 'source' | 'id'> | undefined,
): Promise<{ started: boolean } | Refused> {
  if (!ref || typeof ref.endpoint !== 'string' || typeof ref.source !== 'string' || !Number.isSafeInteger(ref.id))
    return refuse(vscode.l10n.t('Agent RL: Debug this rollout needs an experience of the metrics view (open one in the drill-down).'));
  const refused = untrusted();
  if (refused) return refused;
  let detail;
  try {
    detail = await withTimeout(host.connections.requestExperience(ref.endpoint, ref.source, ref.id), READ_TIMEOUT_MS);
  } catch (e) {
    return refuse(vscode.l10n.t('Agent RL: cannot read experience #{0}: {1}', String(ref.id), e instanceof Error ? e.message : String(e)));
  }
  if (nothingToReplay(detail))
    return refuse(
      vscode.l10n.t(
        'Agent RL: experience #{0} has no recorded conversation (no messages, no response_text): there are no model answers to replay.',
        String(ref.id),
      ),
    );
  const target = await replayTarget(host, ref.endpoint);
  if (!target || 'refused' in target) return target ?? { started: false };
  const folder = target.folder?.uri.fsPath;
  const entries = vscode.workspace.getConfiguration('launch', target.folder?.uri).get<unknown[]>('configurations') ?? [];
  const config = replayLaunchConfig({
    name: vscode.l10n.t('Debug this rollout'),
    config: target.config,
    fromJob: target.fromJob,
    id: ref.id,
    entry: launchEntryFor(entries, target.config, folder),
    folder,
    env: target.env,
  });
  const started = await vscode.debug.startDebugging(target.folder, config);
  if (!started) host.log.warn(`replay: the debug session of experience #${ref.id} did not start`);
  return { started };
}

/** Re-score: the workspace's reward over the experiences of steps `steps` (asked when `ask`); undefined: cancelled. */
export async function rescoreSteps(
  host: MetricsHost,
  args: { endpoint: string; steps: [number, number]; ask?: boolean } | undefined,
): Promise<RescoreResult | undefined> {
  if (!args || typeof args.endpoint !== 'string' || !Array.isArray(args.steps))
    throw new Error(vscode.l10n.t('Re-score needs a connected run and a range of steps.'));
  const refused = untrusted();
  if (refused) throw new Error(refused.refused);
  let steps = args.steps;
  if (args.ask) {
    const typed = await vscode.window.showInputBox({
      title: vscode.l10n.t('Re-score steps'),
      prompt: vscode.l10n.t('The steps whose experiences the current reward code scores again: A-B, or one step'),
      value: steps[0] === steps[1] ? String(steps[0]) : `${steps[0]}-${steps[1]}`,
      validateInput: (v) => (parseStepRange(v) ? undefined : vscode.l10n.t('Not a step range (A-B): {0}', v)),
    });
    const range = typed === undefined ? undefined : parseStepRange(typed);
    if (!range) return undefined;
    steps = range;
  }
  const target = await replayTarget(host, args.endpoint);
  if (!target) return undefined;
  if ('refused' in target) throw new Error(target.refused);
  const cli = host.context.asAbsolutePath(path.join('dist', 'agentrl.js'));
  const argv = [cli, 'eval', '--config', target.config, '--rescore', '--from-job', target.fromJob, '--steps', `${steps[0]}-${steps[1]}`, '--json'];
  return vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: vscode.l10n.t('Re-scoring steps {0}-{1} with the current reward…', String(steps[0]), String(steps[1])),
      cancellable: true,
    },
    (_, cancel) => runRescore(host, argv, path.dirname(target.config), target.env, cancel),
  );
}

function runRescore(
  host: MetricsHost,
  argv: string[],
  cwd: string,
  env: Record<string, string>,
  cancel: vscode.CancellationToken,
): Promise<RescoreResult | undefined> {
  return new Promise((resolve, reject) => {
    host.log.info(`rescore: agentrl ${argv.slice(1).join(' ')}`);
    const child = spawn(process.execPath, argv, {
      cwd,
      // ELECTRON_RUN_AS_NODE: in desktop VS Code process.execPath is Electron.
      env: { ...process.env, ...env, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    let out = '';
    let err = '';
    let cancelled = false;
    child.stdout.on('data', (b: Buffer) => (out += String(b)));
    child.stderr.on('data', (b: Buffer) => (err = (err + String(b)).slice(-4000)));
    const stop = (): void => void child.kill('SIGTERM');
    const sub = cancel.onCancellationRequested(() => {
      cancelled = true;
      stop();
    });
    const timer = setTimeout(stop, RESCORE_TIMEOUT_MS);
    child.once('error', (e) => {
      clearTimeout(timer);
      sub.dispose();
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      sub.dispose();
      if (cancelled) return resolve(undefined);
      // 0: every reward the same; 1: some changed. Anything else: the CLI could not re-score.
      if (code === 0 || code === 1) {
        const r = parseRescore(out);
        if ('reason' in r) return reject(new Error(r.reason));
        return resolve(r);
      }
      const why = err.trim().split('\n').slice(-6).join('\n') || vscode.l10n.t('exit code {0}', String(code));
      reject(new Error(vscode.l10n.t('The re-score failed: {0}', why)));
    });
  });
}
