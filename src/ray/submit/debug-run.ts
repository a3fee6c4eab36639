// The debug variant of "Run on Ray Cluster…": the run's runtime env turns Ray's debugger on
// (RAY_DEBUG=1: `breakpoint()` in a task or actor opens debugpy on its node and waits; with
// RAY_DEBUG_POST_MORTEM=1 a task that raises waits the same way), pip-installs debugpy into the
// job's environment when the cluster lacks it — asked of the cluster first by a tiny probe job —
// and, for AgentJet / ASTuner, passes the launch entry's `debugTags` as `--debug=TAG1|TAG2` so
// `bp("TAG1")` stops there. Pure, but for the probe's client calls.
import type { SubmitJobRequest } from '../api/api-types';
import { META } from '../api/api-types';
import type { ConfigKind } from '../../feature-api/config-checker';
import { shellQuote } from './entrypoint';

export interface DebugRunOptions {
  /** Also pause a task that raises (RAY_DEBUG_POST_MORTEM=1). */
  postMortem?: boolean;
  /** AgentJet's tags: `bp("TAG")` stops when TAG is among them. */
  debugTags?: string[];
}

export interface DebugRun {
  entrypoint: string;
  envVars: Record<string, string>;
  /** Packages for the runtime env's `pip` (debugpy when the cluster lacks it). */
  pip?: string[];
}

/** The run's entrypoint, environment variables and pip packages with the debugger on. */
export function debugRun(kind: ConfigKind, entrypoint: string, envVars: Record<string, string> | undefined, o: DebugRunOptions, hasDebugpy: boolean): DebugRun {
  const env: Record<string, string> = { ...(envVars ?? {}), RAY_DEBUG: '1' };
  if (o.postMortem) env.RAY_DEBUG_POST_MORTEM = '1';
  let ep = entrypoint;
  // AgentJet's launcher reads one --debug; one the user typed in the entrypoint wins.
  if (o.debugTags?.length && (kind === 'ajet' || kind === 'astuner') && !/(^|\s)--debug(=|\s|$)/.test(ep)) {
    ep = `${ep} ${shellQuote(`--debug=${o.debugTags.join('|')}`)}`;
  }
  return { entrypoint: ep, envVars: env, ...(hasDebugpy ? {} : { pip: ['debugpy'] }) };
}

/** Adds the debug run's pip packages to a request's runtime env (keeping any the user set). */
export function withPip(req: SubmitJobRequest, pip: string[] | undefined): SubmitJobRequest {
  if (!pip?.length) return req;
  const env = { ...(req.runtime_env ?? {}) };
  const have = Array.isArray(env.pip) ? (env.pip as string[]) : [];
  env.pip = [...have, ...pip.filter((p) => !have.some((h) => h.split(/[<>=!~ [;]/)[0] === p))];
  return { ...req, runtime_env: env };
}

const MARK = 'AGENTRL_DEBUG_PROBE ';

/** A job (no CPUs reserved) in the cluster's Python that says whether debugpy imports, and Ray's version. */
export function debugpyProbeRequest(resource?: string): SubmitJobRequest {
  const py = `import importlib.util as u; import ray; print("${MARK}debugpy=" + ("yes" if u.find_spec("debugpy") else "no") + " ray=" + ray.__version__, flush=True)`;
  return {
    entrypoint: `python -c ${shellQuote(py)} || python3 -c ${shellQuote(py)}`,
    entrypoint_num_cpus: 0,
    ...(resource ? { entrypoint_resources: { [resource]: 0.001 } } : {}),
    metadata: { [META.tool]: '1', [META.role]: 'probe' },
  };
}

export interface DebugpyProbe {
  debugpy: boolean;
  ray: string;
}

/** The probe's answer, or undefined when its log has none. */
export function parseDebugpyProbe(log: string): DebugpyProbe | undefined {
  const m = /^AGENTRL_DEBUG_PROBE debugpy=(yes|no) ray=(\S+)/m.exec(log);
  return m ? { debugpy: m[1] === 'yes', ray: m[2] } : undefined;
}

/** The `debugTags` of the workspace's `agentrl` launch entry for this config (`config` resolved
 *  against the folder, `${workspaceFolder}` included), or undefined when none names them. */
export function debugTagsOfLaunch(configurations: unknown, configFile: string, folder: string): string[] | undefined {
  if (!Array.isArray(configurations)) return undefined;
  const norm = (p: string) =>
    p
      .replace(/\$\{workspaceFolder\}/g, folder)
      .replace(/\\/g, '/')
      .replace(/\/\.\//g, '/');
  const want = norm(configFile);
  for (const c of configurations as Array<Record<string, unknown>>) {
    if (!c || c.type !== 'agentrl' || typeof c.config !== 'string' || !Array.isArray(c.debugTags)) continue;
    const cfg = norm(c.config);
    const abs = cfg.startsWith('/') || /^[A-Za-z]:\//.test(cfg) ? cfg : `${norm(folder)}/${cfg}`;
    if (abs === want) return (c.debugTags as unknown[]).filter((t): t is string => typeof t === 'string');
  }
  return undefined;
}
