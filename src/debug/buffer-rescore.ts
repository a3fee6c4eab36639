// Buffer rows of a training run re-scored with the workspace's current workflow and reward
// (`agentrl eval --rescore --from-job`): the rows of some model versions read through the relay,
// replayed in one run per taskset (each row's episode answered from its recorded conversation),
// each row's recorded reward beside the one it gets now. Each row's replay has the time limit of
// one episode's reward (`--reward-timeout`), the whole re-score that of a run (`--rescore-timeout`).
import { silentLogger } from '../base/log';
import type { ConfigChecker } from '../feature-api/config-checker';
import type { ExperienceReader } from '../feature-api/experience-reader';
import type { BufferRescoreOutcome, BufferRescoreRequest, BufferRowOutcome } from '../feature-api/rollouts';
import { prepareLaunch } from './dap/launch';
import { boundRowReplay, jobWhere, rowEpisode, rowReplayOutcome } from './dap/launch-row';
import { recordedExperience, type RecordedExperience } from './experience/recorded';
import { DEFAULT_RESCORE_LIMITS } from './rescore-process';
import type { Episode } from './runtime/episode';
import type { RolloutRuntime } from './runtime/rollout-runtime';

export async function rescoreBuffer(
  checker: ConfigChecker,
  runnerDir: string,
  reader: ExperienceReader,
  req: BufferRescoreRequest,
): Promise<BufferRescoreOutcome> {
  const where = jobWhere(req.fromJob, req.cwd);
  let read;
  try {
    read = await reader.rows(where, req.versions);
  } catch (e) {
    return { ok: false, message: `Cannot read the experiences of ${req.fromJob}: ${(e as Error).message}` };
  }
  const out = new Map<string, BufferRowOutcome>();
  const bySet = new Map<number, RecordedExperience[]>();
  for (const r of read) {
    const x = r.error ? { error: r.error } : recordedExperience(r);
    const row = r.row ?? {};
    const base: BufferRowOutcome = {
      id: r.id,
      step: null,
      modelVersion: typeof row.model_version === 'number' ? row.model_version : 'error' in x ? null : x.modelVersion,
      taskIndex: 'error' in x ? (row.task_index ?? null) : x.taskIndex,
      task: null,
      recorded: typeof row.reward === 'number' ? row.reward : 'error' in x ? null : x.reward,
      now: null,
      error: 'error' in x ? x.error : null,
    };
    base.step = ('error' in x ? null : x.step) ?? base.modelVersion;
    base.task =
      base.taskIndex !== null ? `#${base.taskIndex}` : typeof row.task_id === 'string' || typeof row.task_id === 'number' ? `eid ${row.task_id}` : null;
    out.set(r.id, base);
    if ('error' in x) continue;
    const set = x.tasksetId ?? 0;
    bySet.set(set, [...(bySet.get(set) ?? []), x]);
  }
  const limits = {
    itemSeconds: req.limits?.itemSeconds ?? DEFAULT_RESCORE_LIMITS.itemSeconds,
    runSeconds: req.limits?.runSeconds ?? DEFAULT_RESCORE_LIMITS.runSeconds,
  };
  const runDeadline = Date.now() + limits.runSeconds * 1000;
  const overRun = `the re-score stopped at its time limit of ${limits.runSeconds} s for the run (the limit is --rescore-timeout)`;
  for (const experiences of bySet.values()) {
    // A row whose replay overruns --reward-timeout stops the run it is in (one runner replays
    // them all): that row fails, and the rows the stop cut short are replayed again without it.
    let todo = experiences;
    while (todo.length) {
      const left = (runDeadline - Date.now()) / 1000;
      if (left <= 0) {
        for (const x of todo) out.get(x.id)!.error = overRun;
        break;
      }
      const replayed = await replayRows(checker, runnerDir, req, where, todo, { itemSeconds: limits.itemSeconds, leftSeconds: left, overRun });
      if (!replayed.ok) {
        if (!out.size) return replayed;
        for (const x of todo) out.get(x.id)!.error = replayed.message;
        break;
      }
      for (const [id, o] of replayed.rows) Object.assign(out.get(id)!, o);
      todo = replayed.cutShort;
    }
  }
  return { ok: true, rows: [...out.values()] };
}

