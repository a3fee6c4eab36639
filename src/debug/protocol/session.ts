// The rollout debugger's Debug Adapter Protocol layer (@vscode/debugadapter), run inline
// in the extension host or over a socket in tests. Threads are episodes (T<task>#R<k>),
// stack frames are turns, scopes show request / response / episode; it maps DAP requests
// onto the RolloutRuntime and its events back onto DAP events. The session is the launch
// and execution control; it delegates breakpoints (breakpoint-requests.ts), inspection
// (inspect-requests.ts), edits and evaluation (edit-requests.ts) and the runtime's events
// (runtime-events.ts).
import { DebugSession, ExitedEvent, Handles, InitializedEvent, InvalidatedEvent, OutputEvent, TerminatedEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { english, type L10n } from '../../base/l10n';
import type { Episode, Turn } from '../runtime/episode';
import { exceptionFilters } from '../runtime/breakpoints';
import type { RolloutLaunchArgs } from '../runtime/plan';
import type { Answer } from './answer';
import { BreakpointSettings } from './breakpoint-requests';
import { evaluate, setVariable } from './edit-requests';
import { exceptionInfo, scopesBody, stackTraceBody, threadsBody, variablesBody } from './inspect-requests';
import { prepareLaunch, type LaunchDeps, type RunHandle } from './launch';
import { wireRuntime, type EventSink } from './runtime-events';
import { VariableStore } from './variables';

export { RUNNER_THREAD } from './inspect-requests';

type LaunchRequestArgs = DebugProtocol.LaunchRequestArguments & RolloutLaunchArgs & { __pythonDebuggerNote?: string };

export class RolloutDebugSession extends DebugSession {
  private runtime?: RunHandle;
  private readonly vars = new VariableStore();
  private readonly frames = new Handles<{ ep: Episode; turn: Turn }>();
  private readonly breakpoints = new BreakpointSettings();
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
    for (const problem of this.breakpoints.setLaunch(args.breakOn ?? [])) this.console(`breakOn: ${problem}\n`, 'important');
    // Breakpoints and exception filters arrive before configurationDone (up to 5 s).
    await Promise.race([this.configured, new Promise((r) => setTimeout(r, 5000))]);
    const rt = prepared.runtime;
    this.runtime = rt;
    this.breakpoints.applyAll(rt);
    wireRuntime(rt, this.eventSink());
    try {
      await rt.start();
    } catch (e) {
      this.sendErrorResponse(response, { id: 1002, format: this.l10n.t('Agent RL: {0}', (e as Error).message), showUser: true });
      this.end();
      return;
    }
    this.sendResponse(response);
  }

  /** The session as the runtime's events see it (runtime-events.ts). */
  private eventSink(): EventSink {
    const session = this;
    return {
      l10n: this.l10n,
      get progress() {
        return session.progress;
      },
      send: (e) => this.sendEvent(e),
      clientLine: (line) => this.convertDebuggerLineToClient(line),
      console: (text, category) => this.console(text, category),
      resetHandles: () => {
        this.vars.reset();
        this.frames.reset();
      },
      ended: () => this.end(),
      startPythonDebugger: (endpoint) => this.deps.startPythonDebugger?.(endpoint),
    };
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

  /** Sends a delegated handler's answer: its body, or its error. */
  private answer<R extends DebugProtocol.Response>(response: R, a: Answer<R['body']>): void {
    if (!a.ok) return this.sendErrorResponse(response, a.error);
    response.body = a.body;
    this.sendResponse(response);
    if (a.invalidate) this.sendEvent(new InvalidatedEvent(['variables']));
  }

  // ------------------------------------------------------------------ breakpoints

  protected override setFunctionBreakPointsRequest(response: DebugProtocol.SetFunctionBreakpointsResponse, args: DebugProtocol.SetFunctionBreakpointsArguments): void {
    response.body = this.breakpoints.setFunction(args);
    this.breakpoints.applyAll(this.runtime);
    this.sendResponse(response);
  }

  protected override setExceptionBreakPointsRequest(response: DebugProtocol.SetExceptionBreakpointsResponse, args: DebugProtocol.SetExceptionBreakpointsArguments): void {
    const body = this.breakpoints.setExceptions(args);
    this.breakpoints.applyFilters(this.runtime);
    response.body = body;
    this.sendResponse(response);
  }

  // ------------------------------------------------------------------ threads, frames, variables, edits

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    response.body = threadsBody(this.runtime, this.l10n);
    this.sendResponse(response);
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    response.body = stackTraceBody(this.runtime, this.frames, args);
    this.sendResponse(response);
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    response.body = scopesBody(this.runtime, this.frames, this.vars, args, this.l10n);
    this.sendResponse(response);
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    response.body = variablesBody(this.vars, args);
    this.sendResponse(response);
  }

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    this.answer(response, setVariable(this.vars, args, this.l10n));
  }

  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    this.answer(response, evaluate(this.runtime, this.frames, this.vars, args, this.l10n));
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse, args: DebugProtocol.ExceptionInfoArguments): void {
    this.answer(response, exceptionInfo(this.runtime, args, this.l10n));
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
