// A launch that replays experiences of a training run (`"rollout": {"fromJob", "id"}` in
// launch.json, `agentrl rollout --from-job … --id N`, and the rows `agentrl eval --rescore
// --from-job` re-scores): the row read through the relay (the ExperienceReader cli.ts /
// extension.ts hand in), the taskset it names chosen from the workspace's config or the job
// directory's copy, its task found by the runner, and the recorded conversation as the model
// (one RowReplayUpstream per experience, by episode).
import * as fs from 'fs';
import * as path from 'path';
import { parse as parseYaml } from 'yaml';
import type { ExperienceReader } from '../../feature-api/experience-reader';
import { asPromise } from '../../base/promise';
import { RowReplayUpstream } from '../gateway/row-replay';
import type { ReplayCheck, ReplayVerifier } from '../gateway/replay';
import type { CallContext, ChatUpstream, UpstreamResult } from '../gateway/model-endpoint';
import type { ChatCompletionRequest } from '../trajectory/trajectory';
import { firstUserText, recordedExperience, type RecordedExperience } from '../experience/recorded';
import { chooseTaskset, tasksetsOf } from '../experience/taskset-choice';
import type { ReplayedRow } from '../trajectory/runner-protocol';
import { rowReplayResult, type RowReplayResult } from '../experience/outcome';
import type { RolloutRuntime } from '../runtime/rollout-runtime';

/** The episode the runner names for experience `id` (its task id is `exp<id>`, repeat 0). */
export const rowEpisode = (id: string): string => `Texp${id}#R0`;

/** Each experience's replay, by the episode that replays it. */
export class RowReplays implements ChatUpstream, ReplayVerifier {
  readonly label: string;
  readonly byId = new Map<string, RowReplayUpstream>();
  private readonly byEpisode = new Map<string, RowReplayUpstream>();

  constructor(experiences: RecordedExperience[]) {
    for (const x of experiences) {
      const up = new RowReplayUpstream(x);
      this.byId.set(x.id, up);
      this.byEpisode.set(rowEpisode(x.id), up);
    }
    this.label = experiences.length === 1 ? `replay of experience ${experiences[0].id}` : `replay of ${experiences.length} experiences`;
  }

  verify(episode: string, index: number, request: ChatCompletionRequest, role?: string): ReplayCheck {
    const up = this.byEpisode.get(episode);
    if (!up) return { ok: false, message: `Replay diverged: ${episode} replays no recorded experience`, diff: '' };
    return up.verify(episode, index, request, role);
  }

  complete(body: ChatCompletionRequest, ctx: CallContext): Promise<UpstreamResult> {
    const up = this.byEpisode.get(ctx.episode);
    if (!up) return asPromise(() => ({ ok: false, error: { kind: 'divergence', status: 409, message: `${ctx.episode} replays no recorded experience` } }));
    return up.complete(body, ctx);
  }

  models(): Promise<unknown> {
    return Promise.resolve({ object: 'list', data: [{ id: 'replay', object: 'model', owned_by: 'replay' }] });
  }
}

/** What a row replay's run carries besides its plan: for the results at its end. */
export interface RowReplaySetup {
  experiences: RecordedExperience[];
  upstream: RowReplays;
  /** Which config the taskset was read from, and why. */
  config: { from: 'workspace' | 'job'; why: string };
}

export type RowPrepared = { ok: true; setup: RowReplaySetup; doc: Record<string, unknown>; replayed: ReplayedRow[] } | { ok: false; message: string };

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

