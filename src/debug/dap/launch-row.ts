// A launch that replays experiences of a training run (`"rollout": {"fromJob", "id"}` in
// launch.json, `agentrl rollout --from-job … --id N`, and the rows `agentrl eval --rescore
// --from-job` re-scores): the row read through the relay (the ExperienceReader cli.ts /
// extension.ts hand in), the taskset it names chosen from the workspace's config or the job
// directory's copy, its task found by the runner, and the recorded conversation as the model
// (one RowReplayUpstream per experience, by episode). Why a row cannot be replayed is said
// through the launch's l10n (vscode.l10n in the debug adapter, English in the CLI).
import * as fs from 'fs';
import * as path from 'path';
import { parse as parseYaml } from 'yaml';
import type { ExperienceReader } from '../../feature-api/experience-reader';
import { asPromise } from '../../base/promise';
import { english, type L10n } from '../../base/l10n';
import { RowReplayUpstream } from '../gateway/row-replay';
import type { ReplayCheck, ReplayVerifier } from '../gateway/replay';
import type { CallContext, ChatUpstream, UpstreamResult } from '../gateway/model-endpoint';
import type { ChatCompletionRequest } from '../trajectory/trajectory';
import { firstUserText, recordedExperience, type RecordedExperience } from '../experience/recorded';
import { chooseTaskset, tasksetsOf } from '../experience/taskset-choice';
import { tokenTurns, type TokenTurns } from '../experience/token-turns';
import { tokenizerFor } from '../../tokens/tokenizer-files';
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
  /** The live model a diverged episode may go on against, and whether it does so without asking. */
  private liveModel: { upstream: ChatUpstream; always: boolean } | undefined;
  /** Episodes the user chose to go on live at their divergence stop. */
  private readonly chosen = new Set<string>();

  constructor(experiences: RecordedExperience[], turns: ReadonlyMap<string, TokenTurns> = new Map()) {
    for (const x of experiences) {
      const up = new RowReplayUpstream(x, turns.get(x.id));
      this.byId.set(x.id, up);
      this.byEpisode.set(rowEpisode(x.id), up);
    }
    this.label = experiences.length === 1 ? `replay of experience ${experiences[0].id}` : `replay of ${experiences.length} experiences`;
  }

  /** Sets the live model for going on after a divergence (`always`: without asking). */
  setLive(upstream: ChatUpstream, always: boolean): void {
    this.liveModel = { upstream, always };
  }

  /** A live model is there to go on against. */
  get canGoLive(): boolean {
    return !!this.liveModel;
  }

  /** The user's choice at `episode`'s divergence stop: go on against the live model (false: there is none). */
  chooseLive(episode: string): boolean {
    if (!this.liveModel || !this.byEpisode.has(episode)) return false;
    this.chosen.add(episode);
    return true;
  }

  continuesLive(episode: string): boolean {
    const up = this.byEpisode.get(episode);
    const live = this.liveModel;
    if (!up || !live || !up.log.divergedAt || !(live.always || this.chosen.has(episode))) return false;
    up.goLive(live.upstream, up.log.divergedAt.call);
    return true;
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
  /** Experiences left out, and why (a tokens-only row whose turns cannot be decoded). */
  rejected: { id: string; error: string }[];
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
  l10n: L10n = english,
): Promise<RowPrepared> {
  if (!reader) return { ok: false, message: l10n.t('Replaying a training run needs the relay reader, which this host does not have.') };
  const where = jobWhere(rollout.fromJob, root);
  let x: RecordedExperience | { error: string };
  try {
    x = recordedExperience(await reader.read(where, String(rollout.id)), l10n);
  } catch (e) {
    return { ok: false, message: l10n.t('Cannot read experience {0} of {1}: {2}', String(rollout.id), rollout.fromJob, (e as Error).message) };
  }
  if ('error' in x) return { ok: false, message: l10n.t('Cannot replay: {0}', x.error) };
  return planRowReplays([x], where, resolved, configPath, l10n);
}

/** The experience keeps its turns only as tokens. */
const tokensOnly = (x: RecordedExperience): boolean => !x.messages && x.responseText === undefined && !!x.tokens;

