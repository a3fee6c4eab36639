// The Python stacks of a run's processes, as Ray's dashboard gives them (`GET /worker/traceback`:
// the node's agent runs `py-spy dump` on a pid and returns its text), turned into what a person
// debugging a hang wants: per actor, grouped by role (explorer, trainer, synchronizer, rollout
// runners, workflow runners), the frame each one waits in, and who waits on whom. Who waits on
// whom comes from the State API's task table (a running task's parent is the caller waiting for
// it), which also covers async actors whose awaiting coroutines never show on a thread's stack;
// a frame named `wait_for_<role>` is the fallback. Pure: fed by the collector.
import type { RayActor, RayTask } from '../api/api-types';

export interface Frame {
  func: string;
  /** As py-spy prints it: relative to sys.path (`ray/_private/worker.py`, `trinity/explorer/explorer.py`). */
  file: string;
  line?: number;
}

export interface ThreadStack {
  id: number;
  name?: string;
  idle: boolean;
  /** Innermost first, as py-spy prints them. */
  frames: Frame[];
}

export interface ProcessStack {
  pid?: number;
  /** The process title: `ray::Explorer.explore_step` while an actor runs a method. */
  title?: string;
  python?: string;
  threads: ThreadStack[];
}

const PROCESS = /^Process (\d+): (.*)$/;
const PYTHON = /^Python (v\S+.*)$/;
const THREAD = /^Thread (\d+|0x[0-9a-fA-F]+)(?: \((idle|active|gil)[^)]*\))?(?:: "(.*)")?\s*$/;
const FRAME = /^\s+(.+?) \((.+?)(?::(\d+))?\)\s*$/;

/** Parses `py-spy dump` text. Lines it does not know (locals, native frames' extras) are skipped. */
export function parsePySpyDump(text: string): ProcessStack {
  const out: ProcessStack = { threads: [] };
  let thread: ThreadStack | undefined;
  for (const line of text.split(/\r?\n/)) {
    let m: RegExpMatchArray | null;
    if ((m = line.match(PROCESS))) {
      out.pid = Number(m[1]);
      out.title = m[2].trim();
    } else if ((m = line.match(PYTHON))) out.python = m[1].trim();
    else if ((m = line.match(THREAD))) {
      thread = { id: m[1].startsWith('0x') ? parseInt(m[1], 16) : Number(m[1]), name: m[3], idle: m[2] === 'idle', frames: [] };
      out.threads.push(thread);
    } else if (thread && (m = line.match(FRAME))) thread.frames.push({ func: m[1], file: m[2], line: m[3] ? Number(m[3]) : undefined });
  }
  return out;
}

export type StackFailureKind = 'profiling-disabled' | 'py-spy-missing' | 'not-permitted' | 'process-gone' | 'other';

export interface StackFailure {
  kind: StackFailureKind;
  /** The dashboard's own text, trimmed (py-spy's stderr without its Rust backtrace). */
  detail: string;
}

/** Why the dashboard gave no stack: from its HTTP status and body (Ray 2.58 reporter_head.py / profile_manager.py). */
export function classifyTracebackError(status: number, body: string): StackFailure {
  const detail = body
    .replace(/\nStack backtrace:[\s\S]*?(?=\n=== |$)/, '')
    .trim()
    .slice(0, 1500);
  if (status === 403 || /Profiling is disabled/i.test(body)) return { kind: 'profiling-disabled', detail };
  if (/py-spy is not installed/i.test(body)) return { kind: 'py-spy-missing', detail };
  if (/Permission denied|Operation not permitted|os error (1|13)\b/i.test(body)) return { kind: 'not-permitted', detail };
  if (/No such process|No such file or directory|Check that the process is running/i.test(body)) return { kind: 'process-gone', detail };
  return { kind: 'other', detail };
}

/** Frames of libraries and of Python itself: what a process waits *in*, never what it was doing. */
const LIBRARY =
  /^(ray|grpc|aiohttp|asyncio|concurrent|multiprocessing|importlib|logging|json|http|urllib|email|torch|vllm|uvloop|anyio|starlette|uvicorn|tornado)\/|^(threading|selectors|queue|socket|ssl|subprocess|runpy|contextlib|functools|weakref|signal|socketserver|codecs|typing|inspect|traceback|pickle|copy|os|shutil|tempfile|time)\.py$|^<frozen |\/(lib\/python3[^/]*|site-packages)\/(?!trinity\/)/;

const isLibrary = (f: Frame): boolean => LIBRARY.test(f.file);

