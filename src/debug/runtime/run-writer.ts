// Writes a run's results under <root>/.agentrl/runs/<timestamp>/ as they happen, so a run
// that is stopped or crashes keeps everything recorded up to that point.
import * as fs from 'fs';
import * as path from 'path';
import { english, type L10n } from '../../base/l10n';
import {
  RECORDING_FILE,
  RUNS_DIR,
  SUMMARY_FILE,
  TRAJECTORIES_FILE,
  type EpisodeTrajectory,
  type RecordedCall,
  type RolloutSummary,
} from '../trajectory/trajectory';
import { toTrajectory, type Episode } from './episode';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function runId(d = new Date()): string {
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}-${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}-${pad(d.getMilliseconds(), 3)}`;
}

/** Creates `dir`; false when it exists already. */
function claimDir(dir: string): boolean {
  try {
    fs.mkdirSync(dir);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

export class RunWriter {
  readonly dir: string;
  readonly id: string;
  /** Called when a queued write fails (it runs outside any caller that could catch it). */
  onError?: (e: Error) => void;
  private readonly recording: string;
  private fd?: number;
  private closed = false;
  private queued: RecordedCall[] = [];

  /** A new folder under <root>/.agentrl/runs, or exactly `dir` (a fork's branch). */
  constructor(root: string, meta: Record<string, unknown>, dir?: string) {
    if (dir) {
      this.dir = dir;
      this.id = path.basename(dir);
      fs.mkdirSync(dir, { recursive: true });
    } else {
      const base = path.join(root, RUNS_DIR);
      fs.mkdirSync(base, { recursive: true });
      // mkdir is the claim: two runs started in one millisecond (two rollouts in one folder)
      // must not both take the folder a check-then-create would have given them
      let id = runId();
      for (let n = 2; !claimDir(path.join(base, id)); n++) id = `${runId()}-${n}`;
      this.id = id;
      this.dir = path.join(base, id);
    }
    this.recording = path.join(this.dir, RECORDING_FILE);
    fs.writeFileSync(path.join(this.dir, 'launch.json'), JSON.stringify(meta, null, 2) + '\n');
    fs.writeFileSync(this.recording, '');
    fs.writeFileSync(path.join(this.dir, TRAJECTORIES_FILE), '');
  }

  /** Queues a finished call. It is written on the next turn of the event loop, once the
   *  reply is on its way to the workflow (a finished call is never changed afterwards), so
   *  serialising and writing it stays off the call's latency. */
  recordCall(call: RecordedCall): void {
    this.queued.push(call);
    if (this.queued.length === 1) setImmediate(() => this.flush());
  }

  /** Writes the queued calls now (one write; the file stays open for the run). */
  flush(): void {
    if (!this.queued.length) return;
    const text = this.queued.map((c) => JSON.stringify(c) + '\n').join('');
    this.queued = [];
    try {
      if (this.closed) return fs.appendFileSync(this.recording, text);
      this.fd ??= fs.openSync(this.recording, 'a');
      const bytes = Buffer.from(text, 'utf8');
      for (let off = 0; off < bytes.length;) off += fs.writeSync(this.fd, bytes, off);
    } catch (e) {
      this.onError?.(e as Error);
    }
  }

  writeEpisode(t: EpisodeTrajectory): void {
    this.flush();
    fs.appendFileSync(path.join(this.dir, TRAJECTORIES_FILE), JSON.stringify(t) + '\n');
  }

  /** At the end of the run: the episodes in task order (task, then repeat), whatever order
   *  concurrent episodes finished in, so a replay reproduces the file byte for byte. */
  writeEpisodesInOrder(ts: EpisodeTrajectory[]): void {
    const sorted = [...ts].sort((a, b) => a.taskIndex - b.taskIndex || a.repeat - b.repeat);
    const file = path.join(this.dir, TRAJECTORIES_FILE);
    fs.writeFileSync(file + '.tmp', sorted.map((t) => JSON.stringify(t) + '\n').join(''));
    fs.renameSync(file + '.tmp', file);
  }

  writeSummary(s: RolloutSummary): void {
    this.flush();
    const file = path.join(this.dir, SUMMARY_FILE);
    fs.writeFileSync(file + '.tmp', JSON.stringify(s, null, 2) + '\n');
    fs.renameSync(file + '.tmp', file);
  }

  /** Flushes and closes the recording; calls that still end later are appended one by one. */
  close(): void {
    this.flush();
    this.closed = true;
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

type SummaryBase = Pick<RolloutSummary, 'id' | 'backbone' | 'config' | 'replayOf' | 'status' | 'message'> & { startedAt: Date; finishedAt: Date };

/** Ends the run's record: episodes cut short end as errors (keeping what they recorded), and
 *  the summary is computed and, when the run is recorded, written with the trajectories in
 *  task order when episodes ran concurrently (they finish out of order). */
export function closeRun(
  writer: RunWriter | undefined,
  episodes: Episode[],
  base: Omit<SummaryBase, 'finishedAt'>,
  llm: { calls: number; prompt: number; completion: number },
  concurrent: boolean,
): RolloutSummary {
  let driftCalls = 0;
  let driftEpisodes = 0;
  let maskWarnings = 0;
  let maskEpisodes = 0;
  let checkedCalls = 0;
  let checkedExperiences = 0;
  for (const ep of episodes) {
    const n = ep.turns.filter((t) => t.kind === 'llm' && t.drift?.length).length;
    driftCalls += n;
    if (n) driftEpisodes++;
    maskWarnings += ep.maskWarnings?.length ?? 0;
    checkedCalls += ep.tokenChecks?.calls ?? 0;
    checkedExperiences += ep.tokenChecks?.experiences ?? 0;
    if (ep.maskWarnings?.length) maskEpisodes++;
  }
  for (const ep of episodes) {
    if (ep.status === 'running') {
      ep.status = 'error';
      ep.endedAt = Date.now();
      const message = base.message ?? base.status;
      ep.error ??= { phase: 'runner', type: base.status === 'terminated' ? 'Terminated' : 'RunnerExited', message, traceback: [], text: message };
      writer?.writeEpisode(toTrajectory(ep));
    }
  }
  const summary = summarize(episodes.map(toTrajectory), { ...base, finishedAt: new Date() }, llm);
  if (driftCalls) summary.drift = { calls: driftCalls, episodes: driftEpisodes };
  if (maskWarnings) summary.maskWarnings = { spans: maskWarnings, episodes: maskEpisodes };
  if (checkedCalls || checkedExperiences) summary.tokenChecks = { calls: checkedCalls, experiences: checkedExperiences };
  if (concurrent) writer?.writeEpisodesInOrder(episodes.map(toTrajectory));
  writer?.writeSummary(summary);
  writer?.close();
  return summary;
}

/** Reward per task, mean, errors and tokens over finished episodes. */
export function summarize(episodes: EpisodeTrajectory[], base: SummaryBase, llm: { calls: number; prompt: number; completion: number }): RolloutSummary {
  const byTask = new Map<string, number[]>();
  const scored: number[] = [];
  for (const e of episodes) {
    const list = byTask.get(e.taskId) ?? [];
    if (typeof e.reward === 'number') {
      list.push(e.reward);
      scored.push(e.reward);
    }
    byTask.set(e.taskId, list);
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  return {
    id: base.id,
    status: base.status,
    backbone: base.backbone,
    ...(base.config ? { config: base.config } : {}),
    ...(base.replayOf ? { replayOf: base.replayOf } : {}),
    startedAt: base.startedAt.toISOString(),
    finishedAt: base.finishedAt.toISOString(),
    wallMs: base.finishedAt.getTime() - base.startedAt.getTime(),
    episodes: episodes.length,
    errors: episodes.filter((e) => e.error).length,
    rewardMean: mean(scored),
    rewardByTask: Object.fromEntries([...byTask.entries()].map(([k, v]) => [k, mean(v)])),
    tokens: { prompt: llm.prompt, completion: llm.completion, total: llm.prompt + llm.completion },
    llmCalls: llm.calls,
    ...(base.message ? { message: base.message } : {}),
  };
}

/** The run's closing lines for the debug console (and `agentrl rollout`'s terminal, in English):
 *  episodes, reward, tokens, what the token checks found, where the results are. `dir` is the
 *  run folder, undefined when the run was not saved. */
export function formatSummary(s: RolloutSummary, dir: string | undefined, l10n: L10n = english, model?: string): string {
  const reward = s.rewardMean === null ? 'n/a' : s.rewardMean.toFixed(3);
  const perTask = Object.entries(s.rewardByTask)
    .map(([k, v]) => `${k}=${v === null ? 'n/a' : v.toFixed(3)}`)
    .join(' ');
  const counts = [s.episodes, reward, s.errors, s.llmCalls, s.tokens.total, (s.wallMs / 1000).toFixed(1)] as const;
  const head = {
    completed: l10n.t('Rollout completed: {0} episode(s), mean reward {1}, {2} error(s), {3} LLM call(s), {4} tokens, {5} s', ...counts),
    terminated: l10n.t('Rollout terminated: {0} episode(s), mean reward {1}, {2} error(s), {3} LLM call(s), {4} tokens, {5} s', ...counts),
    failed: l10n.t('Rollout failed: {0} episode(s), mean reward {1}, {2} error(s), {3} LLM call(s), {4} tokens, {5} s', ...counts),
  }[s.status];
  const lines = [head];
  if (perTask) lines.push('  ' + l10n.t('reward per task: {0}', perTask));
  if (s.drift)
    lines.push(
      '  ' +
        l10n.t(
          "retokenization drift: {0} LLM call(s) in {1} episode(s) get other tokens from the chat template than the engine's",
          s.drift.calls,
          s.drift.episodes,
        ),
    );
  if (s.maskWarnings)
    lines.push(
      '  ' +
        l10n.t(
          'action mask: {0} span(s) of tool output, user or system tokens marked trained in {1} episode(s)',
          s.maskWarnings.spans,
          s.maskWarnings.episodes,
        ),
    );
  // Silence about drift and masks means "checked, fine" only when the checks ran: say how many.
  if (s.tokenChecks)
    lines.push(
      '  ' +
        l10n.t(
          'checked against the chat template: {0} LLM call(s) for retokenization drift, {1} returned experience(s) for their action mask',
          s.tokenChecks.calls,
          s.tokenChecks.experiences,
        ),
    );
  else if (s.tokenChecksSkipped)
    lines.push(
      '  ' + l10n.t('not checked against the chat template (retokenization drift, action masks): no tokenizer on this machine ({0})', s.tokenChecksSkipped),
    );
  if (s.message) lines.push(`  ${s.message}`);
  // A first run on the sandbox's tiny model scores 0: say that this is expected, not a bug.
  if (model && s.episodes > 0 && s.rewardMean !== null && s.rewardMean <= 0 && isSmallModel(model)) {
    lines.push(
      '  ' +
        l10n.t(
          'reward {0} from {1}: a model this small is not expected to solve the task. This run shows that the loop works (LLM calls, tools, reward); a larger model gives a real signal.',
          reward,
          model,
        ),
    );
  }
  lines.push('  ' + (dir === undefined ? l10n.t('results: not saved ("record": false)') : l10n.t('results: {0}', dir)));
  return lines.join('\n') + '\n';
}

/** A model too small to be expected to solve an agent task: "tiny" in its name (the sandbox's
 *  fixtures) or 3B parameters or fewer by its name ("Qwen2.5-0.5B-Instruct", "llama-3.2-1b"). */
function isSmallModel(name: string): boolean {
  if (/(^|[/_.-])tiny([/_.-]|$)/i.test(name)) return true;
  const size = /(?:^|[^\d.])(\d+(?:\.\d+)?)[bB](?![a-zA-Z])/.exec(name);
  return !!size && Number(size[1]) <= 3;
}
