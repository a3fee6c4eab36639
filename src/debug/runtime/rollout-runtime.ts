// The rollout "debugger": runs the Python runner, answers its LLM calls through the
// recording gateway, and decides where to stop (event breakpoints, stepping, pause,
// exceptions). A held stop keeps the workflow waiting on its HTTP call (or on the runner
// socket) until resume(). Stops are per episode: episodes run concurrently (as Trinity's
// runners do) and a stopped one holds only its own call. No DAP here: session.ts maps this
// onto the protocol.
import { randomBytes } from 'crypto';
import { EventEmitter } from 'events';
import { english, type L10n } from '../../shared/l10n';
import type { Logger } from '../../shared/log';
import { auxIndex, type ErrorInfo, type OutputMsg, type RunnerPlan, type RunnerToHost, type SourceFrame } from '../model/rollout-protocol';
import type { ChatRequest, ForkInfo, RunSummary } from '../model/trajectory';
import { startGateway, type CallOutcome, type GatewayServer, type IncomingCall } from '../gateway/server';
import type { ReplayUpstream } from '../gateway/replay';
import type { ChatUpstream } from '../gateway/model-endpoint';
import { applyEdits, mergeEdits, messageEdits } from './edits';
import { forkDir, ForkUpstream, runOriginalBranch } from './fork';
import { isToolError, type EventBreakpoint, type ExceptionFilter } from './breakpoints';
import { deliveredOf, newEpisode, toolCallsOf, toTrajectory, type Episode, type LlmTurn, type ToolTurn, type Turn } from './episode';
import { RunnerProcess } from './runner-process';
import { formatSummary, RunWriter, summarize } from './run-writer';
import { StopPolicy, type CheckEvent, type ResumeMode, type StopInfo } from './stop-policy';

export type { ResumeMode, StopInfo, StopReason } from './stop-policy';


export interface RuntimeOptions {
  plan: Omit<RunnerPlan, 'model' | 'clientTimeout' | 'auxiliaryModels'>;
  upstream: ChatUpstream;
  /** Index-aligned with explorer.auxiliary_models: where auxiliary model i's calls go
   *  (default: `upstream`), and the model name its wrapper asks for. */
  auxiliary?: { upstream?: ChatUpstream; name: string }[];
  replay?: ReplayUpstream;
  /** launch.json model.name: used as is. */
  modelName?: string;
  /** The config's model (model_path / model.path): preferred when the endpoint serves it. */
  configModelName?: string;
  python: string;
  runnerScript: string;
  env: NodeJS.ProcessEnv;
  pythonDebugger: boolean;
  /** Folder holding .agentrl/runs; undefined: do not save the run. */
  runRoot?: string;
  meta: Record<string, unknown>;
  backbone: string;
  logger: Logger;
  clientTimeoutSec?: number;
  /** Debugger strings (stop descriptions); English when not given. */
  l10n?: L10n;
  /** Run the original branch of each edited episode when the run ends (default: yes, not in replays). */
  fork?: boolean;
  /** Save the run exactly here instead of a new folder under runRoot (a fork's branch). */
  runDir?: string;
  /** Called with timestamps (performance.now()) of the run's last steps (`agentrl rollout --timings`). */
  onTiming?: (what: string, at: number) => void;
}