/** What one replay gave: each row's outcome, and the rows a stop cut short (to replay again). */
type Replayed = { ok: true; rows: Map<string, Pick<BufferRowOutcome, 'now' | 'error'>>; cutShort: RecordedExperience[] } | { ok: false; message: string };

/**
 * Replays `experiences` in one run. A row running longer than `itemSeconds` stops the run and
 * fails (its process tree is ended with the runner's); the whole run stops after `leftSeconds`.
 */
async function replayRows(
  checker: ConfigChecker,
  runnerDir: string,
  req: BufferRescoreRequest,
  where: ReturnType<typeof jobWhere>,
  experiences: RecordedExperience[],
  limits: { itemSeconds: number; leftSeconds: number; overRun: string },
): Promise<Replayed> {
  const prepared = await prepareLaunch(
    { config: req.config, cwd: req.cwd, workspaceRoot: req.cwd, python: req.python, record: false, concurrency: req.concurrency },
    { checker, logger: silentLogger, runnerDir, env: req.env },
    { where, experiences },
  );
  if (!prepared.ok) return { ok: false, message: prepared.message };
  const rows = new Map<string, Pick<BufferRowOutcome, 'now' | 'error'>>();
  if (!prepared.row) {
    for (const x of experiences) rows.set(x.id, { now: null, error: 'not replayed' });
    return { ok: true, rows, cutShort: [] };
  }
  const rt = prepared.run as RolloutRuntime;
  const row = prepared.row;
  // Rows the replay cannot take (a multi-turn row without a tokenizer…): their own error, not replayed.
  const rejected = new Set(row.rejected.map((r) => r.id));
  for (const r of row.rejected) rows.set(r.id, { now: null, error: r.error });
  rt.disableStops();
  const bound = boundRowReplay(rt, row, limits.leftSeconds, limits.overRun);
  // Each row's own clock starts with its episode; past --reward-timeout the run is stopped.
  const overran = new Set<string>();
  const clocks = new Map<string, NodeJS.Timeout>();
  const onStart = (ep: Episode) => {
    const x = experiences.find((e) => rowEpisode(e.id) === ep.id);
    if (!x) return;
    clocks.set(
      ep.id,
      setTimeout(() => {
        overran.add(x.id);
        void rt.terminate();
      }, limits.itemSeconds * 1000),
    );
  };
  const onEnd = (ep: Episode) => {
    clearTimeout(clocks.get(ep.id));
    clocks.delete(ep.id);
  };
  rt.on('episodeStarted', onStart);
  rt.on('episodeEnded', onEnd);
  const ended = new Promise<void>((r) => rt.once('ended', () => r()));
  const release = () => {
    bound.dispose();
    rt.off('episodeStarted', onStart);
    rt.off('episodeEnded', onEnd);
    for (const t of clocks.values()) clearTimeout(t);
  };
  try {
    await rt.start();
  } catch (e) {
    release();
    for (const x of row.experiences) rows.set(x.id, { now: null, error: (e as Error).message });
    return { ok: true, rows, cutShort: [] };
  }
  await ended;
  release();
  const cutShort: RecordedExperience[] = [];
  for (const x of experiences) {
    if (rejected.has(x.id)) continue;
    if (overran.has(x.id)) {
      rows.set(x.id, {
        now: null,
        error: `RewardTimeout: the replay of this row (its workflow and reward) took longer than ${limits.itemSeconds} s (the limit is --reward-timeout); it was stopped with its child processes`,
      });
      continue;
    }
    const ep = rt.episodes.find((e) => e.id === rowEpisode(x.id));
    const unfinished = !ep || ep.status === 'running';
    const stopped = bound.why();
    // Cut short by another row's overrun (not by the run's own limit): replayed again.
    if (overran.size && !stopped && unfinished) {
      cutShort.push(x);
      continue;
    }
    const r = rowReplayOutcome(rt, row, x);
    rows.set(x.id, {
      now: r.diverged_at || r.error ? null : r.reward,
      // Stopped by the run's limit before it ended cleanly: that is its error, whether the stop
      // found its episode still running or already marked terminated ("stopped by the user").
      error: r.diverged_at ? `diverged at LLM call ${r.diverged_at.call}` : stopped && (unfinished || r.error) ? stopped : (r.error ?? null),
    });
  }
  return { ok: true, rows, cutShort };
}