/** Blocking calls a person recognises, by (function, file). */
const BLOCKING: Array<{ func: RegExp; file: RegExp; label: string }> = [
  { func: /^get$/, file: /^ray\/_private\/worker\.py$/, label: 'ray.get' },
  { func: /^wait$/, file: /^ray\/_private\/worker\.py$/, label: 'ray.wait' },
  { func: /^wait$/, file: /^threading\.py$/, label: 'threading wait' },
  { func: /^(get|put)$/, file: /^queue\.py$/, label: 'queue' },
  { func: /^result$/, file: /^concurrent\/futures\/_base\.py$/, label: 'Future.result' },
  { func: /^run_until_complete$/, file: /^asyncio\/base_events\.py$/, label: 'asyncio run_until_complete' },
  { func: /^\w+$/, file: /^torch\/distributed\//, label: 'torch.distributed' },
  { func: /^select$/, file: /^selectors\.py$/, label: 'select (I/O or event loop)' },
];

export interface WaitPoint {
  /** The blocking call, named (`ray.get`), else the innermost frame's function. */
  call: string;
  /** The frame of the program's own code that made it; undefined when no such frame. */
  frame?: Frame;
  thread?: string;
}

/** The frames that run an actor's method under Ray's worker loop (below them: the method). */
const EXECUTOR = /^(actor_method_executor|_resume_span|function_executor)$/;

/** The thread that runs the actor's method (Ray runs sync methods on MainThread) or MainThread. */
function workThread(p: ProcessStack): ThreadStack | undefined {
  const runs = p.threads.find((t) => t.frames.some((f, i) => !isLibrary(f) && i + 1 < t.frames.length && EXECUTOR.test(t.frames[i + 1].func)));
  return runs ?? p.threads.find((t) => t.name === 'MainThread') ?? p.threads.find((t) => t.frames.some((f) => !isLibrary(f)));
}

/** Where the process waits: the program's innermost own frame and the blocking call inside it. */
export function waitingFrame(p: ProcessStack): WaitPoint | undefined {
  const t = workThread(p);
  if (!t || !t.frames.length) return undefined;
  const own = t.frames.findIndex((f) => !isLibrary(f));
  if (own < 0) return undefined; // Ray's loop with nothing of the program on it: idle
  const inner = t.frames.slice(0, own);
  // the outermost recognisable call below the program's frame: `ray.get`, not its helpers
  let call: string | undefined;
  for (let i = inner.length - 1; i >= 0 && !call; i--) call = BLOCKING.find((b) => b.func.test(inner[i].func) && b.file.test(inner[i].file))?.label;
  return { call: call ?? (inner[0] ? inner[0].func : t.frames[own].func), frame: t.frames[own], thread: t.name };
}

export type Role = 'explorer' | 'trainer' | 'synchronizer' | 'rollout' | 'workflow' | 'driver' | 'other';

const ROLE_ORDER: readonly Role[] = ['explorer', 'trainer', 'synchronizer', 'rollout', 'workflow', 'driver', 'other'];

/** Trinity's actors by name (explorer, trainer, synchronizer, `<explorer>_rollout_model_<i>`) or class. */
export function roleOf(a: Pick<RayActor, 'name' | 'class_name'>): Role {
  const name = a.name ?? '';
  const cls = a.class_name ?? '';
  if (/_rollout_model_\d+$|^rollout_model/.test(name) || /RolloutModel$|^vLLM|^ExternalModel$|^TinkerModel$/.test(cls)) return 'rollout';
  if (/WorkflowRunner$/.test(cls) || /workflow_runner/.test(name)) return 'workflow';
  if (name === 'explorer' || /^Explorer$/.test(cls)) return 'explorer';
  if (name === 'trainer' || /^Trainer$/.test(cls)) return 'trainer';
  if (name === 'synchronizer' || /^Synchronizer$/.test(cls)) return 'synchronizer';
  return 'other';
}

const DONE = new Set(['FINISHED', 'FAILED']);

export interface WaitEdge {
  /** actor id, or 'driver' for the job's driver */
  from: string;
  to: string;
  /** What the waiter asked for (`Synchronizer.wait_for_explorer_state`). */
  task: string;
  /** 'tasks': read from the task table; 'frame': only from a `wait_for_<role>` frame name. */
  source: 'tasks' | 'frame';
}

/**
 * Who waits on whom. From the task table: a task not yet finished on actor B whose parent is a
 * task running on actor A (or the driver) means A waits on B. From the stacks, for actors the
 * table says nothing about: a frame named `wait_for_<role>` of actor A waits on the actor of that role.
 */
export function waitEdges(actors: RayActor[], tasks: RayTask[], waits: Map<string, WaitPoint | undefined> = new Map()): WaitEdge[] {
  const byId = new Map(tasks.map((t) => [t.task_id, t]));
  const known = new Set(actors.map((a) => a.actor_id));
  const edges: WaitEdge[] = [];
  const seen = new Set<string>();
  const add = (e: WaitEdge) => {
    const k = `${e.from}>${e.to}`;
    if (e.from === e.to || seen.has(k)) return;
    seen.add(k);
    edges.push(e);
  };
  for (const t of tasks) {
    if (DONE.has(t.state ?? '') || !t.actor_id || !known.has(t.actor_id) || !t.parent_task_id) continue;
    const parent = byId.get(t.parent_task_id);
    if (parent?.actor_id && known.has(parent.actor_id) && !DONE.has(parent.state ?? ''))
      add({ from: parent.actor_id, to: t.actor_id, task: t.name ?? t.task_id, source: 'tasks' });
    // the driver's task is not in the table; its id is 40 f's and the job id
    else if (parent?.type === 'DRIVER_TASK' || (!parent && /^f{40}[0-9a-f]{8}$/.test(t.parent_task_id)))
      add({ from: 'driver', to: t.actor_id, task: t.name ?? t.task_id, source: 'tasks' });
  }
  const fromTasks = new Set(edges.map((e) => e.from));
  for (const a of actors) {
    const w = waits.get(a.actor_id);
    const m = w?.frame?.func.match(/wait_for_(explorer|trainer|synchronizer)(?![a-z])/);
    if (!m || fromTasks.has(a.actor_id)) continue;
    const target = actors.find((b) => b.actor_id !== a.actor_id && roleOf(b) === m[1]);
    if (target) add({ from: a.actor_id, to: target.actor_id, task: w!.frame!.func, source: 'frame' });
  }
  return edges;
}

/** A cycle among the waits (a deadlock): the actor ids around it, or undefined. */
export function waitCycle(edges: WaitEdge[]): string[] | undefined {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === 'open') return path.slice(path.indexOf(n));
    if (state.get(n) === 'done') return undefined;
    state.set(n, 'open');
    path.push(n);
    for (const m of next.get(n) ?? []) {
      const c = visit(m);
      if (c) return c;
    }
    path.pop();
    state.set(n, 'done');
    return undefined;
  };
  for (const n of next.keys()) {
    const c = visit(n);
    if (c) return c;
  }
  return undefined;
}