export interface RuntimeEvents {
  stopped: [StopInfo];
  continued: [];
  output: [{ category: 'stdout' | 'stderr' | 'console' | 'important'; text: string; source?: SourceFrame }];
  episodeStarted: [Episode];
  episodeProgress: [Episode, string];
  episodeEnded: [Episode];
  pythonDebugger: [{ host: string; port: number }];
  ended: [RunSummary | undefined];
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

export class RolloutRuntime extends EventEmitter<RuntimeEvents> {
  readonly episodes: Episode[] = [];
  runDir?: string;
  summary?: RunSummary;
  /** The original branches run for edited episodes (fork.json of each). */
  readonly forks: ForkInfo[] = [];
  private readonly policy: StopPolicy;
  /** Held stops, one per episode at most (undefined: a runner-level stop). */
  private readonly stops = new Map<Episode | undefined, StopInfo>();
  private noStops = false;
  private waiters: (() => void)[] = [];
  private gateway?: GatewayServer;
  private runner?: RunnerProcess;
  private writer?: RunWriter;
  private readonly token = randomBytes(20).toString('hex');
  private current?: Episode;
  private symbols: Record<string, SourceFrame> = {};
  private terminated = false;
  private finished = false;
  private startedAt = new Date();
  private llm = { calls: 0, prompt: 0, completion: 0 };
  private inflight = new Set<AbortController>();
  private runnerError?: string;
  private modelName?: string;
  /** The original branch being run (edit = fork), ended with this run. */
  private branch?: RolloutRuntime;

  constructor(private readonly opts: RuntimeOptions) {
    super();
    this.policy = new StopPolicy(opts.l10n);
  }

  get isTerminated(): boolean {
    return this.terminated;
  }

  /** The most recent stop still held (the one the UI focuses). */
  get stop(): StopInfo | undefined {
    let last: StopInfo | undefined;
    for (const s of this.stops.values()) last = s;
    return last;
  }

  /** The stop held on `ep` (undefined: the runner-level stop). */
  stopOf(ep: Episode | undefined): StopInfo | undefined {
    return this.stops.get(ep);
  }

  private get l10n(): L10n {
    return this.opts.l10n ?? english;
  }

  setBreakpoints(bps: EventBreakpoint[]): void {
    this.policy.setBreakpoints(bps);
  }

  setExceptionFilters(filters: ExceptionFilter[]): void {
    this.policy.setExceptionFilters(filters);
  }

  /** Headless runs (`agentrl rollout`): record everything, never stop. */
  disableStops(): void {
    this.noStops = true;
  }

  episodeByThread(threadId: number): Episode | undefined {
    return this.episodes.find((e) => e.threadId === threadId);
  }

  // ------------------------------------------------------------------ lifecycle

  async start(): Promise<void> {
    const o = this.opts;
    this.startedAt = new Date();
    await this.openGateway();
    const gateway = this.gateway!;
    const modelName = o.modelName ?? (await this.discoverModel());
    this.modelName = modelName;
    const plan = this.runnerPlan(modelName);
    const env: NodeJS.ProcessEnv = {
      ...o.env,
      // Clients the workflow builds itself reach the gateway too; it never sees a real key.
      OPENAI_BASE_URL: gateway.url,
      OPENAI_API_BASE: gateway.url,
      OPENAI_API_KEY: this.token,
      PYTHONUNBUFFERED: '1',
      PYTHONIOENCODING: 'utf-8',
      PYDEVD_DISABLE_FILE_VALIDATION: '1',
    };
    this.say('console', `Rollout: ${o.plan.kind} workflow ${o.plan.workflow} · model ${modelName} via ${o.upstream.label} · python ${o.python}\n`);
    try {
      this.runner = await RunnerProcess.start({
        python: o.python,
        script: o.runnerScript,
        cwd: o.plan.cwd,
        env,
        token: this.token,
        debugpy: o.pythonDebugger,
        onMessage: (m) => this.onRunnerMessage(m),
        onRawOutput: (category, text) => this.emit('output', { category, text }),
        onExit: (code, signal) => this.onRunnerExit(code, signal),
      });
    } catch (e) {
      await this.finish('failed', (e as Error).message);
      throw e;
    }
    const hello = this.runner.hello;
    if (hello.debugpy) this.emit('pythonDebugger', hello.debugpy);
    if (hello.debugpyNote) this.say('console', `${hello.debugpyNote}\n`);
    this.runner.send({ type: 'start', plan });
  }

