// The debug configuration that attaches to a paused Ray worker: what the Python Debugger
// extension (ms-python.debugpy) takes as a `debugpy` attach, and what our own `agentrl-ray`
// type sends straight to the worker's debugpy adapter — the same attach arguments either way.
// Pure: the target comes from reach.ts, the workspace folder from the caller.
import type { PausedTask } from './paused';

/** The debug type of the Python Debugger extension, and ours where that extension is absent. */
export const DEBUGPY_TYPE = 'debugpy';
export const OWN_TYPE = 'agentrl-ray';

export interface AttachTarget {
  host: string;
  port: number;
}

/**
 * The folder Ray unpacked the job's `working_dir` into on the worker's node
 * (`…/runtime_resources/working_dir_files/_ray_pkg_<hash>`), read from where the worker stopped;
 * undefined when the file is not under one (the job ran from a path shared with the editor).
 */
export function remoteRootOf(file: string | null | undefined): string | undefined {
  const m = file ? /^(.*?\/runtime_resources\/working_dir_files\/[^/]+)\//.exec(file) : null;
  return m?.[1];
}

export interface AttachOptions {
  type: typeof DEBUGPY_TYPE | typeof OWN_TYPE;
  /** The session's name (the task and where it stopped). */
  name: string;
  /** The workspace folder the job's working_dir was packed from. */
  localRoot?: string;
  /** The working_dir on the worker, when not read from the stack (`remoteRootOf`). */
  remoteRoot?: string;
}

export interface AttachConfiguration {
  type: string;
  request: 'attach';
  name: string;
  connect: AttachTarget;
  /**
   * Off, or the task never stops: Ray's `_debugpy_breakpoint` stops by a step pinned to its own
   * `set_trace` frame (`ray/util/debugpy.py`, library code), which debugpy drops with justMyCode
   * on — the client gets initialized/process/thread, never `stopped`, and the task runs on.
   */
  justMyCode: false;
  pathMappings?: Array<{ localRoot: string; remoteRoot: string }>;
  /** What was paused (shown by us, ignored by debugpy). */
  rayTask: { job: string | null; name: string; worker: string; ip: string; port: number; postMortem: boolean | null };
  [key: string]: unknown;
}

export function attachConfiguration(t: PausedTask, target: AttachTarget, o: AttachOptions): AttachConfiguration {
  const remoteRoot = o.remoteRoot ?? remoteRootOf(t.file);
  return {
    type: o.type,
    request: 'attach',
    name: o.name,
    connect: { host: target.host, port: target.port },
    justMyCode: false,
    ...(remoteRoot && o.localRoot && remoteRoot !== o.localRoot ? { pathMappings: [{ localRoot: o.localRoot, remoteRoot }] } : {}),
    rayTask: { job: t.job, name: t.name, worker: t.worker_id, ip: t.ip, port: t.port, postMortem: t.post_mortem },
  };
}

/** `compute at train.py:12` — the session's and the row's name. */
export function pausedTitle(t: PausedTask): string {
  const base = t.file ? t.file.split('/').pop() : undefined;
  return base ? `${t.name} · ${base}${t.line !== null ? `:${t.line}` : ''}` : t.name;
}