export interface ActorStacks {
  actor: RayActor;
  role: Role;
  /** The dump, when the dashboard gave one. */
  stack?: ProcessStack;
  /** The dashboard's raw text (kept for the report). */
  raw?: string;
  error?: StackFailure;
  wait?: WaitPoint;
  /** Tasks this actor is running now (task table). */
  running: string[];
}

export interface StacksReport {
  /** In ROLE_ORDER, each role's actors by name. */
  groups: Array<{ role: Role; actors: ActorStacks[] }>;
  waits: WaitEdge[];
  /** The actors of a wait cycle (a deadlock), in order. */
  cycle?: string[];
}

export interface TakenStack {
  actor: RayActor;
  /** The dashboard's answer: status and body. */
  status: number;
  body: string;
}

/** Puts the dumps, the actors and the task table together; `others`: actors of the run whose
 *  stacks were not taken (a single actor's view), still named as the ones it waits on. */
export function stacksReport(taken: TakenStack[], tasks: RayTask[], others: RayActor[] = []): StacksReport {
  const list: ActorStacks[] = taken.map(({ actor, status, body }) => {
    const running = tasks.filter((t) => t.actor_id === actor.actor_id && t.state === 'RUNNING').map((t) => t.name ?? t.task_id);
    const role = actor.actor_id === 'driver' ? 'driver' : roleOf(actor);
    if (status < 200 || status >= 300) return { actor, role, running, error: classifyTracebackError(status, body) };
    const stack = parsePySpyDump(body);
    if (!stack.threads.length) return { actor, role, running, raw: body, error: { kind: 'other', detail: body.trim().slice(0, 500) || 'empty answer' } };
    return { actor, role, running, raw: body, stack, wait: waitingFrame(stack) };
  });
  const ids = new Set(taken.map((t) => t.actor.actor_id));
  const waits = waitEdges(
    [...taken.map((t) => t.actor), ...others.filter((a) => !ids.has(a.actor_id))],
    tasks,
    new Map(list.map((a) => [a.actor.actor_id, a.wait])),
  );
  const groups = ROLE_ORDER.map((role) => ({
    role,
    actors: list
      .filter((a) => a.role === role)
      .sort((x, y) => (x.actor.name ?? x.actor.class_name ?? '').localeCompare(y.actor.name ?? y.actor.class_name ?? '', 'en', { numeric: true })),
  })).filter((g) => g.actors.length);
  return { groups, waits, cycle: waitCycle(waits) };
}

/** `explorer (Explorer)` / `Explorer 1a2b3c4d`: how an actor is named in rows and the report. */
export function actorLabel(a: Pick<RayActor, 'actor_id' | 'name' | 'class_name'>): string {
  if (a.name && a.class_name && a.name !== a.class_name) return `${a.name} (${a.class_name})`;
  return a.name || `${a.class_name ?? 'actor'} ${a.actor_id.slice(0, 8)}`;
}

/** `explore_step (deadlock_job.py:32)` */
export const frameText = (f: Frame): string => `${f.func} (${f.file}${f.line !== undefined ? `:${f.line}` : ''})`;