  /** What the runner is told (after openGateway()): the gateway as the rollout model and,
   *  at `<gateway>/aux/<i>/v1`, as each auxiliary model. */
  runnerPlan(modelName: string): RunnerPlan {
    const o = this.opts;
    const gateway = this.gateway!;
    return {
      ...o.plan,
      model: { baseUrl: gateway.url, apiKey: this.token, name: modelName },
      clientTimeout: o.clientTimeoutSec ?? 3600,
      ...(o.auxiliary?.length ? { auxiliaryModels: o.auxiliary.map((a, i) => ({ name: a.name || modelName, baseUrl: `${gateway.root}/aux/${i}/v1`, apiKey: this.token })) } : {}),
    };
  }

  /** Opens the run folder and the gateway (start() does this before the runner). */
  async openGateway(): Promise<{ url: string; apiKey: string }> {
    if (!this.gateway) {
      if (this.opts.runRoot || this.opts.runDir) {
        this.writer = new RunWriter(this.opts.runRoot ?? '', this.opts.meta, this.opts.runDir);
        this.writer.onError = (e) => this.say('important', `Could not write the recording in ${this.runDir}: ${e.message}\n`);
        this.runDir = this.writer.dir;
      }
      this.gateway = await startGateway({ handleCall: (c) => this.handleCall(c), listModels: (aux) => this.upstreamFor(aux === undefined ? undefined : `auxiliary/${aux}`).models() }, this.token);
    }
    return { url: this.gateway.url, apiKey: this.token };
  }

  /** Where a call of `role` goes: auxiliary model i's endpoint, else the rollout model's. */
  private upstreamFor(role: string | undefined): ChatUpstream {
    const i = auxIndex(role);
    return (i !== undefined ? this.opts.auxiliary?.[i]?.upstream : undefined) ?? this.opts.upstream;
  }

  /** Starts an episode for calls made by a process other than the runner (attach use, benches). */
  beginEpisode(id: string, task: unknown = null): Episode {
    this.onRunnerMessage({ type: 'episodeStart', episode: id, taskIndex: this.episodes.length, taskId: id, repeat: 0, task });
    return this.episodes[this.episodes.length - 1];
  }

  /** Ends an episode started with beginEpisode(). */
  endEpisode(id: string, reward: number | null = null): void {
    this.onRunnerMessage({ type: 'episodeEnd', episode: id, reward, metrics: {}, metadata: {}, experiences: [] });
  }

  private async discoverModel(): Promise<string> {
    const fromConfig = this.opts.configModelName;
    try {
      const list = (await Promise.race([
        this.opts.upstream.models(),
        new Promise((_, rej) => setTimeout(() => rej(new Error('no answer within 5 s')), 5000)),
      ])) as { data?: { id?: string }[] };
      const ids = (list?.data ?? []).map((m) => m.id).filter((x): x is string => typeof x === 'string');
      if (fromConfig && ids.includes(fromConfig)) return fromConfig;
      if (ids.length) return ids[0];
    } catch (e) {
      this.say('important', `The model endpoint ${this.opts.upstream.label} does not answer /v1/models (${(e as Error).message}); LLM calls will fail until it is up.\n`);
    }
    return fromConfig ?? 'default';
  }

  /** Ends the run: releases held calls, stops the runner tree, closes the gateway. */
  async terminate(): Promise<void> {
    if (this.terminated) return;
    this.terminated = true;
    await this.branch?.terminate(); // stopped while an original branch runs (edit = fork)
    for (const c of this.inflight) c.abort();
    this.release();
    await this.runner?.kill();
    await this.finish('terminated', 'stopped by the user');
  }

