// The rollout debugger's Debug Adapter Protocol layer (@vscode/debugadapter), run inline
// in the extension host or over a socket in tests. Threads are episodes (T<task>#R<k>),
// stack frames are turns, scopes show request / response / episode; it maps DAP requests
// onto the RolloutRuntime and its events back onto DAP events.
import {
  DebugSession,
  ExitedEvent,
  InitializedEvent,
  InvalidatedEvent,
  OutputEvent,
  ProgressEndEvent,
  ProgressStartEvent,
  ProgressUpdateEvent,
  Source,
  StoppedEvent,
  TerminatedEvent,
  Thread,
  ThreadEvent,

  Handles,
  Scope,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as path from 'path';
import { english, type L10n } from '../../shared/l10n';
import type { Episode, Turn } from '../runtime/episode';
import { parseBreakpoint, exceptionFilters, EXCEPTION_FILTERS, type EventBreakpoint, type ExceptionFilter } from '../runtime/breakpoints';
import { prepareLaunch, type LaunchDeps, type RunHandle } from './launch';
import { RolloutRuntime, type StopInfo } from '../runtime/rollout-runtime';
import { evaluationRoot, scopesFor, stackFrame } from './frames';
import { absolutePath, getPath, parseEditedValue, parsePath, PathError, setPath, type PathSegment } from './paths';
import { preview, VariableStore, type EditTarget } from './variables';
import type { RolloutLaunchArgs } from '../runtime/plan';

/** The thread shown for runner-level stops (import / task-loading errors). */
export const RUNNER_THREAD = 1_000_000;

type LaunchRequestArgs = DebugProtocol.LaunchRequestArguments & RolloutLaunchArgs & { __pythonDebuggerNote?: string };

export class RolloutDebugSession extends DebugSession {
  private runtime?: RunHandle;
  private readonly vars = new VariableStore();
  private readonly frames = new Handles<{ ep: Episode; turn: Turn }>();
  private functionBreakpoints: EventBreakpoint[] = [];
  private launchBreakpoints: EventBreakpoint[] = [];
  private filters: ExceptionFilter[] = EXCEPTION_FILTERS.filter((f) => f.default).map((f) => f.filter);
  private configurationDone!: () => void;
  private readonly configured = new Promise<void>((r) => (this.configurationDone = r));
  private progress = false;
  private ended = false;

  private readonly l10n: L10n;

  constructor(private readonly deps: LaunchDeps) {
    super();
    this.l10n = deps.l10n ?? english;
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
  }

  protected override initializeRequest(response: DebugProtocol.InitializeResponse, args: DebugProtocol.InitializeRequestArguments): void {
    this.progress = args.supportsProgressReporting === true;
    response.body = {
      ...response.body,
      supportsConfigurationDoneRequest: true,
      supportsFunctionBreakpoints: true,
      supportsSetVariable: true,
      supportsEvaluateForHovers: true,
      supportsExceptionInfoRequest: true,
      supportsTerminateRequest: true,
      supportsDelayedStackTraceLoading: false,
      supportsValueFormattingOptions: false,
      exceptionBreakpointFilters: exceptionFilters(this.l10n).map((f) => ({ filter: f.filter, label: f.label, description: f.description, default: f.default })),
    };
    this.sendResponse(response);
    this.sendEvent(new InitializedEvent());
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.configurationDone();
    this.sendResponse(response);
  }

  protected override async launchRequest(response: DebugProtocol.LaunchResponse, args: LaunchRequestArgs): Promise<void> {
    const prepared = await prepareLaunch(args, this.deps);
    if (!prepared.ok) {
      return this.sendErrorResponse(response, { id: 1001, format: prepared.message, showUser: true });
    }
    for (const line of prepared.notes) this.console(`${line}\n`);
    this.launchBreakpoints = [];
    for (const b of args.breakOn ?? []) {
      const p = parseBreakpoint(String(b));
      if (p.ok) this.launchBreakpoints.push(p.bp);
      else this.console(`breakOn: ${p.message}\n`, 'important');
    }
    // Breakpoints and exception filters arrive before configurationDone (up to 5 s).
    await Promise.race([this.configured, new Promise((r) => setTimeout(r, 5000))]);
    const rt = prepared.runtime;
    this.runtime = rt;
    this.applyBreakpoints();
    this.wire(rt);
    try {
      await rt.start();
    } catch (e) {
      this.sendErrorResponse(response, { id: 1002, format: this.l10n.t('Agent RL: {0}', (e as Error).message), showUser: true });
      this.end();
      return;
    }
    this.sendResponse(response);
  }

  private wire(rt: RunHandle): void {
    rt.on('output', (o) => {
      const e = new OutputEvent(o.text, o.category) as DebugProtocol.OutputEvent;
      if (o.source) {
        e.body.source = new Source(path.basename(o.source.path), o.source.path);
        e.body.line = this.convertDebuggerLineToClient(o.source.line);
      }
      this.sendEvent(e);
    });
    rt.on('episodeStarted', (ep) => {
      this.sendEvent(new ThreadEvent('started', ep.threadId));
      if (this.progress) this.sendEvent(new ProgressStartEvent(`episode-${ep.threadId}`, `Rollout ${ep.id}`, 'starting'));
    });
    rt.on('episodeProgress', (ep, message) => {
      if (this.progress) this.sendEvent(new ProgressUpdateEvent(`episode-${ep.threadId}`, message));
    });
    rt.on('episodeEnded', (ep) => {
      const l10n = this.l10n;
      if (this.progress) this.sendEvent(new ProgressEndEvent(`episode-${ep.threadId}`, ep.error ? l10n.t('error: {0}', ep.error.message) : l10n.t('reward {0}', String(ep.reward ?? 'none'))));
      const text = ep.error ? l10n.t('{0}: {1} error {2}: {3}', ep.id, ep.error.phase, ep.error.type, ep.error.message) + '\n' : l10n.t('{0}: reward {1}', ep.id, String(ep.reward ?? 'none')) + '\n';
      this.console(text);
    });
    rt.on('stopped', (s) => this.onStopped(s));
    rt.on('continued', () => {
      // Other episodes may still be stopped: their frames stay valid until none is.
      if (rt instanceof RolloutRuntime && rt.stop) return;
      this.vars.reset();
      this.frames.reset();
    });
    rt.on('pythonDebugger', (endpoint) => {
      void this.deps.startPythonDebugger?.(endpoint).then((ok) => {
        if (!ok) this.console(this.l10n.t('The Python debugger session could not attach; Python breakpoints are off for this run.') + '\n', 'important');
      });
    });
    rt.on('ended', () => this.end());
  }

  private onStopped(s: StopInfo): void {
    const threadId = s.episode?.threadId ?? RUNNER_THREAD;
    const ev = new StoppedEvent(s.reason, threadId, s.text) as DebugProtocol.StoppedEvent;
    ev.body.description = s.description;
    // Only this episode waits; the others keep running (and recording).
    ev.body.allThreadsStopped = false;
    this.sendEvent(ev);
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    const failed = this.runtime?.summary?.status === 'failed';
    this.sendEvent(new ExitedEvent(failed ? 1 : 0));
    this.sendEvent(new TerminatedEvent());
  }

  private console(text: string, category = 'console'): void {
    this.sendEvent(new OutputEvent(text, category));
  }

  // ------------------------------------------------------------------ breakpoints

  protected override setFunctionBreakPointsRequest(response: DebugProtocol.SetFunctionBreakpointsResponse, args: DebugProtocol.SetFunctionBreakpointsArguments): void {
    this.functionBreakpoints = [];
    response.body = {
      breakpoints: args.breakpoints.map((b) => {
        const p = parseBreakpoint(b.name);
        if (p.ok) this.functionBreakpoints.push(p.bp);
        return p.ok ? { verified: true } : { verified: false, message: p.message };
      }),
    };
    this.applyBreakpoints();
    this.sendResponse(response);
  }

  protected override setExceptionBreakPointsRequest(response: DebugProtocol.SetExceptionBreakpointsResponse, args: DebugProtocol.SetExceptionBreakpointsArguments): void {
    const known = new Set(EXCEPTION_FILTERS.map((f) => f.filter));
    this.filters = args.filters.filter((f): f is ExceptionFilter => known.has(f as ExceptionFilter));
    this.runtime?.setExceptionFilters(this.filters);
    response.body = { breakpoints: args.filters.map((f) => ({ verified: known.has(f as ExceptionFilter) })) };
    this.sendResponse(response);
  }

  private applyBreakpoints(): void {
    this.runtime?.setBreakpoints([...this.launchBreakpoints, ...this.functionBreakpoints]);
    this.runtime?.setExceptionFilters(this.filters);
  }

  // ------------------------------------------------------------------ threads, frames, variables

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const rt = this.runtime;
    const threads = (rt?.episodes ?? []).map((ep) => new Thread(ep.threadId, threadName(ep, this.l10n)));
    const runnerStop = rt instanceof RolloutRuntime ? rt.stopOf(undefined) : rt?.stop && !rt.stop.episode;
    if (!threads.length || runnerStop) threads.push(new Thread(RUNNER_THREAD, this.l10n.t('runner')));
    response.body = { threads };
    this.sendResponse(response);
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    const rt = this.runtime;
    const ep = rt?.episodeByThread(args.threadId);
    if (!rt || !ep) {
      response.body = { stackFrames: [], totalFrames: 0 };
      return this.sendResponse(response);
    }
    const turns = [...ep.turns].reverse();
    const start = args.startFrame ?? 0;
    const end = args.levels ? start + args.levels : turns.length;
    response.body = {
      stackFrames: turns.slice(start, end).map((turn) => stackFrame(this.frames.create({ ep, turn }), ep, turn)),
      totalFrames: turns.length,
    };
    this.sendResponse(response);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const f = this.frames.get(args.frameId);
    if (!f || !(this.runtime instanceof RolloutRuntime)) {
      response.body = { scopes: [] };
      return this.sendResponse(response);
    }
    response.body = {
      scopes: scopesFor(this.runtime, f.ep, f.turn, this.l10n).map((s) => {
        const scope = new Scope(s.name, this.vars.nodes(s.nodes), s.expensive ?? false) as DebugProtocol.Scope;
        if (s.presentationHint) scope.presentationHint = s.presentationHint;
        return scope;
      }),
    };
    this.sendResponse(response);
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    response.body = { variables: this.vars.variables(args.variablesReference, args.start ?? 0, args.count ?? 0) };
    this.sendResponse(response);
  }

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    const c = this.vars.get(args.variablesReference);
    let root: (() => unknown) | undefined;
    let p: PathSegment[] = [];
    let edit: EditTarget | undefined;
    if (c?.kind === 'nodes') {
      const n = c.nodes.find((x) => x.name === args.name);
      if (n) ({ root, path: p, edit } = n);
    } else if (c) {
      const m = /^\[(\d+)\]$/.exec(args.name);
      root = c.root;
      p = [...c.path, m ? Number(m[1]) : args.name];
      edit = c.edit;
    }
    if (!root || !edit || !edit.allowed()) {
      return this.sendErrorResponse(response, { id: 2001, format: this.l10n.t('Only the pending request (stopped before an LLM call is sent) or the held reply of a tool-call stop can be edited.'), showUser: true });
    }
    try {
      const value = parseEditedValue(args.value, getPath(root(), p));
      setPath(edit.edit(), p, value);
      edit.changed?.();
      const v = this.vars.variable(args.name, root, p, edit);
      response.body = { value: v.value, variablesReference: v.variablesReference, indexedVariables: v.indexedVariables, namedVariables: v.namedVariables };
      this.sendResponse(response);
      this.sendEvent(new InvalidatedEvent(['variables']));
    } catch (e) {
      this.sendErrorResponse(response, { id: 2002, format: this.l10n.t('Cannot set {0}: {1}', args.name, (e as Error).message), showUser: true });
    }
  }

  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    const rt = this.runtime instanceof RolloutRuntime ? this.runtime : undefined;
    const f = args.frameId !== undefined ? this.frames.get(args.frameId) : undefined;
    const ep = f?.ep ?? rt?.stop?.episode;
    const turn = f?.turn ?? rt?.stopOf(ep)?.turn;
    if (!rt || !ep) return this.sendErrorResponse(response, { id: 3001, format: this.l10n.t('Evaluate needs a stopped episode (select a frame).'), showUser: false });
    const expr = args.expression.trim();
    try {
      const assign = splitAssignment(expr);
      if (assign) return this.assign(response, rt, ep, turn, assign.lhs, assign.rhs);
      const root = evaluationRoot(ep, turn);
      const p = parsePath(expr);
      getPath(root, p); // throws a readable error when missing
      const v = this.vars.variable(expr, () => root, p);
      response.body = { result: v.value, variablesReference: v.variablesReference, indexedVariables: v.indexedVariables, namedVariables: v.namedVariables, type: v.type };
      this.sendResponse(response);
    } catch (e) {
      this.sendErrorResponse(response, { id: 3002, format: e instanceof PathError ? e.message : String((e as Error).message ?? e), showUser: false });
    }
  }

  /** `messages[-1].content = "..."` in the Debug Console edits the pending request. */
  private assign(response: DebugProtocol.EvaluateResponse, rt: RolloutRuntime, ep: Episode, turn: Turn | undefined, lhs: string, rhs: string): void {
    const held = rt.stopOf(ep);
    if (!turn || turn.kind !== 'llm' || !held || held.turn !== turn || held.editable !== 'request') {
      throw new PathError(this.l10n.t('assignments edit the pending request: stop before an LLM call (breakpoint "llm") and select its frame'));
    }
    let p = parsePath(lhs);
    if (p[0] === 'request') p = p.slice(1);
    else if (p[0] !== 'messages' && p[0] !== 'tools') throw new PathError(this.l10n.t('assign to messages[...], tools[...] or request.<field>'));
    const req = turn.sent ?? turn.request;
    p = absolutePath(req, p);
    const value = parseEditedValue(rhs, getPath(req, p));
    setPath(rt.editableRequest(turn), p, value);
    response.body = { result: preview(value), variablesReference: 0 };
    this.sendResponse(response);
    this.sendEvent(new InvalidatedEvent(['variables']));
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse, args: DebugProtocol.ExceptionInfoArguments): void {
    const rt = this.runtime;
    const ep = rt?.episodeByThread(args.threadId);
    const s = rt instanceof RolloutRuntime ? rt.stopOf(ep) : rt?.stop;
    if (!s?.exception) {
      return this.sendErrorResponse(response, { id: 4001, format: this.l10n.t('no exception on this thread'), showUser: false });
    }
    response.body = {
      exceptionId: s.exception.id,
      description: s.exception.description,
      breakMode: 'always',
      details: { message: s.exception.description, typeName: s.exception.id, stackTrace: s.exception.details },
    };
    this.sendResponse(response);
  }

  // ------------------------------------------------------------------ execution control

  protected override continueRequest(response: DebugProtocol.ContinueResponse, args: DebugProtocol.ContinueArguments): void {
    this.runtime?.resume('continue', this.runtime.episodeByThread(args.threadId));
    response.body = { allThreadsContinued: false };
    this.sendResponse(response);
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    this.runtime?.resume('next', this.runtime.episodeByThread(args.threadId));
    this.sendResponse(response);
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    this.runtime?.resume('stepIn', this.runtime.episodeByThread(args.threadId));
    this.sendResponse(response);
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    this.runtime?.resume('stepOut', this.runtime.episodeByThread(args.threadId));
    this.sendResponse(response);
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse, args: DebugProtocol.PauseArguments): void {
    this.runtime?.pause(this.runtime.episodeByThread(args.threadId));
    this.sendResponse(response);
  }

  protected override async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    await this.runtime?.terminate();
    this.sendResponse(response);
    this.end();
  }

  protected override async disconnectRequest(response: DebugProtocol.DisconnectResponse): Promise<void> {
    await this.runtime?.terminate();
    this.sendResponse(response);
  }
}

function threadName(ep: Episode, l10n: L10n): string {
  if (ep.status === 'running') return ep.id;
  if (ep.error) return `${ep.id} ✗ ${ep.error.type}`;
  return `${ep.id} ✓ ${l10n.t('reward {0}', String(ep.reward ?? 'none'))}`;
}

/** `lhs = rhs` at top level (not inside quotes or brackets, not `==`). */
export function splitAssignment(expr: string): { lhs: string; rhs: string } | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[') depth++;
    else if (ch === ']') depth--;
    else if (ch === '=' && depth === 0 && expr[i + 1] !== '=' && expr[i - 1] !== '=' && expr[i - 1] !== '!' && expr[i - 1] !== '<' && expr[i - 1] !== '>') {
      return { lhs: expr.slice(0, i).trim(), rhs: expr.slice(i + 1).trim() };
    }
  }
  return undefined;
}


