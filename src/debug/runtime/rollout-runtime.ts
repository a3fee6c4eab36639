// The rollout "debugger": runs the Python runner, answers its LLM calls through the
// recording gateway, and decides where to stop (event breakpoints, stepping, pause,
// exceptions). A held stop keeps the workflow waiting on its HTTP call (or on the runner
// socket) until resume(). Stops are per episode: episodes run concurrently (as Trinity's
// runners do) and a stopped one holds only its own call. No DAP here: session.ts maps this
// onto the protocol. This class is the run's lifecycle; stops, stepping and edits are its
// base (steppable-run.ts), and it delegates the gateway's calls (llm-calls.ts), the runner's
// messages (runner-messages.ts) and forks (fork.ts).
import { randomBytes } from 'crypto';
import { english, type L10n } from '../../base/l10n';
import { auxIndex, type RunnerPlan } from '../model/rollout-protocol';
import type { ForkInfo, RunSummary } from '../model/trajectory';
import { startGateway, type GatewayServer } from '../gateway/server';
import type { ChatUpstream } from '../gateway/model-endpoint';
import { forkDir, originalBranchOptions, runOriginalBranch } from './fork';
import { toTrajectory, type Episode } from './episode';
import { LlmCalls } from './llm-calls';
import { discoverModelName } from './model-name';
import type { RuntimeOptions } from './run-options';
import { RunnerMessages } from './runner-messages';
import { RunnerProcess, runnerEnv } from './runner-process';
import { closeRun, formatSummary, RunWriter } from './run-writer';
import { SteppableRun } from './steppable-run';

export type { ResumeMode, StopInfo, StopReason } from './stop-policy';
export type { RuntimeEvents, RuntimeOptions } from './run-options';

export class RolloutRuntime extends SteppableRun {
  runDir?: string;
  summary?: RunSummary;
  /** The original branches run for edited episodes (fork.json of each). */
  readonly forks: ForkInfo[] = [];
  private readonly calls: LlmCalls;
  private readonly messages: RunnerMessages;
  private gateway?: GatewayServer;
  private runner?: RunnerProcess;
  private writer?: RunWriter;
  private readonly token = randomBytes(20).toString('hex');
  private finished = false;
  private startedAt = new Date();
  private modelName?: string;
  /** The original branch being run (edit = fork), ended with this run. */
  private branch?: RolloutRuntime;

  constructor(private readonly opts: RuntimeOptions) {
    super(opts.l10n);
    const checkpoint = this.stops.checkpoint.bind(this.stops);
    this.messages = new RunnerMessages({
      episodes: this.episodes, events: this, checkpoint,
      resumeRunner: (id) => this.runner?.send({ type: 'resume', id }),
      writeEpisode: (ep) => this.writer?.writeEpisode(toTrajectory(ep)),
      finish: (status, message) => this.finish(status, message),
      say: (category, text) => this.say(category, text),
    });
    this.calls = new LlmCalls({
      episodes: this.episodes, replay: opts.replay, checkpoint,
      current: () => this.messages.current,
      symbols: () => this.messages.symbols,
      ended: () => this.terminated,
      upstreamFor: (role) => this.upstreamFor(role),
      progress: (ep, what) => this.emit('episodeProgress', ep, what),
      say: (category, text) => this.say(category, text),
      writer: () => this.writer,
    });
  }

  private get l10n(): L10n {
    return this.opts.l10n ?? english;
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
    this.say('console', `Rollout: ${o.plan.kind} workflow ${o.plan.workflow} · model ${modelName} via ${o.upstream.label} · python ${o.python}\n`);
    try {
      this.runner = await RunnerProcess.start({
        python: o.python,
        script: o.runnerScript,
        cwd: o.plan.cwd,
        env: runnerEnv(o.env, gateway.url, this.token),
        token: this.token,
        debugpy: o.pythonDebugger,
        onMessage: (m) => this.messages.handle(m),
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
      this.gateway = await startGateway({ handleCall: (c) => this.calls.handle(c), listModels: (aux) => this.upstreamFor(aux === undefined ? undefined : `auxiliary/${aux}`).models() }, this.token);
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
    this.messages.handle({ type: 'episodeStart', episode: id, taskIndex: this.episodes.length, taskId: id, repeat: 0, task });
    return this.episodes[this.episodes.length - 1];
  }

  /** Ends an episode started with beginEpisode(). */
  endEpisode(id: string, reward: number | null = null): void {
    this.messages.handle({ type: 'episodeEnd', episode: id, reward, metrics: {}, metadata: {}, experiences: [] });
  }

  private async discoverModel(): Promise<string> {
    const found = await discoverModelName(this.opts.upstream, this.opts.configModelName);
    if (found.problem) this.say('important', `${found.problem}\n`);
    return found.name;
  }

  /** Ends the run: releases held calls, stops the runner tree, closes the gateway. */
  async terminate(): Promise<void> {
    if (this.terminated) return;
    this.terminated = true;
    await this.branch?.terminate(); // stopped while an original branch runs (edit = fork)
    this.calls.abortAll();
    this.stops.release();
    await this.runner?.kill();
    await this.finish('terminated', 'stopped by the user');
  }

  private async finish(status: RunSummary['status'], message?: string): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.timing('run ended');
    this.stops.release();
    const o = this.opts;
    const summary = closeRun(this.writer, this.episodes, { id: this.writer?.id ?? '', backbone: o.backbone, config: o.meta.config as string | undefined, replayOf: o.replay?.runDir, status, message, startedAt: this.startedAt }, this.calls.totals, (o.plan.concurrency ?? 1) > 1);
    this.summary = summary;
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

  /** Runs the original branch of every edited episode (see fork.ts) and saves both branches. */
  private async runForks(): Promise<void> {
    const runDir = this.runDir;
    if (this.opts.fork === false || this.opts.replay || !runDir) return;
    for (const ep of this.episodes.filter((e) => e.forkAt)) {
      const dir = forkDir(runDir, ep.id);
      this.say('console', this.l10n.t('{0} was edited: running its original branch (without the edit) for comparison…', ep.id) + '\n');
      const branch = new RolloutRuntime(originalBranchOptions(this.opts, ep, dir, runDir, (role) => this.upstreamFor(role), this.modelName));
      if (this.terminated) break;
      this.branch = branch;
      const info = await runOriginalBranch(branch, ep, dir, this.l10n, (o) => this.emit('output', o));
      this.branch = undefined;
      this.forks.push(info);
      this.say('console', this.l10n.t('{0}: reward {1} with the edit, {2} without it (both branches saved in {3}).', ep.id, String(info.rewardEdited ?? 'none'), String(info.rewardOriginal ?? 'none'), dir) + '\n');
    }
  }

  // ------------------------------------------------------------------ the runner process

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
