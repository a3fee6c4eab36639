// Edit = fork, the "both branches" half. The debugger ran the edited branch; the original
// branch is what the episode would have done without the edit. It is made by running the
// episode's task once more: every call before the first edited one is answered from the
// parent's recording (so the workflow reaches the fork point in the same state), the first
// edited call goes to the model as the workflow sent it (or, for an edited reply, gets the
// model's original reply), and the rest runs live. The branch is a run folder of its own
// (recording, trajectories, summary: replayable) under <run>/forks/<episode>/.
import * as fs from 'fs';
import * as path from 'path';
import type { L10n } from '../../base/l10n';
import { FORK_EDITED_TRANSCRIPT, FORK_FILE, FORK_ORIGINAL_TRANSCRIPT, FORKS_DIR, type ChatCompletionRequest, type ForkInfo } from '../trajectory/trajectory';
import { sameRequest } from '../gateway/chat';
import type { CallContext, ChatUpstream, UpstreamResult } from '../gateway/model-endpoint';
import { episodeMarkdown } from '../results/transcript';
import { toTrajectory, type Episode, type LlmTurn } from './episode';
import type { RunHandle, RunOutput } from './run-handle';
import type { RuntimeOptions } from './run-options';

/** Answers the branch's calls: recorded before the fork point, live from there. */
class ForkUpstream implements ChatUpstream {
  readonly label: string;
  private readonly byKey = new Map<string, { turn: LlmTurn; order: number }>();
  private readonly forkOrder: number;

  constructor(
    parent: Episode,
    private readonly live: (role: string | undefined) => ChatUpstream,
  ) {
    const llm = parent.turns.filter((t): t is LlmTurn => t.kind === 'llm');
    llm.forEach((turn, order) => this.byKey.set(key(turn.index, turn.role), { turn, order }));
    const at = parent.forkAt;
    this.forkOrder = at ? (this.byKey.get(key(at.index, at.role))?.order ?? llm.length) : llm.length;
    this.label = `original branch of ${parent.id} (${live(undefined).label})`;
  }

  async complete(body: ChatCompletionRequest, ctx: CallContext): Promise<UpstreamResult> {
    const rec = this.byKey.get(key(ctx.index, ctx.role));
    if (rec && rec.order <= this.forkOrder && sameRequest(rec.turn.request, ctx.original)) {
      const t = rec.turn;
      if (rec.order < this.forkOrder) {
        // Before the fork point: what the workflow received in the parent run.
        const response = t.delivered ?? t.response;
        if (t.error || !response) return { ok: false, error: t.error ?? { kind: 'divergence', status: 409, message: 'the recorded call has no reply' } };
        return { ok: true, response, chunks: t.delivered ? undefined : t.chunks };
      }
      // The fork point with only the reply edited: the model's own reply, unedited.
      if (!t.sent && t.response) return { ok: true, response: t.response, chunks: t.chunks };
    }
    return this.live(ctx.role).complete(body, ctx);
  }

  models(): Promise<unknown> {
    return this.live(undefined).models();
  }
}

const key = (index: number, role?: string) => `${role ?? ''}\u0000${index}`;

/** The folder of an episode's fork inside its run. */
export function forkDir(runDir: string, episode: string): string {
  return path.join(runDir, FORKS_DIR, episode.replace(/[^\w.-]+/g, '_'));
}

/** The options of `ep`'s original branch: the parent's, for its task only, answered by a
 *  ForkUpstream over the parent's models (`live`), saved in `dir`, headless. */
export function originalBranchOptions(
  parent: RuntimeOptions,
  ep: Episode,
  dir: string,
  parentRunDir: string,
  live: (role: string | undefined) => ChatUpstream,
  modelName: string | undefined,
): RuntimeOptions {
  const tasks = parent.plan.tasks;
  return {
    ...parent,
    plan: { ...parent.plan, tasks: { source: tasks.source, ids: [ep.taskId], ...(tasks.idKey ? { idKey: tasks.idKey } : {}) }, repeat: 1, concurrency: 1 },
    upstream: new ForkUpstream(ep, live),
    auxiliary: parent.auxiliary?.map((a) => ({ name: a.name })),
    modelName,
    runRoot: undefined,
    runDir: dir,
    fork: false,
    pythonDebugger: false,
    onTiming: undefined,
    meta: { ...parent.meta, forkOf: parentRunDir, episode: ep.id },
  };
}

/** Runs the original branch of `ep` (a runtime built on a ForkUpstream, saving into `dir`)
 *  headless, then saves fork.json and both branches' transcripts beside it. The branch is a
 *  RunHandle (what rollout-runtime.ts implements), so this module does not import the runtime
 *  that imports it. */
export async function runOriginalBranch(branch: RunHandle, ep: Episode, dir: string, l10n: L10n, onOutput: (o: RunOutput) => void): Promise<ForkInfo> {
  const info: ForkInfo = { episode: ep.id, at: ep.forkAt!, status: 'failed', rewardOriginal: null, rewardEdited: ep.reward };
  branch.disableStops();
  try {
    const ended = new Promise<void>((r) => branch.once('ended', () => r()));
    branch.on('output', (o) => o.category !== 'console' && onOutput(o));
    await branch.start();
    await ended;
    const other = branch.episodes[0];
    Object.assign(info, {
      status: branch.summary?.status ?? 'failed',
      message: branch.summary?.message,
      branchEpisode: other?.id,
      rewardOriginal: other?.reward ?? null,
    });
    if (other)
      fs.writeFileSync(
        path.join(dir, FORK_ORIGINAL_TRANSCRIPT),
        episodeMarkdown(toTrajectory(other), dir, l10n.t('Original branch of {0} (without the edit)', ep.id)),
      );
  } catch (e) {
    info.message = (e as Error).message;
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, FORK_EDITED_TRANSCRIPT), episodeMarkdown(toTrajectory(ep), dir, l10n.t('Edited branch of {0} (as debugged)', ep.id)));
  fs.writeFileSync(path.join(dir, FORK_FILE), JSON.stringify(info, null, 2) + '\n');
  return info;
}
