// The playground's logic, free of VS Code: it answers the webview's messages by chatting with
// the explorer (one request per alternative, so each alternative has its own msg_id and can be
// rewarded alone), giving rewards through the outbox, committing, polling /metrics, and saving
// the conversation after every change. The adapter (playground-host.ts) supplies the pieces.
import type OpenAI from 'openai';
import { ExplorerError } from '../explorer/errors';
import type { ChatRequest, ExplorerClient } from '../explorer/explorer-client';
import type { OnlineMetrics } from '../explorer/serve-metrics';
import type { FeedbackOutbox } from '../explorer/outbox';
import { ConversationStore, newConversationId } from './conversations';
import { PlaygroundViewState, type StatusFields } from './view-state';
import { Rewards } from './rewards';
import { collectAlternatives } from './generate';
import type { Conversation, HostToWebview, PlaygroundState, SamplingParams, Turn, WebviewToHost } from '../protocol/playground-protocol';

export interface PlaygroundMessages {
  strings: Record<string, string>;
  error(e: unknown): string;
  committed(step: number): string;
  alreadyRewarded(state: string): string;
  noExplorer(): string;
  preV04(): string;
  retried(n: number): string;
}

export interface PlaygroundDeps {
  client: () => ExplorerClient | undefined;
  /** whether /feedback and /commit exist (false: an explorer older than 0.4) */
  canReward: () => boolean;
  outbox: FeedbackOutbox;
  store: ConversationStore;
  post: (m: HostToWebview) => void;
  messages: PlaygroundMessages;
  /** tools offered to the model (from a JSON file or the workflow) */
  tools: () => OpenAI.Chat.ChatCompletionTool[];
  pickTools: () => Promise<void>;
  connect: () => Promise<void>;
  /** told after each commit (the metrics view marks it) */
  onCommit?: (step: number, url: string) => void;
  taskId?: () => string;
  now?: () => number;
}

export const DEFAULT_PARAMS: SamplingParams = { n: 1, maxTokens: 256, stream: true };

export class PlaygroundController {
  private conversation: Conversation;
  private models: string[] = [];
  private model: string | undefined;
  private params: SamplingParams = DEFAULT_PARAMS;

  private readonly view: PlaygroundViewState;
  private readonly rewards: Rewards;

  constructor(private readonly d: PlaygroundDeps) {
    this.conversation = this.fresh();
    this.view = new PlaygroundViewState(d.post, () => this.snapshot(), d.messages);
    this.rewards = new Rewards({ ...d, view: this.view, client: () => this.requireClient(), refreshMetrics: () => this.refreshMetrics(), save: () => this.save() });
  }

  get current(): Conversation {
    return this.conversation;
  }

  /** The connection changed: its models, and a new conversation when the explorer differs. */
  setConnection(models: string[]): void {
    this.models = models;
    if (!this.model || !models.includes(this.model)) this.model = models[0];
    const url = this.d.client()?.url ?? '';
    if (this.conversation.explorerUrl !== url) this.conversation = this.fresh();
    this.pushState();
  }

  detach(): void {
    this.view.attached = false;
  }

  async receive(raw: WebviewToHost): Promise<void> {
    switch (raw.type) {
      case 'ready':
        this.view.attached = true;
        this.pushState();
        return void this.refreshMetrics();
      case 'send':
        return this.view.guard(() => this.send(raw.text, raw.params));
      case 'regenerate':
        return this.view.guard(() => this.regenerate(raw.turn));
      case 'reward':
        return this.view.guard(() => this.reward(raw.turn, raw.alt, raw.reward, raw.source));
      case 'choose':
        return this.view.guard(() => this.choose(raw.turn, raw.alt));
      case 'retry':
        return this.view.guard(async () => {
          const n = raw.feedbackId ? ((await this.d.outbox.retry(raw.feedbackId))?.state === 'sent' ? 1 : 0) : await this.d.outbox.retryAll();
          this.view.notice = this.d.messages.retried(n);
          await this.refreshMetrics();
          return;
        });
      case 'commit':
        return this.view.guard(() => this.commit());
      case 'refreshMetrics':
        await this.refreshMetrics();
        return;
      case 'newConversation':
        this.conversation = this.fresh();
        return this.pushState();
      case 'openConversation': {
        const c = this.d.store.load(raw.id);
        if (c) this.conversation = c;
        return this.pushState();
      }
      case 'pickTools':
        await this.d.pickTools();
        return this.pushState();
      case 'selectModel':
        if (this.models.includes(raw.model)) this.model = raw.model;
        return this.pushState();
      case 'connect':
        return this.d.connect();
    }
  }

  /** Sends a user message and collects `params.n` alternatives. */
  async send(text: string, params: SamplingParams): Promise<void> {
    const client = this.requireClient();
    this.params = sanitize(params);
    this.conversation.turns.push({ kind: 'user', content: text });
    if (this.conversation.title === '') this.conversation.title = text.slice(0, 60);
    const turn: Turn & { kind: 'assistant' } = { kind: 'assistant', taskId: this.newTaskId(), alternatives: [] };
    this.conversation.turns.push(turn);
    this.save();
    await this.collect(client, this.conversation.turns.length - 1, this.params.n);
  }