/** Where `fromJob` is: a relay URL as given, a directory resolved from `root`. */
export const jobWhere = (fromJob: string, root: string): string => (/^wss?:\/\//.test(fromJob) ? fromJob : path.resolve(root, fromJob));

/** Reads experience `id` and plans its replay. */
export async function prepareRowReplay(
  rollout: { fromJob: string; id: string | number },
  reader: ExperienceReader | undefined,
  root: string,
  resolved: unknown,
  configPath: string,
): Promise<RowPrepared> {
  if (!reader) return { ok: false, message: 'Replaying a training run needs the relay reader, which this host does not have.' };
  const where = jobWhere(rollout.fromJob, root);
  let x: RecordedExperience | { error: string };
  try {
    x = recordedExperience(await reader.read(where, String(rollout.id)));
  } catch (e) {
    return { ok: false, message: `Cannot read experience ${rollout.id} of ${rollout.fromJob}: ${(e as Error).message}` };
  }
  if ('error' in x) return { ok: false, message: `Cannot replay: ${x.error}` };
  return planRowReplays([x], where, resolved, configPath);
}

/** Plans the replay of experiences of one taskset (the first one's taskset_id) of the run at `where`. */
export function planRowReplays(experiences: RecordedExperience[], where: string, resolved: unknown, configPath: string): RowPrepared {
  const workspace = resolved && typeof resolved === 'object' ? (resolved as Record<string, unknown>) : {};
  const choice = chooseTaskset(workspace, jobConfig(where), experiences[0]?.tasksetId ?? null, path.basename(configPath));
  if ('error' in choice) return { ok: false, message: `Cannot replay experience ${experiences[0]?.id}: ${choice.error}` };
  const ts = tasksetsOf(choice.doc)[0] ?? {};
  const format = ts.format && typeof ts.format === 'object' ? (ts.format as Record<string, unknown>) : {};
  const promptKey = typeof format.prompt_key === 'string' ? format.prompt_key : 'prompt';
  return {
    ok: true,
    setup: { experiences, upstream: new RowReplays(experiences), config: { from: choice.from, why: choice.why } },
    doc: choice.doc,
    replayed: experiences.map((x) => ({
      key: x.id,
      index: x.taskIndex,
      fallback: { [promptKey]: firstUserText(x) ?? '' },
      why: x.taskIndex === null ? 'the experience has no info.task_index (a workflow that set eid.task itself, or a run older than task_index)' : null,
    })),
  };
}

/** The result of replaying experience `x` once its episode has ended: recorded vs now. */
export function rowReplayOutcome(rt: RolloutRuntime, row: RowReplaySetup, x: RecordedExperience = row.experiences[0]): RowReplayResult {
  const ep = rt.episodes.find((e) => e.id === rowEpisode(x.id));
  return rowReplayResult(
    x,
    row.upstream.byId.get(x.id)!.log,
    ep && ep.status !== 'running'
      ? { reward: ep.reward, metrics: ep.metrics, experiences: ep.experiences, ...(ep.error ? { error: ep.error } : {}) }
      : undefined,
    rt.replayedTasks.get(x.id),
    row.config,
  );
}

/** Calls past the recording a diverged replay may still make before it is stopped (a workflow that retries forever). */
const CALLS_PAST_DIVERGENCE = 16;

/** Bounds a headless row replay: stopped when a diverged episode keeps calling the model, or
 *  after `maxSeconds` (`overrun` says so); `why()` says what stopped it (undefined: it ended by itself). */
export function boundRowReplay(
  rt: RolloutRuntime,
  row: RowReplaySetup,
  maxSeconds: number,
  overrun = `the replay ran longer than ${maxSeconds} s; stopped`,
): { why(): string | undefined; dispose(): void } {
  let stopped: string | undefined;
  const stop = (why: string) => {
    stopped ??= why;
    void rt.terminate();
  };
  const onProgress = () => {
    for (const up of row.upstream.byId.values())
      if (up.log.divergedAt && up.log.calls > up.recordedCalls + CALLS_PAST_DIVERGENCE)
        stop(`the workflow kept calling the model after the replay diverged (${up.log.calls} calls); stopped`);
  };
  rt.on('episodeProgress', onProgress);
  const timer = setTimeout(() => stop(overrun), maxSeconds * 1000);
  return {
    why: () => stopped,
    dispose: () => {
      clearTimeout(timer);
      rt.off('episodeProgress', onProgress);
    },
  };
}