  private async finish(status: RunSummary['status'], message?: string): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.timing('run ended');
    this.release();
    // Episodes cut short keep what they recorded.
    for (const ep of this.episodes) {
      if (ep.status === 'running') {
        ep.status = 'error';
        ep.endedAt = Date.now();
        ep.error ??= { phase: 'runner', type: status === 'terminated' ? 'Terminated' : 'RunnerExited', message: message ?? status, traceback: [], text: message ?? status };
        this.writer?.writeEpisode(toTrajectory(ep));
      }
    }
    const finishedAt = new Date();
    const summary = summarize(
      this.episodes.map(toTrajectory),
      { id: this.writer?.id ?? '', backbone: this.opts.backbone, config: this.opts.meta.config as string | undefined, replayOf: this.opts.replay?.runDir, status, message, startedAt: this.startedAt, finishedAt },
      this.llm,
    );
    this.summary = summary;
    if ((this.opts.plan.concurrency ?? 1) > 1) this.writer?.writeEpisodesInOrder(this.episodes.map(toTrajectory));
    this.writer?.writeSummary(summary);
    this.writer?.close();
    this.timing('summary written');
    this.say('console', formatSummary(summary, this.runDir ?? '(not saved: "record": false)'));
    // The runner sends `done` and exits by itself: the gateway need not wait for it.
    const runnerGone = this.runner?.alive ? this.runner.kill() : Promise.resolve();
    await this.gateway?.close();
    this.timing('gateway closed');
    if (status !== 'terminated') await this.runForks();
    this.opts.upstream.close?.();
    for (const a of this.opts.auxiliary ?? []) a.upstream?.close?.();
    await runnerGone;
    this.timing('runner exited');
    this.emit('ended', summary);
  }

  private timing(what: string): void {
    this.opts.onTiming?.(what, performance.now());
  }

  // ------------------------------------------------------------------ edit = fork

  /** Runs the original branch of every edited episode (see fork.ts) and saves both branches. */
  private async runForks(): Promise<void> {
    if (this.opts.fork === false || this.opts.replay || !this.runDir) return;
    for (const ep of this.episodes.filter((e) => e.forkAt)) {
      const dir = forkDir(this.runDir, ep.id);
      this.say('console', this.l10n.t('{0} was edited: running its original branch (without the edit) for comparison…', ep.id) + '\n');
      const branch = new RolloutRuntime({
        ...this.opts,
        plan: { ...this.opts.plan, tasks: { source: this.opts.plan.tasks.source, ids: [ep.taskId], ...(this.opts.plan.tasks.idKey ? { idKey: this.opts.plan.tasks.idKey } : {}) }, repeat: 1, concurrency: 1 },
        upstream: new ForkUpstream(ep, (role) => this.upstreamFor(role)),
        auxiliary: this.opts.auxiliary?.map((a) => ({ name: a.name })),
        modelName: this.modelName,
        runRoot: undefined,
        runDir: dir,
        fork: false,
        pythonDebugger: false,
        onTiming: undefined,
        meta: { ...this.opts.meta, forkOf: this.runDir, episode: ep.id },
      });
      if (this.terminated) break;
      this.branch = branch;
      const info = await runOriginalBranch(branch, ep, dir, this.l10n, (o) => this.emit('output', o));
      this.branch = undefined;
      this.forks.push(info);
      this.say('console', this.l10n.t('{0}: reward {1} with the edit, {2} without it (both branches saved in {3}).', ep.id, String(info.rewardEdited ?? 'none'), String(info.rewardOriginal ?? 'none'), dir) + '\n');
    }
  }

  // ------------------------------------------------------------------ stepping

  /** Resumes `episode` (default: the most recent stop's); the other episodes keep their stops. */
  resume(mode: ResumeMode, episode?: Episode): void {
    const key = episode ?? this.stop?.episode;
    this.policy.resumed(mode, key);
    this.stops.delete(key);
    this.emit('continued');
    this.release();
  }

  /** Stops `episode` (default: every running episode) at its next event. */
  pause(episode?: Episode): void {
    this.policy.pause(episode);
  }

  private release(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }

