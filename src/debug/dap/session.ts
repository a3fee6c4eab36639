// The rollout debugger's Debug Adapter Protocol layer (@vscode/debugadapter), run inline in the extension host or over a socket in
// tests. Threads are episodes (T<task>#R<k>), stack frames are turns, scopes show request / response / episode. As in vscode-mock-debug,
// the session maps DAP requests onto its run (a RunHandle: the native runtime or an upstream backbone's run, told apart by nothing but
// what they do) and reacts to the run's events with DAP events. How turns look (frames, scopes) is frames.ts; variables and paths are
// variables.ts / paths.ts.
import {
  DebugSession,
  Event,
  ExitedEvent,
  Handles,
  InitializedEvent,
  InvalidatedEvent,
  OutputEvent,
  ProgressEndEvent,
  ProgressStartEvent,
  ProgressUpdateEvent,
  Scope,
  Source,
  StoppedEvent,
  TerminatedEvent,
  Thread,
  ThreadEvent,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as path from 'path';
import { english, type L10n } from '../../base/l10n';
import { EXCEPTION_FILTERS, exceptionFilters, parseBreakpoint, type EventBreakpoint, type ExceptionFilter } from '../runtime/breakpoints';
import { editableRequest } from '../runtime/edit-copies';
import type { Episode, EpisodeTurn, LlmTurn } from '../runtime/episode';
import { callTokens, NoCallTokens } from '../tokens/call-tokens';
import { returnedTokens } from '../tokens/returned-tokens';
import { toWire } from '../../tokens/experience-wire';
import type { RolloutLaunchArgs } from '../runtime/plan';
import type { RunHandle, RunOutput } from '../runtime/run-handle';
import type { ResumeMode, StopInfo } from '../runtime/stop-policy';
import { evaluationRoot, scopesFor, stackFrame } from './frames';
import { RowReplayDap } from './row-replay-dap';
import type { RolloutRuntime } from '../runtime/rollout-runtime';
import { prepareLaunch, type LaunchContext } from './launch';
import { absolutePath, getPath, parseEditedValue, parsePath, PathError, setPath, splitAssignment, type PathSegment } from './paths';
import { preview, VariableStore, type EditTarget } from './variables';
import { GO_LIVE_REQUEST, REPLAY_DIVERGED_EVENT } from '../protocol/replay-live';

/** The custom DAP request of "Show tokens". */
export const CALL_TOKENS_REQUEST = 'agentrl.callTokens';
export const EXPERIENCE_TOKENS_REQUEST = 'agentrl.experienceTokens';

/** The thread shown for runner-level stops (import / task-loading errors). */
const RUNNER_THREAD = 1_000_000;

type LaunchRequestArgs = DebugProtocol.LaunchRequestArguments & RolloutLaunchArgs & { __pythonDebuggerNote?: string };

/** A DAP error response: its id, text, and whether VS Code shows it to the user. */
class DapError extends Error {
  constructor(
    readonly id: number,
    message: string,
    readonly showUser: boolean,
  ) {
    super(message);
  }
}

export class RolloutDebugSession extends DebugSession {
  private run?: RunHandle;
  /** The training experience a `rollout` launch replays. */
  private row?: RowReplayDap;
  private readonly vars = new VariableStore();
  /** Stack frame ids: one per turn shown, valid until the run goes on. */
  private readonly frames = new Handles<{ ep: Episode; turn: EpisodeTurn }>();
  /** The LLM call each Response scope shows, by the scope's variables reference. */
  private readonly callScopes = new Map<number, { ep: Episode; turn: LlmTurn }>();
  private readonly returnedScopes = new Map<number, Episode>();
  private launchBreakpoints: EventBreakpoint[] = [];
  private functionBreakpoints: EventBreakpoint[] = [];
  private exceptionFilters: ExceptionFilter[] = EXCEPTION_FILTERS.filter((f) => f.default).map((f) => f.filter);
  private configurationDone!: () => void;
  private readonly configured = new Promise<void>((r) => (this.configurationDone = r));
  /** The client shows progress (initialize's supportsProgressReporting). */
  private reportProgress = false;
  /** The progress notification shown for each episode that is running (by thread id). */
  private readonly progress = new Map<number, string>();
  /** Episodes whose progress ended at a stop: it comes back when they go on. */
  private readonly halted = new Set<Episode>();
  private progressSeq = 0;
  private ended = false;
  private readonly l10n: L10n;

  constructor(private readonly context: LaunchContext) {
    super();
    this.l10n = context.l10n ?? english;
    this.setDebuggerLinesStartAt1(true);
    this.setDebuggerColumnsStartAt1(true);
  }

  // ------------------------------------------------------------------ the run's events

  /** Reacts to the run as mock-debug's session reacts to its runtime: each event as DAP. */
  private attach(run: RunHandle): void {
    this.run = run;
    run.on('output', (o) => this.onOutput(o));
    run.on('episodeStarted', (ep) => {
      this.sendEvent(new ThreadEvent('started', ep.threadId));
      this.showProgress(ep, 'starting');
    });
    run.on('episodeProgress', (ep, message) => this.showProgress(ep, message));
    run.on('episodeEnded', (ep) => {
      this.endProgress(ep, ep.error ? this.l10n.t('error: {0}', ep.error.message) : this.l10n.t('reward {0}', String(ep.reward ?? 'none')));
      const l10n = this.l10n;
      this.console(
        ep.error
          ? l10n.t('{0}: {1} error {2}: {3}', ep.id, ep.error.phase, ep.error.type, ep.error.message) + '\n'
          : l10n.t('{0}: reward {1}', ep.id, String(ep.reward ?? 'none')) + '\n',
      );
    });
    run.on('stopped', (s) => this.onStopped(s));
    run.on('continued', () => {
      for (const ep of this.halted) {
        if (run.stopOf(ep)) continue;
        this.halted.delete(ep);
        if (ep.status === 'running') this.showProgress(ep, this.l10n.t('resumed'));
      }
      // Other episodes may still be stopped: their frames stay valid until none is.
      if (run.stop) return;
      this.vars.reset();
      this.callScopes.clear();
      this.returnedScopes.clear();
      this.frames.reset();
    });
    run.on('pythonDebugger', (endpoint) => {
      void this.context.startPythonDebugger?.(endpoint).then((ok) => {
        if (!ok) this.console(this.l10n.t('The Python debugger session could not attach; Python breakpoints are off for this run.') + '\n', 'important');
      });
    });
    run.on('ended', () => {
      this.reportRow();
      this.end();
    });
  }

  /** A row replay's last words, and its result as the `agentrl.rowReplay` event for the UI. */
  private reportRow(): void {
    if (!this.row || !this.run) return;
    const { lines, finding, result } = this.row.report(this.run as RolloutRuntime);
    this.console(lines);
    if (finding) this.console(finding + '\n', 'important');
    this.sendEvent(new Event('agentrl.rowReplay', result));
  }

  private onOutput(o: RunOutput): void {
    const e = new OutputEvent(o.text, o.category) as DebugProtocol.OutputEvent;
    if (o.source) {
      e.body.source = new Source(path.basename(o.source.path), o.source.path);
      e.body.line = this.convertDebuggerLineToClient(o.source.line);
    }
    this.sendEvent(e);
  }

  private onStopped(s: StopInfo): void {
    // A notification saying "LLM call #1" while the episode waits at a breakpoint misleads:
    // the episode's progress ends here, and starts again with its next step.
    if (s.episode) {
      this.endProgress(s.episode, this.l10n.t('stopped: {0}', s.description));
      this.halted.add(s.episode);
    }
    const ev: DebugProtocol.StoppedEvent = new StoppedEvent(s.reason, s.episode?.threadId ?? RUNNER_THREAD, s.text);
    ev.body.description = s.description;
    // Only this episode waits; the others keep running (and recording).
    ev.body.allThreadsStopped = false;
    this.sendEvent(ev);
    // A row replay stopped where it diverged: the UI offers to go on against the live model.
    const offer = this.row?.divergedOffer(s);
    if (offer) this.sendEvent(new Event(REPLAY_DIVERGED_EVENT, offer));
  }

  /** The episode's progress notification with `message`, started when it has none. */
  private showProgress(ep: Episode, message: string): void {
    if (!this.reportProgress) return;
    const id = this.progress.get(ep.threadId);
    if (id) return this.sendEvent(new ProgressUpdateEvent(id, message));
    const fresh = `episode-${ep.threadId}-${++this.progressSeq}`;
    this.progress.set(ep.threadId, fresh);
    this.sendEvent(new ProgressStartEvent(fresh, `Rollout ${ep.id}`, message));
  }

  private endProgress(ep: Episode, message: string): void {
    const id = this.progress.get(ep.threadId);
    if (!id) return;
    this.progress.delete(ep.threadId);
    this.sendEvent(new ProgressEndEvent(id, message));
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    const failed = this.run?.summary?.status === 'failed';
    this.sendEvent(new ExitedEvent(failed ? 1 : 0));
    this.sendEvent(new TerminatedEvent());
  }

  private console(text: string, category = 'console'): void {
    this.sendEvent(new OutputEvent(text, category));
  }

  /** Answers `response` with what `body()` gives, or with the DapError it throws. */
  private answer<R extends DebugProtocol.Response>(response: R, body: () => R['body'], invalidate = false): void {
    try {
      response.body = body();
    } catch (e) {
      if (!(e instanceof DapError)) throw e;
      return this.sendErrorResponse(response, { id: e.id, format: e.message, showUser: e.showUser });
    }
    this.sendResponse(response);
    if (invalidate) this.sendEvent(new InvalidatedEvent(['variables']));
  }

  // ------------------------------------------------------------------ launch

  protected override initializeRequest(response: DebugProtocol.InitializeResponse, args: DebugProtocol.InitializeRequestArguments): void {
    this.reportProgress = args.supportsProgressReporting === true;
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
      exceptionBreakpointFilters: exceptionFilters(this.l10n).map((f) => ({
        filter: f.filter,
        label: f.label,
        description: f.description,
        default: f.default,
      })),
    };
    this.sendResponse(response);
    this.sendEvent(new InitializedEvent());
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.configurationDone();
    this.sendResponse(response);
  }

  // DebugSession drops what a request handler returns: each async handler runs on its own
  // and answers its request itself.
  protected override launchRequest(response: DebugProtocol.LaunchResponse, args: LaunchRequestArgs): void {
    // An error nobody foresaw still answers the launch: unanswered, VS Code waits on it for good.
    this.launch(response, args).catch((e: unknown) => {
      this.sendErrorResponse(response, { id: 1003, format: this.l10n.t('Agent RL: {0}', e instanceof Error ? e.message : String(e)), showUser: true });
      if (this.run) this.end();
    });
  }

  private async launch(response: DebugProtocol.LaunchResponse, args: LaunchRequestArgs): Promise<void> {
    const prepared = await prepareLaunch(args, this.context);
    if (!prepared.ok) {
      return this.sendErrorResponse(response, { id: 1001, format: prepared.message, showUser: true });
    }
    for (const line of prepared.notes) this.console(`${line}\n`);
    this.row = prepared.row && new RowReplayDap(prepared.row, this.l10n);
    this.launchBreakpoints = this.parseBreakOn(args.breakOn ?? []);
    // Breakpoints and exception filters arrive before configurationDone (up to 5 s).
    await Promise.race([this.configured, new Promise((r) => setTimeout(r, 5000))]);
    const run = prepared.run;
    this.attach(run);
    this.applyBreakpoints();
    try {
      await run.start();
    } catch (e) {
      this.sendErrorResponse(response, { id: 1002, format: this.l10n.t('Agent RL: {0}', (e as Error).message), showUser: true });
      this.end();
      return;
    }
    this.sendResponse(response);
  }

  // ------------------------------------------------------------------ breakpoints

  /** launch.json `breakOn`, each an event breakpoint; the ones that do not parse are said. */
  private parseBreakOn(breakOn: readonly unknown[]): EventBreakpoint[] {
    const out: EventBreakpoint[] = [];
    for (const b of breakOn) {
      const p = parseBreakpoint(String(b));
      if (p.ok) out.push(p.bp);
      else this.console(`breakOn: ${p.message}\n`, 'important');
    }
    return out;
  }

  /** launch.json's and the Breakpoints view's, merged: both kinds arrive at any time. */
  private applyBreakpoints(): void {
    this.run?.setBreakpoints([...this.launchBreakpoints, ...this.functionBreakpoints]);
    this.run?.setExceptionFilters(this.exceptionFilters);
  }

  /** The Breakpoints view's function breakpoints, each an event breakpoint (llm, tool:<name>…). */
  protected override setFunctionBreakPointsRequest(
    response: DebugProtocol.SetFunctionBreakpointsResponse,
    args: DebugProtocol.SetFunctionBreakpointsArguments,
  ): void {
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

  protected override setExceptionBreakPointsRequest(
    response: DebugProtocol.SetExceptionBreakpointsResponse,
    args: DebugProtocol.SetExceptionBreakpointsArguments,
  ): void {
    const known = new Set(EXCEPTION_FILTERS.map((f) => f.filter));
    this.exceptionFilters = args.filters.filter((f): f is ExceptionFilter => known.has(f as ExceptionFilter));
    // Function breakpoints wait for the launch (or their own request): only the filters here.
    this.run?.setExceptionFilters(this.exceptionFilters);
    response.body = { breakpoints: args.filters.map((f) => ({ verified: known.has(f as ExceptionFilter) })) };
    this.sendResponse(response);
  }

  // ------------------------------------------------------------------ threads, frames, variables

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    const run = this.run;
    const threads = (run?.episodes ?? []).map((ep) => new Thread(ep.threadId, this.threadName(ep)));
    if (!threads.length || run?.stopOf(undefined)) threads.push(new Thread(RUNNER_THREAD, this.l10n.t('runner')));
    response.body = { threads };
    this.sendResponse(response);
  }

  private threadName(ep: Episode): string {
    if (ep.status === 'running') return ep.id;
    if (ep.error || ep.status === 'error') return `${ep.id} ✗${ep.error ? ` ${ep.error.type}` : ''}`;
    return `${ep.id} ✓ ${this.l10n.t('reward {0}', String(ep.reward ?? 'none'))}`;
  }

  /** The episode's turns, newest first. */
  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    const ep = this.run?.episodeByThread(args.threadId);
    const turns = ep ? [...ep.turns].reverse() : [];
    const start = args.startFrame ?? 0;
    const end = args.levels ? start + args.levels : turns.length;
    response.body = {
      stackFrames: ep ? turns.slice(start, end).map((turn) => stackFrame(this.frames.create({ ep, turn }), ep, turn)) : [],
      totalFrames: turns.length,
    };
    this.sendResponse(response);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    const f = this.frames.get(args.frameId);
    const run = this.run;
    response.body = {
      scopes:
        !f || !run
          ? []
          : [...scopesFor(run, f.ep, f.turn, this.l10n), ...(this.row?.recordedScopes(f.ep) ?? [])].map((s) => {
              const scope = new Scope(s.name, this.vars.nodes(s.nodes), s.expensive ?? false) as DebugProtocol.Scope;
              if (s.call) this.callScopes.set(scope.variablesReference, { ep: f.ep, turn: s.call });
              if (s.returned) this.returnedScopes.set(scope.variablesReference, s.returned);
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

  /** `agentrl.callTokens` {variablesReference of a Response scope}: that call as tokens
   *  ({experience: ExperienceWire, notes, title}), for the token view. `agentrl.experienceTokens`
   *  {variablesReference of an Episode scope}: the experiences the episode returned
   *  ({experiences: [{index, experience, turns, warnings, notes}], title}). */
  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    if (command === GO_LIVE_REQUEST) {
      // {threadId}: that episode goes on live from the call that diverged; resumed by a custom request, the UI learns it from `continued`.
      const ep = this.row?.liveEpisode(args, this.run);
      if (!ep) return this.sendErrorResponse(response, { id: 5004, format: this.row?.noLive ?? '', showUser: true });
      this.resume('continue', ep.threadId);
      this.sendResponse(response);
      return this.sendEvent(new Event('continued', { threadId: ep.threadId, allThreadsContinued: false }));
    }
    if (command !== CALL_TOKENS_REQUEST && command !== EXPERIENCE_TOKENS_REQUEST) return super.customRequest(command, response, args);
    const ref = (args as { variablesReference?: unknown } | undefined)?.variablesReference;
    const answer = command === CALL_TOKENS_REQUEST ? this.callTokensOf(ref) : this.returnedTokensOf(ref);
    answer.then(
      (body) => {
        response.body = body;
        this.sendResponse(response);
      },
      (e: unknown) => {
        const err = e instanceof DapError ? e : new DapError(5003, String(e), true);
        this.sendErrorResponse(response, { id: err.id, format: err.message, showUser: err.showUser });
      },
    );
  }

  private async callTokensOf(ref: unknown): Promise<unknown> {
    const found = typeof ref === 'number' ? this.callScopes.get(ref) : undefined;
    const tokenizers = this.run?.tokenizers;
    if (!found) throw new DapError(5001, this.l10n.t("Select a variable of an LLM call's Response to show its tokens."), true);
    if (!tokenizers) throw new DapError(5002, this.l10n.t('This run has no tokenizer to show tokens with.'), true);
    const { ep, turn } = found;
    try {
      const t = await callTokens(turn, await tokenizers.get(), this.l10n);
      const title = turn.role ? `${ep.id} ${turn.role} #${turn.index + 1}` : `${ep.id} llm #${turn.index + 1}`;
      return { experience: toWire(t.experience), notes: t.notes, title };
    } catch (e) {
      throw new DapError(5003, e instanceof NoCallTokens ? e.message : this.l10n.t('Could not show the tokens: {0}', (e as Error).message), true);
    }
  }

  private async returnedTokensOf(ref: unknown): Promise<unknown> {
    const ep = typeof ref === 'number' ? this.returnedScopes.get(ref) : undefined;
    if (!ep?.experienceTokens?.length)
      throw new DapError(
        5004,
        this.l10n.t(
          'Stop where an episode returns (Step Out of it, or a reward breakpoint), then select its experiences (Episode scope) to show the tokens training learns from.',
        ),
        true,
      );
    const choice = await this.run?.tokenizers?.get();
    const tok = choice?.kind === 'local' ? choice.tokenizer : undefined;
    try {
      const experiences = [];
      for (const e of ep.experienceTokens) {
        // The tokenizer the run found, for every view of it: the endpoint's when none is here.
        const fromEndpoint = choice?.kind === 'endpoint' ? await choice.endpoint.tokenTexts(e.tokens) : undefined;
        const r = returnedTokens(e, tok, this.l10n, fromEndpoint?.texts);
        if (choice?.kind === 'none') r.notes.push(this.l10n.t('No tokenizer: {0}', choice.reason));
        else if (choice?.kind === 'endpoint') {
          r.notes.unshift(
            this.l10n.t('Token texts from the endpoint ({0}/detokenize): no tokenizer on this machine ({1})', choice.endpoint.label, choice.localReason),
          );
          if (!fromEndpoint?.exact) r.notes.push(this.l10n.t('The endpoint decodes these tokens together differently from one by one: texts are approximate.'));
        }
        experiences.push({ index: r.index, experience: toWire(r.experience), turns: r.turns, warnings: r.warnings, notes: r.notes });
      }
      return { experiences, title: ep.id };
    } catch (e) {
      throw new DapError(5003, this.l10n.t('Could not show the tokens: {0}', (e as Error).message), true);
    }
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse, args: DebugProtocol.ExceptionInfoArguments): void {
    this.answer(response, () => {
      const s = this.run?.stopOf(this.run.episodeByThread(args.threadId));
      if (!s?.exception) throw new DapError(4001, this.l10n.t('no exception on this thread'), false);
      const { id, description, details } = s.exception;
      return { exceptionId: id, description, breakMode: 'always' as const, details: { message: description, typeName: id, stackTrace: details } };
    });
  }

  // ------------------------------------------------------------------ edits and evaluation
  // Only what a stop holds can change (the request not yet sent, or the reply whose tool
  // calls are held); anything else is refused with a message that says so.

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    this.answer(response, () => this.setVariable(args), true);
  }

  private setVariable(args: DebugProtocol.SetVariableArguments): DebugProtocol.SetVariableResponse['body'] {
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
      throw new DapError(
        2001,
        this.l10n.t('Only the pending request (stopped before an LLM call is sent) or the held reply of a tool-call stop can be edited.'),
        true,
      );
    }
    try {
      const value = parseEditedValue(args.value, getPath(root(), p));
      setPath(edit.edit(), p, value);
      edit.changed?.();
    } catch (e) {
      throw new DapError(2002, this.l10n.t('Cannot set {0}: {1}', args.name, (e as Error).message), true);
    }
    const v = this.vars.variable(args.name, root, p, edit);
    return { value: v.value, variablesReference: v.variablesReference, indexedVariables: v.indexedVariables, namedVariables: v.namedVariables };
  }

  /** The Debug Console: a path of the selected turn (`messages[-1].content`), or, as
   *  `lhs = rhs`, an edit of the pending request. */
  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    const assignment = splitAssignment(args.expression.trim());
    this.answer(response, () => this.evaluate(args), !!assignment);
  }

  private evaluate(args: DebugProtocol.EvaluateArguments): DebugProtocol.EvaluateResponse['body'] {
    const run = this.run;
    const f = args.frameId !== undefined ? this.frames.get(args.frameId) : undefined;
    const ep = f?.ep ?? run?.stop?.episode;
    const turn = f?.turn ?? run?.stopOf(ep)?.turn;
    if (!run || !ep) throw new DapError(3001, this.l10n.t('Evaluate needs a stopped episode (select a frame).'), false);
    const expr = args.expression.trim();
    try {
      const assignment = splitAssignment(expr);
      if (assignment) return this.assign(run.stopOf(ep), turn, assignment.lhs, assignment.rhs);
      const root = evaluationRoot(ep, turn);
      const p = parsePath(expr);
      getPath(root, p); // throws a readable error when missing
      const v = this.vars.variable(expr, () => root, p);
      return {
        result: v.value,
        variablesReference: v.variablesReference,
        indexedVariables: v.indexedVariables,
        namedVariables: v.namedVariables,
        type: v.type,
      };
    } catch (e) {
      throw new DapError(3002, e instanceof PathError ? e.message : String((e as Error).message ?? e), false);
    }
  }

  /** `messages[-1].content = "..."` in the Debug Console edits the pending request. */
  private assign(held: StopInfo | undefined, turn: EpisodeTurn | undefined, lhs: string, rhs: string): DebugProtocol.EvaluateResponse['body'] {
    if (!turn || turn.kind !== 'llm' || !held || held.turn !== turn || held.editable !== 'request') {
      throw new PathError(this.l10n.t('assignments edit the pending request: stop before an LLM call (breakpoint "llm") and select its frame'));
    }
    let p = parsePath(lhs);
    if (p[0] === 'request') p = p.slice(1);
    else if (p[0] !== 'messages' && p[0] !== 'tools') throw new PathError(this.l10n.t('assign to messages[...], tools[...] or request.<field>'));
    const req = turn.sent ?? turn.request;
    p = absolutePath(req, p);
    const value = parseEditedValue(rhs, getPath(req, p));
    setPath(editableRequest(turn), p, value);
    return { result: preview(value), variablesReference: 0 };
  }

  // ------------------------------------------------------------------ execution control

  /** Resumes the thread's episode (a runner-level stop: the run's latest stop). */
  private resume(mode: ResumeMode, threadId: number): void {
    this.run?.resume(mode, this.run.episodeByThread(threadId));
  }

  protected override continueRequest(response: DebugProtocol.ContinueResponse, args: DebugProtocol.ContinueArguments): void {
    this.resume('continue', args.threadId);
    response.body = { allThreadsContinued: false };
    this.sendResponse(response);
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    this.resume('next', args.threadId);
    this.sendResponse(response);
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    this.resume('stepIn', args.threadId);
    this.sendResponse(response);
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    this.resume('stepOut', args.threadId);
    this.sendResponse(response);
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse, args: DebugProtocol.PauseArguments): void {
    this.run?.pause(this.run.episodeByThread(args.threadId));
    this.sendResponse(response);
  }

  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    void (async () => {
      await this.run?.terminate();
      this.sendResponse(response);
      this.end();
    })();
  }

  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse): void {
    void (async () => {
      await this.run?.terminate();
      this.sendResponse(response);
    })();
  }
}
