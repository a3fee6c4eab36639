// activate(): creates the shared output channel and wires each feature. Nothing expensive
// happens here: features register commands/providers whose work is deferred to first use.
import * as vscode from 'vscode';
import { VERSION } from './base/version';
import type { Logger } from './base/log';
import { activateScaffold } from './scaffold/activate';
import { activateMetrics, MetricsApi } from './metrics/activate';
import { activateConfig, type ConfigFeature } from './config/activate';
import type { ConfigChecker } from './feature-api/config-checker';
import type { ExperienceReader } from './feature-api/experience-reader';
import { lazyBundle } from './base/lazy';
import { activateDebug, type RolloutDebugger } from './debug/activate';
import { activateWelcome } from './welcome/activate';
import { activateRay, type RayApi } from './ray/activate';
import { activateOnline, type OnlineApi } from './online/activate';
import { activateEval, type ModelComparisons } from './eval/activate';

/** What the extension returns from activate(); integration tests use it. */
export interface AgentRlApi {
  readonly version: string;
  readonly log: Logger;
  /** Milliseconds spent in activate(), measured by the extension itself. */
  readonly activationMs: number;
  /** Live training metrics view. */
  readonly metrics: MetricsApi;
  /** Config intelligence (the language server starts on the first RL config opened). */
  readonly config: ConfigFeature;
  /** The rollout debugger (`agentrl` debug type, Rollouts view). */
  readonly debug: RolloutDebugger;
  /** Ray clusters: the Ray view, submit / watch / stop runs. */
  readonly ray: RayApi;
  /** Online training: serve-mode explorer connection and playground. */
  readonly online: OnlineApi;
  /** Models compared on a workflow's tasks: the Model Comparisons view. */
  readonly eval: ModelComparisons;
}

/** The config engine (dist/config-engine.js), created on first use, for features that need it. */
function configEngine(): () => ConfigChecker {
  const load = lazyBundle<typeof import('./config/engine/checker')>('config-engine');
  let checker: ConfigChecker | undefined;
  return () => (checker ??= load().createConfigChecker({ roots: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath) }));
}

/** The relay's reader of a training run's experiences (dist/relay-experiences.js), for the debugger's row replays. */
function experienceReader(): () => ExperienceReader {
  const load = lazyBundle<typeof import('./relay/experience-reader')>('relay-experiences');
  let reader: ExperienceReader | undefined;
  return () => (reader ??= load().createExperienceReader());
}

export function activate(context: vscode.ExtensionContext): AgentRlApi {
  const t0 = performance.now();
  const log = vscode.window.createOutputChannel('Agent RL', { log: true });
  context.subscriptions.push(
    log,
    vscode.commands.registerCommand('agentrl.showOutput', () => {
      log.show(true);
      return true;
    }),
  );
  activateScaffold(context, log);
  const config = activateConfig(context, log);
  const metrics = activateMetrics(context, log);
  const engine = configEngine();
  const debug = activateDebug(context, log, engine, experienceReader());
  const ray = activateRay(context, log, engine);
  activateWelcome(context);
  const online = activateOnline(context, log);
  const evalApi = activateEval(context, () => debug.rollouts());
  const activationMs = performance.now() - t0;
  log.info(`Agent RL Studio ${VERSION} activated in ${activationMs.toFixed(1)} ms`);
  return { version: VERSION, log, activationMs, config, metrics, debug, ray, online, eval: evalApi };
}

export function deactivate(): void {
  // Disposables registered on context.subscriptions are released by VS Code.
}