  /** One more alternative for an assistant turn (same prompt, same task_id). */
  async regenerate(turnIndex: number): Promise<void> {
    const client = this.requireClient();
    const t = this.conversation.turns[turnIndex];
    if (t?.kind !== 'assistant') return;
    await this.collect(client, turnIndex, 1);
  }

  /** A thumbs up/down or a number, for one alternative or for the whole group. */
  reward(turnIndex: number, alt: number | undefined, reward: number, source: 'thumb' | 'score'): Promise<void> {
    return this.rewards.reward(this.assistantTurn(turnIndex), alt, reward, source);
  }

  /** An A/B choice: the chosen alternative gets 1, the others 0, all under the prompt's task_id. */
  choose(turnIndex: number, alt: number): Promise<void> {
    return this.rewards.choose(this.assistantTurn(turnIndex), alt, this.conversation.explorerUrl);
  }

  commit(): Promise<void> {
    return this.rewards.commit();
  }

  async refreshMetrics(): Promise<OnlineMetrics | undefined> {
    const client = this.d.client();
    if (!client) return undefined;
    try {
      const m = await client.metrics();
      this.view.metrics = { ...m, at: this.now() };
      this.pushState();
      return m;
    } catch (e) {
      this.view.error = this.d.messages.error(e);
      this.pushState();
      return undefined;
    }
  }

  state(): PlaygroundState {
    return this.view.state();
  }

  private snapshot(): Omit<PlaygroundState, StatusFields> {
    return {
      strings: this.d.messages.strings,
      explorerUrl: this.d.client()?.url,
      models: this.models,
      model: this.model,
      canReward: this.d.canReward(),
      conversation: this.conversation,
      conversations: this.d.store.list(),
      feedback: this.d.outbox.list().map((e) => ({ id: e.id, msgIds: e.msgIds, reward: e.reward, state: e.state, ...(e.error ? { error: e.error } : {}) })),
      toolCount: this.d.tools().length,
      params: this.params,
    };
  }

  pushState(): void {
    this.view.push();
  }

  private async collect(client: ExplorerClient, turnIndex: number, n: number): Promise<void> {
    const req: ChatRequest = {
      model: this.model ?? this.conversation.model,
      messages: toOpenAiMessages(this.conversation.turns.slice(0, turnIndex)),
      tools: this.d.tools(),
      maxTokens: this.params.maxTokens,
      topP: this.params.topP,
      temperature: this.params.temperature,
      stream: this.params.stream,
    };
    await collectAlternatives(client, this.assistantTurn(turnIndex), req, n, {
      delta: (alt, text) => this.d.post({ type: 'delta', turn: turnIndex, alt, text }),
      save: () => this.save(),
      refreshMetrics: () => this.refreshMetrics(),
      error: (e) => this.d.messages.error(e),
    });
  }

  private requireClient(): ExplorerClient {
    const c = this.d.client();
    if (!c) throw new Error(this.d.messages.noExplorer());
    return c;
  }

  private assistantTurn(i: number): Turn & { kind: 'assistant' } {
    const t = this.conversation.turns[i];
    if (t?.kind !== 'assistant') throw new Error(`turn ${i} is not an assistant turn`);
    return t;
  }

  private save(): void {
    this.conversation.updatedAt = this.now();
    if (this.conversation.turns.length) this.d.store.save(this.conversation);
    this.pushState();
  }

  private fresh(): Conversation {
    const now = this.now();
    return { id: newConversationId(now), title: '', createdAt: now, updatedAt: now, explorerUrl: this.d.client()?.url ?? '', model: this.model ?? '', turns: [] };
  }

  private newTaskId(): string {
    return this.d.taskId?.() ?? `${this.conversation.id}-t${this.conversation.turns.length}`;
  }

  private now(): number {
    return (this.d.now ?? Date.now)();
  }
}

/** The conversation as chat messages: each assistant turn contributes its chosen (else first) alternative. */
export function toOpenAiMessages(turns: Turn[]): OpenAI.Chat.ChatCompletionMessageParam[] {
  const out: OpenAI.Chat.ChatCompletionMessageParam[] = [];
  for (const t of turns) {
    if (t.kind === 'user') out.push({ role: 'user', content: t.content });
    else {
      const a = t.alternatives[t.chosen ?? 0];
      if (a) out.push({ role: 'assistant', content: a.content });
    }
  }
  return out;
}

function sanitize(p: SamplingParams): SamplingParams {
  const n = Math.min(8, Math.max(1, Math.floor(Number(p.n) || 1)));
  const maxTokens = Math.min(8192, Math.max(1, Math.floor(Number(p.maxTokens) || DEFAULT_PARAMS.maxTokens)));
  const out: SamplingParams = { n, maxTokens, stream: p.stream !== false };
  if (typeof p.topP === 'number' && p.topP > 0 && p.topP <= 1) out.topP = p.topP;
  if (typeof p.temperature === 'number' && p.temperature >= 0) out.temperature = p.temperature;
  return out;
}

export { ExplorerError };