/** The model path the config names, resolved against the config's folder when it is a path there. */
function modelPathOf(doc: Record<string, unknown>, configPath: string): string | undefined {
  const model = doc.model && typeof doc.model === 'object' ? (doc.model as Record<string, unknown>) : {};
  const p = typeof model.model_path === 'string' ? model.model_path.trim() : '';
  if (!p) return undefined;
  const near = path.resolve(path.dirname(configPath), p);
  return !path.isAbsolute(p) && fs.existsSync(near) ? near : p;
}

/** Each tokens-only experience's turns, decoded with the run's tokenizer, or why they cannot be. */
function decodeTurns(
  experiences: RecordedExperience[],
  doc: Record<string, unknown>,
  configPath: string,
  l10n: L10n,
): { turns: Map<string, TokenTurns>; errors: Map<string, string> } {
  const turns = new Map<string, TokenTurns>();
  const errors = new Map<string, string>();
  const pending = experiences.filter(tokensOnly);
  if (!pending.length) return { turns, errors };
  const model = modelPathOf(doc, configPath);
  const got = model ? tokenizerFor(model) : undefined;
  for (const x of pending) {
    if (!model)
      errors.set(
        x.id,
        l10n.t(
          "experience {0} keeps its conversation only as tokens and an action mask (Trinity's multi-turn workflows keep no messages); rebuilding its turns needs the run's tokenizer, and the config names no model.model_path",
          x.id,
        ),
      );
    else if (!got || 'reason' in got)
      errors.set(
        x.id,
        l10n.t(
          "experience {0} keeps its conversation only as tokens and an action mask (Trinity's multi-turn workflows keep no messages); rebuilding its turns needs the run's tokenizer: the tokenizer of model.model_path {1} cannot be loaded ({2})",
          x.id,
          model,
          got?.reason ?? '',
        ),
      );
    else {
      const t = tokenTurns(x, got.tokenizer);
      if ('error' in t)
        errors.set(
          x.id,
          l10n.t(
            "experience {0} keeps its conversation only as tokens and an action mask (Trinity's multi-turn workflows keep no messages); rebuilding its turns needs the run's tokenizer: {1}",
            x.id,
            t.error,
          ),
        );
      else turns.set(x.id, t);
    }
  }
  return { turns, errors };
}

/** Plans the replay of experiences of one taskset (the first one's taskset_id) of the run at `where`. */
export function planRowReplays(experiences: RecordedExperience[], where: string, resolved: unknown, configPath: string, l10n: L10n = english): RowPrepared {
  const workspace = resolved && typeof resolved === 'object' ? (resolved as Record<string, unknown>) : {};
  const choice = chooseTaskset(workspace, jobConfig(where), experiences[0]?.tasksetId ?? null, path.basename(configPath), l10n);
  if ('error' in choice) return { ok: false, message: l10n.t('Cannot replay experience {0}: {1}', experiences[0]?.id ?? '', choice.error) };
  const ts = tasksetsOf(choice.doc)[0] ?? {};
  const format = ts.format && typeof ts.format === 'object' ? (ts.format as Record<string, unknown>) : {};
  const promptKey = typeof format.prompt_key === 'string' ? format.prompt_key : 'prompt';
  const decoded = decodeTurns(experiences, choice.doc, configPath, l10n);
  const rejected = [...decoded.errors].map(([id, error]) => ({ id, error }));
  experiences = experiences.filter((x) => !decoded.errors.has(x.id));
  if (!experiences.length) return { ok: false, message: l10n.t('Cannot replay: {0}', rejected[0].error) };
  return {
    ok: true,
    setup: { experiences, upstream: new RowReplays(experiences, decoded.turns), config: { from: choice.from, why: choice.why }, rejected },
    doc: choice.doc,
    replayed: experiences.map((x) => {
      // A row of tokens alone keeps its first user message in the tokens of its first prompt.
      const standIn = firstUserText(x) ?? decoded.turns.get(x.id)?.firstUser ?? null;
      return {
        key: x.id,
        index: x.taskIndex,
        fallback: { [promptKey]: standIn ?? '' },
        why:
          x.taskIndex === null
            ? 'the experience has no info.task_index (a task its reader did not number, a workflow that set eid.task itself, or a run older than task_index)'
            : null,
        standIn,
      };
    }),
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
      if (up.log.divergedAt && up.log.liveFrom === null && up.log.calls > up.recordedCalls + CALLS_PAST_DIVERGENCE)
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
