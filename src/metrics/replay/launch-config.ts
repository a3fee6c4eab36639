// The `agentrl` debug configuration of Debug This Rollout: one experience of a training run
// (`rollout.fromJob`: its job dir or relay URL; `rollout.id`: the experience id the drill-down
// has) replayed through the workspace's workflow of `config`. Settings of a launch.json entry
// for the same config (interpreter, environment, folder) carry over, so the replay runs where
// the user's own debug sessions do; its model endpoint too, which the replay asks only when it
// goes on against the live model after a divergence. Pure.
import * as path from 'node:path';

/** The debug configuration (what vscode.debug.startDebugging takes), as plain data. */
export interface ReplayLaunchConfig {
  type: 'agentrl';
  request: 'launch';
  name: string;
  config: string;
  cwd: string;
  rollout: { fromJob: string; id: number };
  python?: string;
  env?: Record<string, string>;
  [key: string]: unknown;
}

/** What carries over from a launch.json entry of the same config. */
const CARRIED = ['python', 'env', 'cwd', 'pythonDebugger', 'backbone', 'launcherArgs', 'model'] as const;

/** `${workspaceFolder}` (the one variable launch entries of configs use) replaced; other variables left. */
function substitute(v: unknown, folder: string | undefined): unknown {
  if (typeof v === 'string') return folder ? v.replace(/\$\{workspaceFolder\}/g, folder) : v;
  if (Array.isArray(v)) return v.map((x) => substitute(x, folder));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, folder)]));
  return v;
}

/** The launch.json entry (`agentrl`, launch) whose config is `config`, or undefined. */
export function launchEntryFor(entries: readonly unknown[], config: string, folder: string | undefined): Record<string, unknown> | undefined {
  for (const raw of entries) {
    const e = substitute(raw, folder) as Record<string, unknown> | null;
    if (!e || typeof e !== 'object' || e.type !== 'agentrl' || e.request !== 'launch' || typeof e.config !== 'string') continue;
    if (path.resolve(folder ?? '', e.config) === path.resolve(config)) return e;
  }
  return undefined;
}

export function replayLaunchConfig(o: {
  name: string;
  config: string;
  fromJob: string;
  id: number;
  /** The launch.json entry of the same config (launchEntryFor). */
  entry?: Record<string, unknown>;
  folder?: string;
  /** Extra environment (a relay URL's token). */
  env?: Record<string, string>;
}): ReplayLaunchConfig {
  const carried: Record<string, unknown> = {};
  for (const k of CARRIED) if (o.entry?.[k] !== undefined) carried[k] = o.entry[k];
  const cwd = typeof carried.cwd === 'string' ? path.resolve(o.folder ?? path.dirname(o.config), carried.cwd) : path.dirname(o.config);
  const env = { ...((carried.env as Record<string, string> | undefined) ?? {}), ...(o.env ?? {}) };
  return {
    ...carried,
    type: 'agentrl',
    request: 'launch',
    name: o.name,
    config: o.config,
    cwd,
    rollout: { fromJob: o.fromJob, id: o.id },
    ...(Object.keys(env).length ? { env } : {}),
  };
}
