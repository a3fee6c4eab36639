// The rollout "debugger": runs the Python runner, answers its LLM calls through the
// recording gateway, and decides where to stop (event breakpoints, stepping, pause,
// exceptions). A held stop keeps the workflow waiting on its HTTP call (or on the runner
// socket) until resume(). Stops are per episode: episodes run concurrently (as Trinity's
// runners do) and a stopped one holds only its own call. No DAP here: the debug session
// (dap/session.ts) reacts to this run's events (RunEvents) and calls its RunHandle methods.
// The run's lifecycle and its runner's messages are here; the gateway's calls are LlmCalls',
// holding stops is HeldStops', forks are fork.ts'.
import { randomBytes } from 'crypto';
import { EventEmitter } from 'events';
import { english, type L10n } from '../../base/l10n';
import { auxIndex, type ErrorInfo, type ExperienceTokens, type RunnerPlan, type RunnerMessage, type ReplayedTask } from '../trajectory/runner-protocol';
import type { ForkInfo, RolloutSummary } from '../trajectory/trajectory';
import { startGateway, type GatewayServer } from '../gateway/server';
import type { ChatUpstream } from '../gateway/model-endpoint';
import type { EventBreakpoint, ExceptionFilter } from './breakpoints';
import { Episodes, toTrajectory, type Episode, type LlmTurn } from './episode';
import { driftOfCall } from './drift-check';
import { maskWarnings, type UncheckedReason } from './mask-findings';
import { describeDrift, describeMaskWarning } from '../../tokens/strings';
import { forkDir, originalBranchOptions, runOriginalBranch } from './fork';
import { HeldStops } from './held-stops';
import { LlmCalls } from './llm-calls';
import { discoverModelName } from './model-name';
import type { RuntimeOptions } from './run-options';
import type { RunEvents, RunHandle, RunOutput } from './run-handle';
import { RunnerProcess, runnerEnv } from './runner-process';
import { closeRun, formatSummary, RunWriter } from './run-writer';
import type { ResumeMode, StopInfo } from './stop-policy';
import { DebugRunTokenizers } from '../tokens/run-tokenizer';

export type { ResumeMode, StopInfo } from './stop-policy';
export type { RuntimeOptions } from './run-options';

export class RolloutRuntime extends EventEmitter<RunEvents> implements RunHandle {
  runDir?: string;
  summary?: RolloutSummary;
  /** How the runner found each replayed experience's task, by its key (row replays only). */
  readonly replayedTasks = new Map<string, ReplayedTask>();
  /** The original branches run for edited episodes (fork.json of each). */
  readonly forks: ForkInfo[] = [];
  private readonly live = new Episodes();
  private readonly stops: HeldStops;
  private calls?: LlmCalls;
  private gateway?: GatewayServer;
  private runner?: RunnerProcess;
  private writer?: RunWriter;
  private readonly token = randomBytes(20).toString('hex');
  /** An error outside any episode (import / task loading): the run failed. */
  private runnerError?: string;
  private finished = false;
  /** Mask checks of ended episodes, awaited before the summary. */
  private readonly maskChecks: Promise<void>[] = [];
  private startedAt = new Date();
  private modelName?: string;
  private runTokenizers?: DebugRunTokenizers;
  /** The original branch being run (edit = fork), ended with this run. */
  private branch?: RolloutRuntime;

  constructor(private readonly opts: RuntimeOptions) {
    super();
    this.stops = new HeldStops(opts.l10n, (s) => this.emit('stopped', s));
  }

  private get l10n(): L10n {
    return this.opts.l10n ?? english;
  }

  get episodes(): readonly Episode[] {
    return this.live.list;
  }

  get tokenizers(): DebugRunTokenizers {
    const o = this.opts;
    return (this.runTokenizers ??= new DebugRunTokenizers(
      { modelPath: o.configModelName, configDir: o.configDir, modelName: this.modelName ?? o.modelName, endpoint: o.upstream.endpoint },
      o.env,
    ));
  }