  /** Stops here if the event calls for it, holding only this episode (its call or the
   *  runner's message) until it is resumed; other episodes go on. */
  private async checkpoint(ev: CheckEvent): Promise<void> {
    if (this.terminated || this.noStops) return;
    const key = ev.ep;
    // One stop per episode at a time (an episode's auxiliary call may run beside its own).
    while (this.stops.has(key) && !this.terminated) await this.changed();
    if (this.terminated) return;
    const stop = this.policy.decide(ev);
    if (!stop) return;
    this.stops.set(key, stop);
    this.emit('stopped', stop);
    while (this.stops.get(key) === stop && !this.terminated) await this.changed();
  }

  private changed(): Promise<void> {
    return new Promise<void>((r) => this.waiters.push(r));
  }


  // ------------------------------------------------------------------ edits

  /** The pending request, copied on first edit so the original stays recorded. */
  editableRequest(turn: LlmTurn): ChatRequest {
    turn.sent ??= clone(turn.request);
    turn.userEdited = true;
    return turn.sent;
  }

  editableResponse(turn: LlmTurn) {
    turn.delivered ??= clone(turn.response!);
    turn.userEdited = true;
    return turn.delivered;
  }

  /** Keeps tool turns in line with an edited reply. */
  syncToolTurns(ep: Episode, turn: LlmTurn): void {
    const calls = toolCallsOf(deliveredOf(turn));
    for (const t of ep.turns) {
      if (t.kind === 'tool' && t.llmIndex === turn.index && t.role === turn.role && calls[t.callIndex]) {
        t.name = calls[t.callIndex].function.name;
        t.arguments = calls[t.callIndex].function.arguments;
      }
    }
  }

  // ------------------------------------------------------------------ LLM calls (gateway)

