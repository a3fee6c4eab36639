// Rewards and commits from the playground: thumbs / scores / A/B choices become /feedback calls
// through the outbox (sent once; a failed send stays visible and retryable), all alternatives of
// one prompt under its task_id so GRPO groups them; /commit hands the rewarded experiences to
// the trainer and reports the new explore step.
import type { ExplorerClient } from '../explorer/explorer-client';
import type { OnlineMetrics } from '../explorer/serve-metrics';
import { AlreadyRewardedError, type FeedbackOutbox } from '../explorer/outbox';
import type { Turn } from '../protocol/playground-protocol';
import type { PlaygroundMessages } from './playground-controller';
import type { PlaygroundViewState } from './view-state';

export interface RewardContext {
  /** the connected explorer (throws when none) */
  client: () => ExplorerClient;
  canReward: () => boolean;
  outbox: FeedbackOutbox;
  messages: PlaygroundMessages;
  view: PlaygroundViewState;
  refreshMetrics: () => Promise<OnlineMetrics | undefined>;
  save: () => void;
  onCommit?: (step: number, url: string) => void;
}

type AssistantTurn = Turn & { kind: 'assistant' };

export class Rewards {
  constructor(private readonly c: RewardContext) {}

  async reward(t: AssistantTurn, alt: number | undefined, reward: number, source: 'thumb' | 'score'): Promise<void> {
    const alts = alt === undefined ? t.alternatives : [t.alternatives[alt]].filter(Boolean);
    await this.give(alts.map((a) => a.msgId), reward, t.taskId, source);
  }

  async choose(t: AssistantTurn, alt: number, explorerUrl: string): Promise<void> {
    if (!t.alternatives[alt] || t.alternatives.length < 2) return;
    const others = t.alternatives.filter((_, i) => i !== alt).map((a) => a.msgId);
    const already = this.c.outbox.covering(explorerUrl, t.alternatives.map((a) => a.msgId));
    if (already) throw new AlreadyRewardedError(already);
    t.chosen = alt;
    this.c.save();
    await this.give([t.alternatives[alt].msgId], 1, t.taskId, 'choice');
    await this.give(others, 0, t.taskId, 'choice');
  }

  async commit(): Promise<void> {
    const client = this.c.client();
    if (!this.c.canReward()) throw new Error(this.c.messages.preV04());
    await client.commit();
    const step = (await this.c.refreshMetrics())?.exploreStep ?? 0;
    this.c.view.notice = this.c.messages.committed(step);
    this.c.onCommit?.(step, client.url);
  }

  private async give(msgIds: string[], reward: number, taskId: string, source: 'thumb' | 'score' | 'choice'): Promise<void> {
    const client = this.c.client();
    if (!this.c.canReward()) throw new Error(this.c.messages.preV04());
    const e = await this.c.outbox.give({ explorerUrl: client.url, msgIds, reward, taskId, runId: 0, source });
    if (e.state === 'failed') this.c.view.error = this.c.messages.error(new Error(e.error));
    await this.c.refreshMetrics();
  }
}
