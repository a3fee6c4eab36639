// From launch arguments to a ready (not yet started) RolloutRuntime: validates the
// attributes, runs the config engine (refusing configs with errors, pointing at them),
// builds the runner plan and picks the upstream (live endpoint or a recorded run).
import * as fs from 'fs';
import * as path from 'path';
import type { CheckResult, ConfigChecker } from '../../feature-api/config-checker';
import { english, type L10n } from '../../base/l10n';
import type { Logger } from '../../base/log';
import { ReplayUpstream, type ReplayVerifier } from '../gateway/replay';
import { OpenAIUpstream, type ChatUpstream } from '../gateway/model-endpoint';
import { buildPlan, validateLaunchArgs, type RolloutLaunchArgs } from '../runtime/plan';
import { RolloutRuntime } from '../runtime/rollout-runtime';
import { BACKBONE_CLI, findCli, missingCliMessage, UpstreamRun } from '../backbones/upstream-backbones';
import { isLoopbackUrl } from '../../base/loopback';
import type { ExperienceReader } from '../../feature-api/experience-reader';
import { planRowReplays, prepareRowReplay, type RowReplaySetup } from './launch-row';
import type { RecordedExperience } from '../experience/recorded';

/** A native run (stepping, editing, replay) or an upstream backbone's run (output + results):
 *  each a RunHandle (runtime/run-handle.ts); the union lets a caller tell them apart. */
export type LaunchedRun = RolloutRuntime | UpstreamRun;

/** Where a launch happens: the config engine, the logger, the runner's folder, the environment
 *  and language, and (in VS Code) how to attach a Python debugger. */
export interface LaunchContext {
  checker: ConfigChecker;
  logger: Logger;
  /** The folder holding the `agentrl_runner` package (dist/runner). */
  runnerDir: string;
  /** Attaches a child debugpy session (extension only); resolves false when it could not. */
  startPythonDebugger?(endpoint: { host: string; port: number }): Promise<boolean>;
  env?: NodeJS.ProcessEnv;
  /** Debugger strings: vscode.l10n in the extension, English elsewhere. */
  l10n?: L10n;
  /** `agentrl rollout --timings`: the run's last steps, timestamped. */
  onTiming?: (what: string, at: number) => void;
  /** Save the run exactly here instead of a new folder under .agentrl/runs (a comparison's runs). */
  runDir?: string;
  /** Reads a training run's experiences (launch.json `rollout`): the relay's, handed in by cli.ts / extension.ts. */
  experiences?: ExperienceReader;
}

/** `row`: the experience a `rollout` launch replays (its result is made from it at the end). */
export type Prepared = { ok: true; run: LaunchedRun; notes: string[]; row?: RowReplaySetup } | { ok: false; message: string };

export function formatConfigErrors(file: string, result: CheckResult): string | undefined {
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  if (!errors.length) return undefined;
  const shown = errors
    .slice(0, 8)
    .map((d) => `  ${path.basename(file)}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.message}${d.path ? ` (${d.path})` : ''}`);
  const more = errors.length > shown.length ? [`  … and ${errors.length - shown.length} more`] : [];
  return `${file} has ${errors.length} config error(s); fix them before debugging:\n${[...shown, ...more].join('\n')}`;
}

