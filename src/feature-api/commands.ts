// The commands one feature runs and another registers: each command's id, argument and result,
// declared once, so the caller and the registrant type-check against the same contract
// (features never import each other). No vscode import: both ends pass `vscode.commands` in.
//
//   METRICS_CONNECT.register(vscode.commands, (args) => connect(host, args));    // metrics
//   const id = await METRICS_CONNECT.run(vscode.commands, { url, token, run });   // ray
//
// Commands also come from keybindings, scripts and tests with whatever arguments those pass:
// a handler checks what it acts on; the types hold for our own callers.

/** What `vscode.commands` offers, as far as running and registering commands go. */
export interface CommandRegistry {
  executeCommand<T>(command: string, ...rest: unknown[]): PromiseLike<T>;
  registerCommand(command: string, callback: (arg: never) => unknown): { dispose(): unknown };
}

/** A command one feature offers the others: its id, the argument it takes (A) and what it returns (R). */
class FeatureCommand<A, R> {
  constructor(readonly id: string) {}

  /** Runs the command (the calling feature). */
  run(commands: Pick<CommandRegistry, 'executeCommand'>, ...arg: A extends undefined ? [] : [A]): Promise<R> {
    return Promise.resolve(commands.executeCommand<R>(this.id, ...arg));
  }

  /** Registers its handler (the offering feature); the argument is absent when run without one. */
  register(commands: Pick<CommandRegistry, 'registerCommand'>, handler: (arg: A | undefined) => R | PromiseLike<R>): { dispose(): unknown } {
    return commands.registerCommand(this.id, handler);
  }
}

// ---- metrics -------------------------------------------------------------------------------

/** Connect the metrics view to a relay (`url`) or a local job dir / logdir (`dir`). */
export interface MetricsConnectArgs {
  url?: string;
  token?: string;
  dir?: string;
  mode?: 'job' | 'logdir';
  name?: string;
  /** Merge the endpoint's streams into this run name. */
  run?: string;
  /** Open the view (default true). */
  reveal?: boolean;
  /** How to bring this relay back when it is gone (saved with the connection). */
  revive?: Revive;
  /** The id of a saved connection this one replaces (a relay brought back at a new URL). */
  replaces?: string;
}

/** Resolves with the endpoint id of the saved connection (undefined: cancelled or refused). */
export const METRICS_CONNECT = new FeatureCommand<MetricsConnectArgs | undefined, string | undefined>('agentrl.metrics.connect');

/** An event to mark on a run's charts. */
export interface RunEventMark {
  kind: 'online-commit';
  /** the explorer's URL (which run) */
  explorerUrl: string;
  /** explore_step_num after the commit: the step the monitor logs this commit at */
  step: number;
  /** wall time, ms since the epoch */
  at: number;
}

/**
 * After each /commit the online feature runs this, when registered (the metrics view is loaded),
 * so the charts of the same serve-mode run mark the commit. Resolves with the runs marked.
 */
export const METRICS_MARK_EVENT = new FeatureCommand<RunEventMark, string[]>('agentrl.metrics.markEvent');

/** A serve-mode explorer a connected relay polls (found through its URL file). */
export interface RelayExplorer {
  url: string;
  run: string;
  /** the metrics connection (relay) that found it */
  endpoint: string;
}

/** The serve-mode explorers the metrics view's relays poll (none while it is not loaded). */
export const METRICS_EXPLORERS = new FeatureCommand<undefined, RelayExplorer[]>('agentrl.metrics.explorers');

// ---- online --------------------------------------------------------------------------------

/** A serve-mode explorer's URL, a job dir or a `*_server_url.txt`; or the URL with options. */
type OnlineConnectArgs = string | { url?: string; skipWarning?: boolean };

/** Connects the online playground to an explorer; resolves whether it connected. */
export const ONLINE_CONNECT = new FeatureCommand<OnlineConnectArgs | undefined, boolean>('agentrl.online.connect');

// ---- ray -----------------------------------------------------------------------------------

/** A Ray job whose metrics to watch; `replaces` when the metrics view brings a relay back. */
interface RayWatchMetricsArgs {
  cluster?: string;
  id?: string;
  /** Only through a relay job on the cluster (not the job dir on this machine). */
  relay?: 'cluster';
  replaces?: string;
}

/** Watches a Ray job's metrics: its job dir on this machine, or a relay job next to it. */
export const RAY_WATCH_METRICS = new FeatureCommand<RayWatchMetricsArgs, unknown>('agentrl.ray.watchMetrics');

/** An `agentrl` launch entry's `"request": "attach"` with `"ray": {dashboard, job?}`: the debugger feature asks Ray for it. */
export interface RayAttachFirstArgs {
  dashboard: string;
  job?: string;
}

/**
 * Waits for the first task that pauses (in `job`) on the cluster at `dashboard` and resolves with
 * the debug configuration that attaches to it (a `debugpy` or `agentrl-ray` attach), or
 * undefined when cancelled or impossible (the user was told why).
 */
export const RAY_ATTACH_FIRST = new FeatureCommand<RayAttachFirstArgs, ({ type: string; name: string; request: string } & Record<string, unknown>) | undefined>(
  'agentrl.ray.attachFirst',
);

/**
 * How the metrics view brings back a relay that is gone (a Ray relay job that ended itself once
 * idle): saved with the connection, run as RAY_WATCH_METRICS with `replaces` added.
 */
export interface Revive {
  /** RAY_WATCH_METRICS.id */
  command: string;
  args: { cluster: string; id: string; relay: 'cluster' };
}

/** A revive as saved in workspace state (checked: saved state is not trusted blindly). */
export function isRevive(v: unknown): v is Revive {
  const r = v as Revive | undefined;
  return r?.command === RAY_WATCH_METRICS.id && typeof r.args?.cluster === 'string' && typeof r.args.id === 'string' && r.args.relay === 'cluster';
}
