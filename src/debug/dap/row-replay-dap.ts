// A replay of a training run's experiences as the debug adapter shows it (session.ts): the
// recorded experience beside each episode, the last words (recorded vs recomputed reward and
// parts, the finding), and at a stop where the replay diverged, the offer to go on against the
// live model (protocol/replay-live.ts) and the user's answer to it.
import type { L10n } from '../../base/l10n';
import { comparisonLines, rewardFinding, type RowReplayResult } from '../experience/outcome';
import type { ReplayDivergedEvent } from '../protocol/replay-live';
import type { Episode } from '../runtime/episode';
import type { RolloutRuntime } from '../runtime/rollout-runtime';
import type { RunHandle } from '../runtime/run-handle';
import type { StopInfo } from '../runtime/stop-policy';
import { recordedScope } from './frames';
import { rowEpisode, rowReplayOutcome, type RowReplaySetup } from './launch-row';

export class RowReplayDap {
  constructor(
    private readonly row: RowReplaySetup,
    private readonly l10n: L10n,
  ) {}

  /** The recorded experience an episode replays, as a scope. */
  recordedScopes(ep: Episode): ReturnType<typeof recordedScope>[] {
    const x = this.row.experiences.find((e) => rowEpisode(e.id) === ep.id);
    return x ? [recordedScope(x, this.l10n)] : [];
  }

  /** The last words: the comparison's lines, the finding when the rewards differ, the result (the `agentrl.rowReplay` event). */
  report(run: RolloutRuntime): { lines: string; finding?: string; result: RowReplayResult } {
    const result = rowReplayOutcome(run, this.row);
    return { lines: comparisonLines(result, this.l10n).join('\n') + '\n', finding: rewardFinding(result, this.l10n), result };
  }

  /** The offer to go on live at stop `s`: undefined unless the replay diverged there and a live model is there. */
  divergedOffer(s: StopInfo): ReplayDivergedEvent | undefined {
    if (s.exception?.id !== 'replay.divergence' || !s.episode || s.turn?.kind !== 'llm' || !this.row.upstream.canGoLive) return undefined;
    return { threadId: s.episode.threadId, episode: s.episode.id, call: s.turn.index + 1 };
  }

  /** The episode of `agentrl.goLive` {threadId}, now going on live from its divergence (undefined: no live model, no such episode). */
  liveEpisode(args: unknown, run: RunHandle | undefined): Episode | undefined {
    const threadId = (args as { threadId?: unknown } | undefined)?.threadId;
    const ep = typeof threadId === 'number' ? run?.episodeByThread(threadId) : undefined;
    return ep && this.row.upstream.chooseLive(ep.id) ? ep : undefined;
  }

  /** Why `liveEpisode` gave none. */
  get noLive(): string {
    return this.l10n.t('This episode cannot go on against a live model: no model endpoint in the launch configuration.');
  }
}