/** `rows`: experiences already read to replay (`agentrl eval --rescore --from-job`), instead of `args.rollout`'s one. */
export async function prepareLaunch(
  args: RolloutLaunchArgs & { __pythonDebuggerNote?: string },
  context: LaunchContext,
  rows?: { where: string; experiences: RecordedExperience[] },
): Promise<Prepared> {
  const env = context.env ?? process.env;
  const problems = validateLaunchArgs(args);
  if (problems.length) return { ok: false, message: `Invalid agentrl launch configuration:\n  ${problems.join('\n  ')}` };
  const root = args.workspaceRoot ?? args.cwd ?? process.cwd();
  const configPath = path.resolve(root, args.config);
  if (!fs.existsSync(configPath)) return { ok: false, message: `The config file does not exist: ${configPath}` };
  const backbone = args.backbone ?? 'native';
  const python = args.python
    ? path.isAbsolute(args.python) || !/[\\/]/.test(args.python)
      ? args.python
      : path.resolve(root, args.python)
    : process.platform === 'win32'
      ? 'python'
      : 'python3';

  let result: CheckResult;
  try {
    result = await context.checker.check(configPath);
  } catch (e) {
    return { ok: false, message: `Could not check ${configPath}: ${(e as Error).message}` };
  }
  const configErrors = formatConfigErrors(configPath, result);
  if (configErrors) return { ok: false, message: configErrors };
  const cwd = args.cwd ? path.resolve(root, args.cwd) : root;
  if (backbone !== 'native') {
    const cli = findCli(BACKBONE_CLI[backbone], python, env);
    if (!cli) return { ok: false, message: missingCliMessage(backbone, python) };
    const run = new UpstreamRun({
      backbone,
      cli,
      config: configPath,
      python,
      runnerDir: context.runnerDir,
      cwd,
      env: { ...env, ...(args.env ?? {}) },
      runRoot: args.record === false ? undefined : root,
      launcherArgs: args.launcherArgs,
      debugTags: args.debugTags,
      meta: { ...args, config: configPath, env: undefined },
      l10n: context.l10n,
    });
    return { ok: true, run, notes: [`The ${backbone} backbone runs the upstream debug mode: no stepping; its results are imported when it ends.`] };
  }
  let row: Extract<Awaited<ReturnType<typeof prepareRowReplay>>, { ok: true }> | undefined;
  const l10n = context.l10n ?? english;
  if (args.rollout || rows) {
    if (result.kind !== 'trinity')
      return { ok: false, message: l10n.t("Replaying a training run's experience needs a Trinity-RFT config; {0} is not one.", path.basename(configPath)) };
    const r = rows
      ? planRowReplays(rows.experiences, rows.where, result.resolved, configPath, l10n)
      : await prepareRowReplay(args.rollout!, context.experiences, root, result.resolved, configPath, l10n);
    if (!r.ok) return r;
    row = r;
  }
  const planned = row
    ? buildPlan({ ...args, cwd, tasks: undefined, repeat: 1, concurrency: args.concurrency ?? 1 }, result.kind, row.doc, configPath)
    : buildPlan({ ...args, cwd }, result.kind, result.resolved, configPath);
  if (!planned.plan) return { ok: false, message: `Cannot run ${path.basename(configPath)}:\n  ${planned.errors.join('\n  ')}` };
  if (row) planned.plan.tasks = { source: planned.plan.tasks.source, replayed: row.replayed };

  let upstream: ChatUpstream;
  let replay: ReplayVerifier | undefined;
  if (row) {
    upstream = row.setup.upstream;
    replay = row.setup.upstream;
    // The live model a diverged replay may go on against: the launch's own, else $OPENAI_BASE_URL.
    const liveUrl = args.model?.baseUrl ?? env.OPENAI_BASE_URL;
    if (liveUrl)
      row.setup.upstream.setLive(
        new OpenAIUpstream({ baseUrl: liveUrl, apiKey: apiKeyOf(args, env), timeoutSec: args.model?.timeout, maxReplyMB: args.model?.maxReplyMB }),
        args.rollout?.liveAfterDivergence === true,
      );
    else if (args.rollout?.liveAfterDivergence)
      return {
        ok: false,
        message: l10n.t(
          'Going on against a live model after a divergence needs a model endpoint: "model": { "baseUrl": … } in launch.json, or $OPENAI_BASE_URL.',
        ),
      };
  } else if (args.replay) {
    try {
      const recorded = new ReplayUpstream(path.resolve(root, args.replay));
      replay = recorded;
      upstream = recorded;
    } catch (e) {
      return { ok: false, message: (e as Error).message };
    }
  } else {
    const baseUrl = args.model?.baseUrl ?? env.OPENAI_BASE_URL;
    if (!baseUrl)
      return {
        ok: false,
        message:
          'No model endpoint: set "model": { "baseUrl": "http://127.0.0.1:8000/v1" } in launch.json (any OpenAI-compatible server), or "replay" a recorded run.',
      };
    let apiKey: string | undefined;
    if (args.model?.apiKeyEnv) {
      apiKey = env[args.model.apiKeyEnv];
      // A local server needs no key: go on without one rather than stop the run.
      if (!apiKey && !isLoopbackUrl(baseUrl)) return { ok: false, message: `The environment variable ${args.model.apiKeyEnv} (model.apiKeyEnv) is not set.` };
    }
    upstream = new OpenAIUpstream({ baseUrl, apiKey, timeoutSec: args.model?.timeout, maxReplyMB: args.model?.maxReplyMB });
  }
  // explorer.auxiliary_models (a judge, a teacher): each its own endpoint, default the main one.
  const auxCount = Math.max(planned.auxiliaryNames?.length ?? 0, args.auxiliaryModels?.length ?? 0);
  const auxiliary: { upstream?: ChatUpstream; name: string }[] = [];
  for (let i = 0; i < auxCount; i++) {
    const a = args.auxiliaryModels?.[i] ?? {};
    let aux: ChatUpstream | undefined;
    if (!replay && (a.baseUrl || a.apiKeyEnv || a.timeout)) {
      const key = a.apiKeyEnv ? env[a.apiKeyEnv] : undefined;
      if (a.apiKeyEnv && !key) return { ok: false, message: `The environment variable ${a.apiKeyEnv} (auxiliaryModels[${i}].apiKeyEnv) is not set.` };
      const base = a.baseUrl ?? args.model?.baseUrl ?? env.OPENAI_BASE_URL!;
      aux = new OpenAIUpstream({
        baseUrl: base,
        apiKey: key ?? (a.baseUrl ? undefined : apiKeyOf(args, env)),
        timeoutSec: a.timeout ?? args.model?.timeout,
        maxReplyMB: args.model?.maxReplyMB,
      });
    }
    auxiliary.push({ upstream: aux, name: a.name ?? planned.auxiliaryNames?.[i] ?? '' });
  }

  const notes: string[] = [];
  if (args.__pythonDebuggerNote) notes.push(args.__pythonDebuggerNote);
  if (row) {
    const what = row.setup.experiences.length === 1 ? `experience ${row.setup.experiences[0].id}` : `${row.setup.experiences.length} experiences`;
    notes.push(`Replaying ${what} of ${args.rollout?.fromJob ?? rows?.where}; taskset from ${row.setup.config.why}.`);
  }
  const { model, env: userEnv, auxiliaryModels, ...rest } = args;
  const run = new RolloutRuntime({
    plan: planned.plan,
    upstream,
    replay,
    auxiliary,
    l10n: context.l10n,
    onTiming: context.onTiming,
    modelName: model?.name,
    configModelName: planned.modelName,
    configDir: path.dirname(configPath),
    python,
    runnerDir: context.runnerDir,
    env: { ...env, ...(userEnv ?? {}) },
    pythonDebugger: args.pythonDebugger === true && !!context.startPythonDebugger,
    runRoot: args.record === false ? undefined : root,
    runDir: args.record === false ? undefined : context.runDir,
    // No secrets here: env values and the API key stay out of the saved run.
    meta: {
      ...rest,
      config: configPath,
      model: model ? { ...model } : undefined,
      ...(auxiliaryModels ? { auxiliaryModels } : {}),
      envKeys: Object.keys(userEnv ?? {}),
    },
    backbone: 'native',
    logger: context.logger,
    ...(row ? { fork: false } : {}),
  });
  return { ok: true, run, notes, ...(row ? { row: row.setup } : {}) };
}

function apiKeyOf(args: RolloutLaunchArgs, env: NodeJS.ProcessEnv): string | undefined {
  return args.model?.apiKeyEnv ? env[args.model.apiKeyEnv] : undefined;
}