  // ------------------------------------------------------------------ lifecycle

  async start(): Promise<void> {
    const o = this.opts;
    this.startedAt = new Date();
    const gateway = await this.openGateway();
    const modelName = o.modelName ?? (await this.discoverModel());
    this.modelName = modelName;
    const plan = this.runnerPlan(modelName);
    this.say(
      'console',
      this.l10n.t('Rollout: {0} workflow {1} · model {2} via {3} · python {4}', o.plan.kind, o.plan.workflow, modelName, o.upstream.label, o.python) + '\n',
    );
    const runner = new RunnerProcess({
      python: o.python,
      runnerDir: o.runnerDir,
      cwd: o.plan.cwd,
      env: runnerEnv(o.env, gateway.url, this.token),
      token: this.token,
      debugpy: o.pythonDebugger,
    });
    this.runner = runner;
    runner.on('message', (m) => this.onRunnerMessage(m));
    runner.on('output', (category, text) => this.emit('output', { category, text }));
    runner.on('exit', (code, signal) => this.onRunnerExit(code, signal));
    let hello;
    try {
      hello = await runner.start();
    } catch (e) {
      await this.finish('failed', (e as Error).message);
      throw e;
    }
    if (hello.debugpy) this.emit('pythonDebugger', hello.debugpy);
    if (hello.debugpyNote) this.say('console', `${hello.debugpyNote}\n`);
    runner.send({ type: 'start', plan });
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
      ...(o.auxiliary?.length
        ? { auxiliaryModels: o.auxiliary.map((a, i) => ({ name: a.name || modelName, baseUrl: `${gateway.root}/aux/${i}/v1`, apiKey: this.token })) }
        : {}),
    };
  }

  /** Opens the run folder and the gateway (start() does this before the runner). */
  async openGateway(): Promise<{ url: string; apiKey: string }> {
    if (!this.gateway) {
      if (this.opts.runRoot || this.opts.runDir) {
        this.writer = new RunWriter(this.opts.runRoot ?? '', this.opts.meta, this.opts.runDir);
        this.writer.onError = (e) => this.say('important', this.l10n.t('Could not write the recording in {0}: {1}', this.runDir ?? '', e.message) + '\n');
        this.runDir = this.writer.dir;
      }
      const calls = new LlmCalls(
        {
          episodes: this.live,
          stops: this.stops,
          recorder: this.writer,
          upstreamFor: (role) => this.upstreamFor(role),
          checkDrift: (ep, turn) => this.checkDrift(ep, turn),
        },
        this.opts.replay,
      );
      calls.on('progress', (ep, what) => this.emit('episodeProgress', ep, what));
      calls.on('output', (o) => this.say(o.category, o.text));
      this.calls = calls;
      this.gateway = await startGateway(
        {
          handleCall: (c) => calls.handle(c),
          listModels: (aux) => this.upstreamFor(aux === undefined ? undefined : `auxiliary/${aux}`).models(),
          tokenizer: async (route, body, role) => {
            const up = this.upstreamFor(role);
            if (up.tokenizer) return up.tokenizer(route, body);
            return {
              status: 404,
              text: JSON.stringify({
                error: { message: `${up.label} has no tokenizer routes (a replayed run asks no endpoint)`, type: 'invalid_request_error' },
              }),
            };
          },
        },
        this.token,
      );
    }
    return { url: this.gateway.url, apiKey: this.token };
  }

  /** A call's retokenization drift, with the run's own tokenizer and chat template (none from an endpoint). */
  private async checkDrift(ep: Episode, turn: LlmTurn): Promise<string[]> {
    const choice = await this.tokenizers.get();
    if (choice.kind !== 'local') return [];
    const found = driftOfCall(choice.tokenizer, ep, turn);
    if (!found) return [];
    ep.tokenChecks = { calls: (ep.tokenChecks?.calls ?? 0) + 1, experiences: ep.tokenChecks?.experiences ?? 0 };
    return found.map((f) => describeDrift(f, this.l10n));
  }

  /** The action masks of the experiences an episode returned, checked against their messages. */
  private async checkMasks(ep: Episode, exps: ExperienceTokens[]): Promise<void> {
    const choice = await this.tokenizers.get();
    if (choice.kind !== 'local') return;
    const { checked, warnings: found, unchecked } = maskWarnings(choice.tokenizer, exps);
    ep.tokenChecks = { calls: ep.tokenChecks?.calls ?? 0, experiences: (ep.tokenChecks?.experiences ?? 0) + checked };
    const why: Record<UncheckedReason, string> = {
      'no-mask': this.l10n.t('it has no action mask that fits its tokens'),
      'no-messages': this.l10n.t(
        'it carries no messages to locate the turns with, and no convert_messages_to_experience call of the model returned its tokens',
      ),
      'no-template': this.l10n.t("the run's tokenizer has no chat template"),
      'template-error': this.l10n.t('the chat template cannot render its messages'),
    };
    if (unchecked.length)
      this.say(
        'console',
        unchecked.map((u) => `${ep.id}: ${this.l10n.t('experience {0}: action mask not checked: {1}', u.experience, why[u.reason])}\n`).join(''),
      );
    if (!found.length) return;
    ep.maskWarnings = found.map((f) => this.l10n.t('experience {0}: {1}', f.experience, describeMaskWarning(f.warning, this.l10n)));
    this.say('important', ep.maskWarnings.map((w) => `${ep.id}: ${w}\n`).join(''));
  }

  /** Where a call of `role` goes: auxiliary model i's endpoint, else the rollout model's. */
  private upstreamFor(role: string | undefined): ChatUpstream {
    const i = auxIndex(role);
    return (i !== undefined ? this.opts.auxiliary?.[i]?.upstream : undefined) ?? this.opts.upstream;
  }

  /** Starts an episode for calls made by a process other than the runner (attach use, benches). */
  beginEpisode(id: string, task: unknown = null): Episode {
    this.onRunnerMessage({ type: 'episodeStart', episode: id, taskIndex: this.live.list.length, taskId: id, repeat: 0, task });
    return this.live.list[this.live.list.length - 1];
  }

  /** Ends an episode started with beginEpisode(). */
  endEpisode(id: string, reward: number | null = null): void {
    this.onRunnerMessage({ type: 'episodeEnd', episode: id, reward, metrics: {}, metadata: {}, experiences: [] });
  }

  private async discoverModel(): Promise<string> {
    const found = await discoverModelName(this.opts.upstream, this.opts.configModelName);
    if (found.problem) this.say('important', `${found.problem}\n`);
    return found.name;
  }

  /** Ends the run: releases held calls, stops the runner tree, closes the gateway. */
  async terminate(): Promise<void> {
    if (this.stops.ended) return;
    this.stops.end();
    await this.branch?.terminate(); // stopped while an original branch runs (edit = fork)
    this.calls?.abortAll();
    await this.runner?.end();
    await this.finish('terminated', 'stopped by the user');
  }

  private async finish(status: RolloutSummary['status'], message?: string): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.timing('run ended');
    this.stops.release();
    const o = this.opts;
    const totals = this.calls?.totals ?? { calls: 0, prompt: 0, completion: 0 };
    await Promise.all(this.maskChecks);
    const base = {
      id: this.writer?.id ?? '',
      backbone: o.backbone,
      config: o.meta.config as string | undefined,
      replayOf: o.replay?.runDir,
      status,
      message,
      startedAt: this.startedAt,
    };
    let summary: RolloutSummary;
    try {
      summary = closeRun(this.writer, this.live.list, base, totals, (o.plan.concurrency ?? 1) > 1);
    } catch (e) {
      // The run dir deleted or the disk full: the run still ends (else the session waits on it
      // for good), with its summary shown, just not saved.
      this.say('important', this.l10n.t("Could not save the run's record in {0}: {1}", this.runDir ?? '', (e as Error).message) + '\n');
      summary = closeRun(undefined, this.live.list, base, totals, false);
      try {
        this.writer?.close();
      } catch {
        /* its recording is as lost as the rest */
      }
    }
    // Drift and masks are checked with the run's own tokenizer and chat template only: when
    // there is none here, the summary says why nothing was checked (rather than saying nothing).
    if (!summary.tokenChecks && this.runTokenizers && summary.llmCalls > 0) {
      const choice = await this.runTokenizers.get();
      if (choice.kind !== 'local') summary.tokenChecksSkipped = choice.kind === 'endpoint' ? choice.localReason : choice.reason;
    }
    this.summary = summary;
    this.timing('summary written');
    this.say('console', formatSummary(summary, this.runDir, this.l10n, this.modelName ?? this.opts.modelName));
    // The runner sends `done` and exits by itself; what it started must not outlive the run,
    // so its whole tree is ended either way (the gateway need not wait for it).
    const runnerGone = this.runner?.end() ?? Promise.resolve();
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

  /** Runs the original branch of every edited episode (see fork.ts) and saves both branches. */
  private async runForks(): Promise<void> {
    const runDir = this.runDir;
    if (this.opts.fork === false || this.opts.replay || !runDir) return;
    for (const ep of this.live.list.filter((e) => e.forkAt)) {
      const dir = forkDir(runDir, ep.id);
      this.say('console', this.l10n.t('{0} was edited: running its original branch (without the edit) for comparison…', ep.id) + '\n');
      const branch = new RolloutRuntime(originalBranchOptions(this.opts, ep, dir, runDir, (role) => this.upstreamFor(role), this.modelName));
      if (this.stops.ended) break;
      this.branch = branch;
      const info = await runOriginalBranch(branch, ep, dir, this.l10n, (o) => this.emit('output', o));
      this.branch = undefined;
      this.forks.push(info);
      this.say(
        'console',
        this.l10n.t(
          '{0}: reward {1} with the edit, {2} without it (both branches saved in {3}).',
          ep.id,
          String(info.rewardEdited ?? 'none'),
          String(info.rewardOriginal ?? 'none'),
          dir,
        ) + '\n',
      );
    }
  }

  // ------------------------------------------------------------------ the runner's messages

  /** Episode scheduling: what the runner reports (tasks, episodes starting and ending,
   *  rewards, exceptions, done) becomes the run's episodes. */
  private onRunnerMessage(m: RunnerMessage): void {
    switch (m.type) {
      case 'tasks':
        for (const t of m.replayedTasks ?? []) {
          this.replayedTasks.set(t.key, t);
          this.say(
            t.found ? 'console' : 'important',
            (t.found
              ? this.l10n.t('Experience {0}: its task is row {1} of the taskset ({2} rows), as training read it.', t.key, String(t.index), String(t.rows))
              : t.standIn
                ? this.l10n.t('Experience {0}: its task could not be found ({1}): the recorded first user message stands in for it.', t.key, t.why ?? '')
                : this.l10n.t(
                    'Experience {0}: its task could not be found ({1}), and the row keeps no first user message to stand in for it: the workflow runs on an empty task.',
                    t.key,
                    t.why ?? '',
                  )) + '\n',
          );
        }
        this.say('console', this.l10n.t('Loaded {0} task(s): {1}', m.count, `${m.ids.slice(0, 20).join(', ')}${m.ids.length > 20 ? ', …' : ''}`) + '\n');
        return;
      case 'symbols':
        this.live.symbols = m.functions;
        return;
      case 'episodeStart':
        this.emit('episodeStarted', this.live.start(m));
        return;
      case 'output':
        this.emit('output', { category: m.category, text: m.text, source: m.source });
        return;
      case 'exception': {
        const ep = this.live.find(m.episode);
        ep?.turns.push({ kind: 'exception', error: m.error });
        if (!ep) this.runnerError = `${m.error.type}: ${m.error.message}`;
        this.reportTraceback(m.error);
        void this.stops.checkpoint({ type: 'exception', ep, error: m.error }).then(() => this.resumeRunner(m.id));
        return;
      }
      case 'reward': {
        const ep = this.live.find(m.episode);
        if (!ep) return this.resumeRunner(m.id);
        ep.reward = m.reward;
        // The workflow has returned (or raised): a stop on the reward shows an ended episode.
        ep.status = m.failed ? 'error' : 'done';
        // A stop on the reward shows what the episode returned (its Episode scope's experiences).
        if (m.experiences) ep.experiences = m.experiences;
        if (m.experienceTokens?.length) ep.experienceTokens = m.experienceTokens;
        ep.turns.push({ kind: 'reward', reward: m.reward });
        void this.stops.checkpoint({ type: 'reward', ep, reward: m.reward }).then(() => this.resumeRunner(m.id));
        return;
      }
      case 'episodeEnd': {
        const ep = this.live.end(m);
        if (!ep) return;
        if (m.experienceTokens?.length) this.maskChecks.push(this.checkMasks(ep, m.experienceTokens).catch(() => undefined));
        this.writer?.writeEpisode(toTrajectory(ep));
        this.emit('episodeEnded', ep);
        return;
      }
      case 'done':
        void this.finish(this.runnerError ? 'failed' : 'completed', this.runnerError);
        return;
      case 'hello':
        return;
    }
  }

  /** Lets the runner go on past message `id` (a held exception or reward). */
  private resumeRunner(id: number): void {
    this.runner?.send({ type: 'resume', id });
  }

  /** A Python traceback as output lines that link to their source. */
  private reportTraceback(e: ErrorInfo): void {
    this.emit('output', { category: 'stderr', text: `Traceback (most recent call last), ${e.phase} error:\n` });
    for (const f of [...e.traceback].reverse()) {
      this.emit('output', { category: 'stderr', text: `  File "${f.path}", line ${f.line}, in ${f.name ?? '?'}\n`, source: f });
    }
    this.emit('output', { category: 'stderr', text: `${e.type}: ${e.message}\n` });
  }

  /** Reported once everything the runner wrote was read: a run without `done` failed. */
  private onRunnerExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stops.ended || this.finished) return;
    const msg = `The Python runner exited unexpectedly (${signal ?? `exit code ${code}`}); the recorded part of the run is kept.`;
    this.say('important', msg + '\n');
    void this.finish('failed', msg);
  }

  private say(category: RunOutput['category'], text: string): void {
    this.emit('output', { category, text });
    if (category !== 'console') this.opts.logger.info(text.trimEnd());
  }

  // ------------------------------------------------------------------ what the debugger's UI does to the run

  /** The most recent stop still held (the one the UI focuses). */
  get stop(): StopInfo | undefined {
    return this.stops.latest;
  }

  stopOf(ep: Episode | undefined): StopInfo | undefined {
    return this.stops.of(ep);
  }

  setBreakpoints(bps: EventBreakpoint[]): void {
    this.stops.setBreakpoints(bps);
  }

  setExceptionFilters(filters: ExceptionFilter[]): void {
    this.stops.setExceptionFilters(filters);
  }

  disableStops(): void {
    this.stops.disable();
  }

  episodeByThread(threadId: number): Episode | undefined {
    return this.live.byThread(threadId);
  }

  resume(mode: ResumeMode, episode?: Episode): void {
    this.stops.resume(mode, episode);
    this.emit('continued');
    this.stops.release();
  }

  pause(episode?: Episode): void {
    this.stops.pause(episode);
  }
}