  /** The call's episode. The runner's episodeStart travels on another socket and may
   *  arrive after the call, so a named episode is waited for briefly. */
  private async episodeFor(call: IncomingCall): Promise<Episode | undefined> {
    if (!call.episode) return this.current;
    for (let waited = 0; waited < 3000; waited += 10) {
      const ep = this.episodes.find((e) => e.id === call.episode);
      if (ep) return ep;
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.current;
  }

  private async handleCall(call: IncomingCall): Promise<CallOutcome> {
    const ep = await this.episodeFor(call);
    if (!ep) return { ok: false, error: { kind: 'upstream', status: 400, message: 'LLM call outside of any episode' } };
    if (this.terminated) return { ok: false, error: { kind: 'cancelled', status: 499, message: 'the debug session has ended' } };
    const role = call.role;
    const roleKey = role ?? '';
    ep.llmCalls++;
    const index = (ep.callCounts[roleKey] = (ep.callCounts[roleKey] ?? 0) + 1) - 1;
    const turn: LlmTurn = {
      kind: 'llm', index, ...(role ? { role } : {}), request: call.request, state: 'pending', stack: call.stack,
      startedAt: new Date().toISOString(), stream: call.request.stream === true,
    };
    // An edited message stays edited for the rest of the episode.
    const carried = applyEdits(call.request, ep.edits);
    if (carried) Object.assign(turn, { sent: carried, carried: true });
    await this.collectToolResults(ep, call.request);
    ep.turns.push(turn);
    this.emit('episodeProgress', ep, `LLM call #${turn.index + 1}`);
    const replay = this.opts.replay;
    if (replay) {
      const check = replay.verify(ep.id, turn.index, call.request, role);
      if (!check.ok) {
        turn.divergence = { message: check.message, diff: check.diff };
        turn.error = { kind: 'divergence', status: 409, message: `${check.message}\n${check.diff}` };
        turn.state = 'error';
        this.say('important', `${check.message}\n${check.diff}\n`);
        await this.checkpoint({ type: 'divergence', ep, turn });
        return this.complete(ep, turn);
      }
    }
    await this.checkpoint({ type: 'llm', ep, turn });
    if (this.terminated) return this.cancelled(ep, turn);
    if (turn.sent) mergeEdits(ep.edits, messageEdits(turn.request, turn.sent));
    turn.state = 'inflight';
    // Cancelled by the workflow hanging up from here on, or by terminate(). (A hang-up while
    // the call was held does not cancel it: it is still made and recorded.)
    const abort = call.abort.signal.aborted ? new AbortController() : call.abort;
    this.inflight.add(abort);
    const t0 = performance.now();
    const result = await this.upstreamFor(role).complete(turn.sent ?? turn.request, { episode: ep.id, index: turn.index, ...(role ? { role } : {}), original: turn.request, signal: abort.signal });
    turn.latencyMs = performance.now() - t0;
    ep.llmMs += turn.latencyMs;
    this.inflight.delete(abort);
    if (!result.ok) {
      turn.error = result.error;
      turn.state = 'error';
      if (this.terminated) return this.complete(ep, turn);
      this.say('stderr', `${ep.id} LLM call #${turn.index + 1} failed: ${result.error.message}\n`);
      await this.checkpoint({ type: 'upstreamError', ep, turn });
      return this.complete(ep, turn, result.body);
    }
    turn.response = result.response;
    turn.chunks = result.chunks;
    const usage = result.response.usage;
    if (usage) {
      ep.tokens.prompt += usage.prompt_tokens ?? 0;
      ep.tokens.completion += usage.completion_tokens ?? 0;
      this.llm.prompt += usage.prompt_tokens ?? 0;
      this.llm.completion += usage.completion_tokens ?? 0;
    }
    const fallback = turn.stack[0];
    const tools: ToolTurn[] = toolCallsOf(result.response).map((c, callIndex) => ({
      kind: 'tool', llmIndex: turn.index, callIndex, ...(turn.role ? { role: turn.role } : {}), id: c.id, name: c.function?.name ?? '?', arguments: c.function?.arguments ?? '', source: this.symbols[c.function?.name] ?? fallback,
    }));
    ep.turns.push(...tools);
    for (const t of tools) {
      if (this.terminated) break;
      this.emit('episodeProgress', ep, `tool ${t.name}`);
      await this.checkpoint({ type: 'tool', ep, turn: t });
    }
    turn.state = 'done';
    return this.complete(ep, turn);
  }

  /** Records the call and gives the workflow its answer. */
  private complete(ep: Episode, turn: LlmTurn, body?: unknown): CallOutcome {
    this.llm.calls++;
    if (turn.userEdited && !ep.forkAt) ep.forkAt = { index: turn.index, ...(turn.role ? { role: turn.role } : {}) };
    this.writer?.recordCall({
      episode: ep.id, index: turn.index, ...(turn.role ? { role: turn.role } : {}), request: turn.request,
      ...(turn.sent ? { sent: turn.sent } : {}),
      ...(turn.response ? { response: turn.response } : {}),
      ...(turn.chunks ? { chunks: turn.chunks } : {}),
      ...(turn.delivered ? { delivered: turn.delivered } : {}),
      ...(turn.error ? { error: turn.error } : {}),
      stream: turn.stream, startedAt: turn.startedAt, latencyMs: Math.round((turn.latencyMs ?? 0) * 1000) / 1000, stack: turn.stack,
    });
    if (turn.error) return { ok: false, error: turn.error, body };
    const delivered = deliveredOf(turn)!;
    return { ok: true, response: delivered, chunks: turn.delivered ? undefined : turn.chunks };
  }

  private cancelled(ep: Episode, turn: LlmTurn): CallOutcome {
    turn.error = { kind: 'cancelled', status: 499, message: 'the debug session has ended' };
    turn.state = 'error';
    return this.complete(ep, turn);
  }

  /** Tool results arrive with the next request (role "tool" messages). */
  private async collectToolResults(ep: Episode, request: ChatRequest): Promise<void> {
    if (!request.messages?.some((m) => m?.role === 'tool' && m.tool_call_id)) return;
    const open = new Map<string, ToolTurn>();
    for (const t of ep.turns) if (t.kind === 'tool' && t.result === undefined) open.set(t.id, t);
    if (!open.size) return;
    for (const m of request.messages ?? []) {
      const t = m.role === 'tool' && m.tool_call_id ? open.get(m.tool_call_id) : undefined;
      if (!t) continue;
      t.result = m.content;
      t.error = isToolError(m.content);
      if (t.error) await this.checkpoint({ type: 'toolError', ep, turn: t });
    }
  }

  // ------------------------------------------------------------------ runner messages

  private onRunnerMessage(m: RunnerToHost): void {
    switch (m.type) {
      case 'tasks':
        this.say('console', `Loaded ${m.count} task(s): ${m.ids.slice(0, 20).join(', ')}${m.ids.length > 20 ? ', …' : ''}\n`);
        return;
      case 'symbols':
        this.symbols = m.functions;
        return;
      case 'episodeStart': {
        const ep = newEpisode({ id: m.episode, threadId: this.episodes.length + 1, taskIndex: m.taskIndex, taskId: m.taskId, repeat: m.repeat, task: m.task });
        this.episodes.push(ep);
        this.current = ep;
        this.emit('episodeStarted', ep);
        return;
      }
      case 'output':
        return this.onOutput(m);
      case 'exception': {
        const ep = m.episode ? this.episodes.find((e) => e.id === m.episode) : undefined;
        const turn = { kind: 'exception' as const, error: m.error };
        ep?.turns.push(turn);
        if (!ep) this.runnerError = `${m.error.type}: ${m.error.message}`;
        this.reportTraceback(m.error);
        void this.checkpoint({ type: 'exception', ep, error: m.error }).then(() => this.runner?.send({ type: 'resume', id: m.id }));
        return;
      }
      case 'reward': {
        const ep = this.episodes.find((e) => e.id === m.episode);
        if (!ep) return this.runner?.send({ type: 'resume', id: m.id });
        ep.reward = m.reward;
        ep.turns.push({ kind: 'reward', reward: m.reward });
        void this.checkpoint({ type: 'reward', ep, reward: m.reward }).then(() => this.runner?.send({ type: 'resume', id: m.id }));
        return;
      }
      case 'episodeEnd': {
        const ep = this.episodes.find((e) => e.id === m.episode);
        if (!ep) return;
        Object.assign(ep, { reward: m.reward, success: m.success, metrics: m.metrics ?? {}, metadata: m.metadata ?? {}, experiences: m.experiences ?? [], error: m.error, endedAt: Date.now() });
        ep.status = m.error ? 'error' : 'done';
        if (this.current === ep) this.current = undefined;
        this.writer?.writeEpisode(toTrajectory(ep));
        this.emit('episodeEnded', ep);
        return;
      }
      case 'done':
        void this.finish(this.runnerError ? 'failed' : 'completed', this.runnerError);
        return;
    }
  }

  private onOutput(m: OutputMsg): void {
    this.emit('output', { category: m.category, text: m.text, source: m.source });
  }

  /** A Python traceback as output lines that link to their source. */
  private reportTraceback(e: ErrorInfo): void {
    this.emit('output', { category: 'stderr', text: `Traceback (most recent call last), ${e.phase} error:\n` });
    for (const f of [...e.traceback].reverse()) {
      this.emit('output', { category: 'stderr', text: `  File "${f.path}", line ${f.line}, in ${f.name ?? '?'}\n`, source: f });
    }
    this.emit('output', { category: 'stderr', text: `${e.type}: ${e.message}\n` });
  }

  private onRunnerExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.terminated || this.finished) return;
    // Give the socket a moment to deliver a final `done` that raced the exit.
    setTimeout(() => {
      if (this.finished) return;
      const msg = `The Python runner exited unexpectedly (${signal ?? `exit code ${code}`}); the recorded part of the run is kept.`;
      this.say('important', msg + '\n');
      void this.finish('failed', msg);
    }, 200);
  }

  private say(category: 'console' | 'important' | 'stderr', text: string): void {
    this.emit('output', { category, text });
    if (category !== 'console') this.opts.logger.info(text.trimEnd());
  }
}
