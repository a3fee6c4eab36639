// Upstream debug backbones: `trinity debug` (Trinity-RFT) and `astuner|ajet --backbone
// debug` (AgentScope Tuner / AgentJet). They need their own stacks (Ray, vLLM, a GPU), so
// they only run when their CLI is installed; otherwise a clear message. The run's console
// output streams into the Debug Console; when it ends, its results (Trinity's
// experiences.db, ASTuner/AgentJet rollout logs) become episodes under .agentrl/runs/.
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import { EventEmitter } from 'events';
import * as fs from 'fs';
import * as path from 'path';
import { english, type L10n } from '../../base/l10n';
import { asPromise } from '../../base/promise';
import type { EpisodeTrajectory, RolloutSummary } from '../trajectory/trajectory';
import type { Backbone } from '../runtime/plan';
import { newEpisode, type Episode } from '../runtime/episode';
import { killTree } from '../runtime/process-tree';
import type { RunEvents, RunHandle } from '../runtime/run-handle';
import type { StopInfo } from '../runtime/stop-policy';
import { formatSummary, RunWriter, summarize } from '../runtime/run-writer';
import { readRolloutLog } from './astuner-logs';

export const BACKBONE_CLI: Record<Exclude<Backbone, 'native'>, string> = { trinity: 'trinity', astuner: 'astuner', ajet: 'ajet' };

/** The backbone's CLI: next to the interpreter (its venv), else on PATH. */
export function findCli(name: string, python: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const exe = process.platform === 'win32' ? [`${name}.exe`, `${name}.cmd`] : [name];
  const dirs = [...(path.isAbsolute(python) ? [path.dirname(python)] : []), ...(env.PATH ?? '').split(path.delimiter).filter(Boolean)];
  for (const d of dirs)
    for (const e of exe) {
      const p = path.join(d, e);
      try {
        fs.accessSync(p, fs.constants.X_OK);
        return p;
      } catch {
        /* next */
      }
    }
  return undefined;
}

export function missingCliMessage(backbone: Exclude<Backbone, 'native'>, python: string): string {
  const what =
    backbone === 'trinity'
      ? '`trinity debug --module workflow` (Trinity-RFT, needs Ray and an inference engine)'
      : `\`${backbone} --backbone debug\` (needs vLLM and a GPU)`;
  const pkg = backbone === 'trinity' ? 'trinity-rft' : backbone === 'astuner' ? 'AgentScope-Tuner' : 'AgentJet';
  return `The ${backbone} backbone runs ${what}, and no \`${BACKBONE_CLI[backbone]}\` command was found next to ${python} or on PATH. Install ${pkg} in that environment, or use "backbone": "native" (needs only Python and an OpenAI-compatible endpoint).`;
}

export interface UpstreamRunOptions {
  backbone: Exclude<Backbone, 'native'>;
  cli: string;
  config: string;
  python: string;
  /** The folder holding the `agentrl_runner` package, which reads Trinity's experiences.db. */
  runnerDir: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  runRoot?: string;
  /** The launch's `launcherArgs`, appended to the upstream command (AgentJet launcher flags...). */
  launcherArgs?: string[];
  /** The launch's `debugTags`: AgentJet's `--debug=TAG1|TAG2`, so `bp("TAG1")` stops there. */
  debugTags?: string[];
  meta: Record<string, unknown>;
  /** The run's closing lines: vscode.l10n in the extension, English elsewhere. */
  l10n?: L10n;
}

/** A run of an upstream debug mode: no stepping (the upstream runs it), results imported
 *  after. It never stops, so breakpoints, stepping and pause have nothing to act on. */
export class UpstreamRun extends EventEmitter<RunEvents> implements RunHandle {
  readonly episodes: Episode[] = [];
  readonly stop: StopInfo | undefined = undefined;
  summary?: RolloutSummary;
  runDir?: string;
  private children: ChildProcess[] = [];
  private writer?: RunWriter;
  private terminated = false;
  /** A write to the run's record failed (said once). */
  private saveFailed = false;
  private readonly startedAt = new Date();

  constructor(private readonly o: UpstreamRunOptions) {
    super();
  }

  disableStops(): void {}
  setBreakpoints(): void {}
  setExceptionFilters(): void {}
  resume(): void {}
  pause(): void {}
  stopOf(): StopInfo | undefined {
    return undefined;
  }
  episodeByThread(threadId: number): Episode | undefined {
    return this.episodes.find((e) => e.threadId === threadId);
  }

  start(): Promise<void> {
    return asPromise(() => this.begin());
  }

  private begin(): void {
    if (this.o.runRoot) {
      this.writer = new RunWriter(this.o.runRoot, this.o.meta);
      this.runDir = this.writer.dir;
    }
    const out = path.join(this.runDir ?? this.o.cwd, `${this.o.backbone}-debug`);
    this.say(`Backbone ${this.o.backbone}: ${this.o.cli}\n`);
    // Whatever goes wrong, the run ends: the debug session waits for `ended`.
    this.run(out).catch((e: unknown) => this.finish('failed', `the ${this.o.backbone} run failed: ${e instanceof Error ? e.message : String(e)}`));
  }

