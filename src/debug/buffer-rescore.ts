// Buffer rows of a training run re-scored with the workspace's current workflow and reward
// (`agentrl eval --rescore --from-job`): the rows of some model versions read through the relay,
// replayed in one run per taskset (each row's episode answered from its recorded conversation),
// each row's recorded reward beside the one it gets now.
import { silentLogger } from '../base/log';
import type { ConfigChecker } from '../feature-api/config-checker';
import type { ExperienceReader } from '../feature-api/experience-reader';
import type { BufferRescoreOutcome, BufferRescoreRequest, BufferRowOutcome } from '../feature-api/rollouts';
import { prepareLaunch } from './dap/launch';
import { boundRowReplay, jobWhere, rowReplayOutcome } from './dap/launch-row';
import { recordedExperience, type RecordedExperience } from './experience/recorded';
import type { RolloutRuntime } from './runtime/rollout-runtime';

/** A replay that runs longer than this, per row, is stopped. */
const SECONDS_PER_ROW = 60;

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
  for (const experiences of bySet.values()) {
    const prepared = await prepareLaunch(
      { config: req.config, cwd: req.cwd, workspaceRoot: req.cwd, python: req.python, record: false, concurrency: req.concurrency },
      { checker, logger: silentLogger, runnerDir, env: req.env },
      { where, experiences },
    );
    if (!prepared.ok || !prepared.row) {
      if (!prepared.ok && !out.size) return { ok: false, message: prepared.message };
      for (const x of experiences) out.get(x.id)!.error = prepared.ok ? 'not replayed' : prepared.message;
      continue;
    }
    const rt = prepared.run as RolloutRuntime;
    const row = prepared.row;
    for (const r of row.rejected) out.get(r.id)!.error = r.error;
    rt.disableStops();
    const bound = boundRowReplay(rt, row, SECONDS_PER_ROW * experiences.length);
    const ended = new Promise<void>((r) => rt.once('ended', () => r()));
    try {
      await rt.start();
    } catch (e) {
      bound.dispose();
      for (const x of row.experiences) out.get(x.id)!.error = (e as Error).message;
      continue;
    }
    await ended;
    bound.dispose();
    for (const x of row.experiences) {
      const r = rowReplayOutcome(rt, row, x);
      const o = out.get(x.id)!;
      o.now = r.diverged_at || r.error ? null : r.reward;
      o.error = r.diverged_at ? `diverged at LLM call ${r.diverged_at.call}` : (r.error ?? bound.why() ?? null);
    }
  }
  return { ok: true, rows: [...out.values()] };
}
