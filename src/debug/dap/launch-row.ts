// A launch that replays one experience of a training run (`"rollout": {"fromJob", "id"}` in
// launch.json, `agentrl rollout --from-job … --id N`): the row read through the relay (the
// ExperienceReader cli.ts / extension.ts hand in), the taskset it names chosen from the
// workspace's config or the job directory's copy, its task found by the runner, and the
// recorded conversation as the model (RowReplayUpstream).
import * as fs from 'fs';
import * as path from 'path';
import { parse as parseYaml } from 'yaml';
import type { ExperienceReader } from '../../feature-api/experience-reader';
import { RowReplayUpstream } from '../gateway/row-replay';
import { firstUserText, recordedExperience, type RecordedExperience } from '../experience/recorded';
import { chooseTaskset, tasksetsOf } from '../experience/taskset-choice';
import type { RunnerPlan } from '../trajectory/runner-protocol';
import { rowReplayResult, type RowReplayResult } from '../experience/outcome';
import type { RolloutRuntime } from '../runtime/rollout-runtime';

/** What a row replay's run carries besides its plan: for the result at its end. */
export interface RowReplaySetup {
  experience: RecordedExperience;
  upstream: RowReplayUpstream;
  /** Which config the taskset was read from, and why. */
  config: { from: 'workspace' | 'job'; why: string };
}

export type RowPrepared =
  { ok: true; setup: RowReplaySetup; doc: Record<string, unknown>; replayed: NonNullable<RunnerPlan['tasks']['replayed']> } | { ok: false; message: string };

/** The job directory's own config copy (Trinity writes it as YAML despite the name), if any. */
function jobConfig(fromJob: string): Record<string, unknown> | undefined {
  if (/^wss?:\/\//.test(fromJob)) return undefined;
  const file = path.join(fromJob, 'config.json');
  if (!fs.existsSync(file)) return undefined;
  try {
    const v: unknown = parseYaml(fs.readFileSync(file, 'utf8'));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function prepareRowReplay(
  rollout: { fromJob: string; id: string | number },
  reader: ExperienceReader | undefined,
  root: string,
  resolved: unknown,
  configPath: string,
): Promise<RowPrepared> {
  if (!reader) return { ok: false, message: 'Replaying a training run needs the relay reader, which this host does not have.' };
  const where = /^wss?:\/\//.test(rollout.fromJob) ? rollout.fromJob : path.resolve(root, rollout.fromJob);
  let x: RecordedExperience | { error: string };
  try {
    x = recordedExperience(await reader.read(where, String(rollout.id)));
  } catch (e) {
    return { ok: false, message: `Cannot read experience ${rollout.id} of ${rollout.fromJob}: ${(e as Error).message}` };
  }
  if ('error' in x) return { ok: false, message: `Cannot replay: ${x.error}` };
  const workspace = resolved && typeof resolved === 'object' ? (resolved as Record<string, unknown>) : {};
  const choice = chooseTaskset(workspace, jobConfig(where), x.tasksetId, path.basename(configPath));
  if ('error' in choice) return { ok: false, message: `Cannot replay experience ${x.id}: ${choice.error}` };
  const ts = tasksetsOf(choice.doc)[0] ?? {};
  const format = ts.format && typeof ts.format === 'object' ? (ts.format as Record<string, unknown>) : {};
  const promptKey = typeof format.prompt_key === 'string' ? format.prompt_key : 'prompt';
  const first = firstUserText(x);
  return {
    ok: true,
    setup: { experience: x, upstream: new RowReplayUpstream(x), config: { from: choice.from, why: choice.why } },
    doc: choice.doc,
    replayed: {
      index: x.taskIndex,
      fallback: { [promptKey]: first ?? '' },
      why: x.taskIndex === null ? 'the experience has no info.task_index (a workflow that set eid.task itself, or a run older than task_index)' : null,
    },
  };
}

/** The result of a row replay's run once it has ended: recorded vs now. */
export function rowReplayOutcome(rt: RolloutRuntime, row: RowReplaySetup): RowReplayResult {
  const ep = rt.episodes[0];
  return rowReplayResult(
    row.experience,
    row.upstream.log,
    ep && ep.status !== 'running'
      ? { reward: ep.reward, metrics: ep.metrics, experiences: ep.experiences, ...(ep.error ? { error: ep.error } : {}) }
      : undefined,
    rt.replayedTask,
    row.config,
  );
}