  private async run(out: string): Promise<void> {
    let code: number | null;
    if (this.o.backbone === 'trinity') {
      // The workflow module attaches to a running inference_model; start one in the background.
      const engine = this.spawn(['debug', '--config', this.o.config, '--module', 'inference_model']);
      await this.waitForOutput(engine, /ready|started|running|ctrl\+c|listening/i, 180_000);
      code = await this.exit(this.spawn(['debug', '--config', this.o.config, '--module', 'workflow', '--output-dir', out, ...(this.o.launcherArgs ?? [])]));
    } else {
      const tags = this.o.debugTags?.length ? [`--debug=${this.o.debugTags.join('|')}`] : [];
      code = await this.exit(this.spawn(['--conf', this.o.config, '--backbone', 'debug', ...tags, ...(this.o.launcherArgs ?? [])]));
    }
    if (this.terminated) return;
    const imported = this.importResults(out);
    for (const c of this.children) if (c.pid && c.exitCode === null) await killTree(c.pid);
    const status: RolloutSummary['status'] = code === 0 ? 'completed' : 'failed';
    this.finish(
      status,
      code === 0 ? `${imported} episode(s) imported from the ${this.o.backbone} debug output` : `${BACKBONE_CLI[this.o.backbone]} exited with code ${code}`,
    );
  }

  private spawn(args: string[]): ChildProcess {
    this.say(`$ ${path.basename(this.o.cli)} ${args.join(' ')}\n`);
    const child = spawn(this.o.cli, args, { cwd: this.o.cwd, env: this.o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
    this.children.push(child);
    child.stdout.on('data', (b: Buffer) => this.emit('output', { category: 'stdout', text: b.toString('utf8') }));
    child.stderr.on('data', (b: Buffer) => this.emit('output', { category: 'stderr', text: b.toString('utf8') }));
    child.on('error', (e) => this.say(`${this.o.cli}: ${e.message}\n`));
    return child;
  }

  private exit(child: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.once('exit', (c) => resolve(c));
      child.once('error', () => resolve(127));
    });
  }

  private waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, timeoutMs);
      const on = (b: Buffer) => {
        if (pattern.test(b.toString('utf8'))) {
          clearTimeout(t);
          resolve();
        }
      };
      child.stdout!.on('data', on);
      child.stderr!.on('data', on);
      child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** Turns the upstream's output into episodes; returns how many. */
  private importResults(out: string): number {
    let trajectories: EpisodeTrajectory[] = [];
    try {
      trajectories = this.o.backbone === 'trinity' ? this.readExperiencesDb(path.join(out, 'experiences.db')) : readRolloutLog(this.o.cwd);
    } catch (e) {
      this.say(`Could not read the ${this.o.backbone} debug output: ${(e as Error).message}\n`);
    }
    for (const t of trajectories) {
      const ep = newEpisode({ id: t.episode, threadId: this.episodes.length + 1, taskIndex: t.taskIndex, taskId: t.taskId, repeat: t.repeat, task: t.task });
      Object.assign(ep, { reward: t.reward, metadata: t.metadata, experiences: t.experiences, status: 'done', endedAt: Date.now() });
      this.episodes.push(ep);
      this.save(() => this.writer?.writeEpisode(t));
      this.emit('episodeEnded', ep);
    }
    return trajectories.length;
  }

  /** experiences.db (table debug_buffer) read by the user's Python: sqlite3 + pickle are stdlib. */
  private readExperiencesDb(db: string): EpisodeTrajectory[] {
    if (!fs.existsSync(db)) throw new Error(`${db} was not written`);
    const env = { ...this.o.env, PYTHONPATH: [this.o.runnerDir, this.o.env.PYTHONPATH].filter(Boolean).join(path.delimiter) };
    const r = spawnSync(this.o.python, ['-B', '-m', 'agentrl_runner', '--read-experiences', db], { encoding: 'utf8', timeout: 60_000, env });
    if (r.status !== 0) throw new Error(r.stderr || `exit ${r.status}`);
    return JSON.parse(r.stdout) as EpisodeTrajectory[];
  }

  async terminate(): Promise<void> {
    if (this.terminated) return;
    this.terminated = true;
    for (const c of this.children) if (c.pid) await killTree(c.pid);
    this.finish('terminated', 'stopped by the user');
  }

  private finish(status: RolloutSummary['status'], message: string): void {
    if (this.summary) return;
    const finishedAt = new Date();
    this.summary = summarize(
      this.episodes.map((e) => ({
        episode: e.id,
        taskIndex: e.taskIndex,
        taskId: e.taskId,
        repeat: e.repeat,
        task: e.task,
        turns: [],
        reward: e.reward,
        metrics: {},
        metadata: {},
        experiences: [],
      })),
      { id: this.writer?.id ?? '', backbone: this.o.backbone, config: this.o.config, status, message, startedAt: this.startedAt, finishedAt },
      { calls: 0, prompt: 0, completion: 0 },
    );
    const summary = this.summary;
    this.save(() => this.writer?.writeSummary(summary));
    this.say(formatSummary(this.summary, this.runDir, this.o.l10n));
    this.emit('ended', this.summary);
  }

  /** Writes to the run's record; a failure (run dir deleted, disk full) is said once and the run goes on. */
  private save(write: () => void): void {
    try {
      write();
    } catch (e) {
      if (!this.saveFailed) this.say((this.o.l10n ?? english).t("Could not save the run's record in {0}: {1}", this.runDir ?? '', (e as Error).message) + '\n');
      this.saveFailed = true;
    }
  }

  private say(text: string): void {
    this.emit('output', { category: 'console', text });
  }
}
