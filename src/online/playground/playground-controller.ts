// The playground's logic, free of VS Code: it answers the webview's messages by chatting with
// the explorer (one request per alternative, so each alternative has its own msg_id and can be
// rewarded alone), giving rewards through the outbox (thumbs, scores and A/B choices, all
// alternatives of one prompt under its task_id so GRPO groups them), committing, polling
// /metrics, and saving the conversation after every change. It posts its whole state to the
// webview after each change (busy, the last error or notice, the latest /metrics sample); what
// it needs of VS Code (a tools picker, a connection) it asks for as PlaygroundEvents. The
// adapter is OnlineHost (src/online/online-host.ts).
import { EventEmitter } from 'node:events';
import type OpenAI from 'openai';
import type { ChatRequest, ChatResult, ExplorerClient } from '../explorer/explorer-client';
import { servingVersion, type OnlineMetrics } from '../explorer/serve-metrics';
import { AlreadyRewardedError, type FeedbackOutbox } from '../explorer/outbox';
import { ConversationStore, newConversationId } from './conversations';
import { replyTokens, type ReplyRecord } from './reply-tokens';
import type { L10n } from '../../base/l10n';
import type { TokenizerOrReason } from '../../tokens/build';
import type { ChatMessage } from '../../tokens/chat-template';
import { toWire } from '../../tokens/experience-wire';
import { tokenViewStrings } from '../../tokens/view-strings';
import type { Alternative, Conversation, HostToWebview, PlaygroundState, SamplingParams, Turn, WebviewToHost } from '../protocol/playground-protocol';

/** The playground's texts in the reader's language (src/online/strings.ts; plain English in tests). */
export interface PlaygroundTexts {
  /** The webview's labels. */
  strings: Record<string, string>;
  l10n: L10n;
  /** A sentence for a failed request (an ExplorerError names what the explorer did). */
  describeError(e: unknown): string;
}

/** The explorer the playground talks to. */
interface PlaygroundConnection {
  client: ExplorerClient;
  models: string[];
  /** /feedback and /commit exist (false: an explorer older than Trinity-RFT 0.4). */
  canReward: boolean;
}

/** What the playground tells its owner, and what the webview asked of VS Code. */
interface PlaygroundEvents {
  /** A commit went through: the explorer is at explore step `step` (the metrics view marks it). */
  commit: [step: number, explorerUrl: string];
  /** The webview asks to choose the tools offered to the model (answer with setTools). */
  pickTools: [];
  /** The webview asks to connect to an explorer (answer with setConnection). */
  connect: [];
}

const DEFAULT_PARAMS: SamplingParams = { n: 1, maxTokens: 256, stream: true };

type AssistantTurn = Turn & { kind: 'assistant' };

export class PlaygroundController extends EventEmitter<PlaygroundEvents> {
  private connection: PlaygroundConnection | undefined;
  private conversation: Conversation;
  private model: string | undefined;
  private params: SamplingParams = DEFAULT_PARAMS;
  /** Tools offered to the model (from a JSON file or a workflow's recorded requests). */
  private tools: OpenAI.Chat.ChatCompletionTool[] = [];
  // What the webview shows besides the conversation.
  private busy = false;
  private error: string | undefined;
  private notice: string | undefined;
  private metrics: (OnlineMetrics & { at: number }) | undefined;
  /** The webview said `ready`: states can be posted. */
  private attached = false;
  /** Each reply of this session by msg_id: what its tokens are built from (kept in memory only). */
  private readonly replies = new Map<string, Omit<ReplyRecord, 'content' | 'toolCalls'>>();
  private readonly tokenizers = new Map<string, TokenizerOrReason>();

  constructor(
    private readonly post: (m: HostToWebview) => void,
    private readonly outbox: FeedbackOutbox,
    private readonly store: ConversationStore,
    private readonly texts: PlaygroundTexts,
    /** Test seams: the clock and the task ids. */
    private readonly seams: { now?: () => number; taskId?: () => string } = {},
    /** The tokenizer of a served model (for "Tokens" on a reply). */
    private readonly findTokenizer: (model: string) => TokenizerOrReason = (model) => ({ reason: model }),
  ) {
    super();
    this.conversation = this.fresh();
  }

  get current(): Conversation {
    return this.conversation;
  }

  /** The connection changed: its models, and a new conversation when the explorer differs. */
  setConnection(c: PlaygroundConnection | undefined): void {
    this.connection = c;
    const models = c?.models ?? [];
    if (!this.model || !models.includes(this.model)) this.model = models[0];
    if (this.conversation.explorerUrl !== (c?.client.url ?? '')) this.conversation = this.fresh();
    this.pushState();
  }

  setTools(tools: OpenAI.Chat.ChatCompletionTool[]): void {
    this.tools = tools;
    this.pushState();
  }

  detach(): void {
    this.attached = false;
  }

  async receive(raw: WebviewToHost): Promise<void> {
    switch (raw.type) {
      case 'ready':
        this.attached = true;
        this.pushState();
        return void this.refreshMetrics();
      case 'send':
        return this.guard(() => this.send(raw.text, raw.params));
      case 'regenerate':
        return this.guard(() => this.regenerate(raw.turn));
      case 'reward':
        return this.guard(() => this.reward(raw.turn, raw.alt, raw.reward, raw.source));
      case 'choose':
        return this.guard(() => this.choose(raw.turn, raw.alt));
      case 'tokens':
        return this.guard(() => {
          this.showTokens(raw.turn, raw.alt);
          return Promise.resolve();
        });
      case 'retry':
        return this.guard(async () => {
          const n = raw.feedbackId ? ((await this.outbox.retry(raw.feedbackId))?.state === 'sent' ? 1 : 0) : await this.outbox.retryAll();
          this.notice = this.texts.l10n.t('{0} reward(s) sent.', n);
          await this.refreshMetrics();
        });
      case 'commit':
        return this.guard(() => this.commit());
      case 'refreshMetrics':
        await this.refreshMetrics();
        return;
      case 'newConversation':
        this.conversation = this.fresh();
        return this.pushState();
      case 'openConversation': {
        const c = this.store.load(raw.id);
        if (c) this.conversation = c;
        return this.pushState();
      }
      case 'pickTools':
        this.emit('pickTools');
        return;
      case 'selectModel':
        if (this.connection?.models.includes(raw.model)) this.model = raw.model;
        return this.pushState();
      case 'connect':
        this.emit('connect');
        return;
    }
  }

  // ---- chat ----------------------------------------------------------------------------------

  /** Sends a user message and collects `params.n` alternatives. */
  async send(text: string, params: SamplingParams): Promise<void> {
    const client = this.requireClient();
    this.params = sanitize(params);
    this.conversation.turns.push({ kind: 'user', content: text });
    if (this.conversation.title === '') this.conversation.title = text.slice(0, 60);
    this.conversation.turns.push({ kind: 'assistant', taskId: this.newTaskId(), alternatives: [] });
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

  /**
   * Collects `n` alternatives for an assistant turn: one request each, the text streamed to the
   * webview as it arrives, the conversation saved after each, and the serving model version
   * noted when /metrics reports it.
   */
  private async collect(client: ExplorerClient, turnIndex: number, n: number): Promise<void> {
    const t = this.assistantTurn(turnIndex);
    const req: ChatRequest = {
      model: this.model ?? this.conversation.model,
      messages: toOpenAiMessages(this.conversation.turns.slice(0, turnIndex)),
      tools: this.tools,
      maxTokens: this.params.maxTokens,
      topP: this.params.topP,
      temperature: this.params.temperature,
      stream: this.params.stream,
    };
    for (let i = 0; i < n; i++) {
      const alt = t.alternatives.length;
      let r: ChatResult;
      try {
        r = await client.chat(req, (text) => this.post({ type: 'delta', turn: turnIndex, alt, text }));
      } catch (e) {
        t.error = this.texts.describeError(e);
        this.save();
        throw e;
      }
      delete t.error;
      const a: Alternative = {
        msgId: r.msgId,
        content: r.content,
        latencyMs: Math.round(r.latencyMs),
        promptTokens: r.promptTokens,
        completionTokens: r.completionTokens,
      };
      if (r.toolCalls) a.toolCalls = r.toolCalls;
      this.replies.set(r.msgId, { prompt: req.messages as ChatMessage[], tools: req.tools, finishReason: r.finishReason, ids: r.tokens });
      t.alternatives.push(a);
      this.save();
      const v = servingVersion(await this.refreshMetrics());
      if (v !== undefined) {
        a.modelVersion = v;
        this.save();
      }
    }
  }

  /** One reply as tokens: the ids the explorer returned, else re-tokenized from the messages. */
  showTokens(turnIndex: number, alt: number): void {
    const t = this.assistantTurn(turnIndex);
    const a = t.alternatives[alt];
    if (!a) return;
    const kept = this.replies.get(a.msgId) ?? { prompt: toOpenAiMessages(this.conversation.turns.slice(0, turnIndex)) as ChatMessage[], tools: this.tools };
    const model = this.model ?? this.conversation.model;
    let tk = this.tokenizers.get(model);
    if (!tk) this.tokenizers.set(model, (tk = this.findTokenizer(model)));
    const { experience, notes } = replyTokens({ ...kept, content: a.content, toolCalls: a.toolCalls }, tk, this.texts.l10n);
    this.post({ type: 'tokens', turn: turnIndex, alt, experience: toWire(experience), notes, strings: tokenViewStrings(this.texts.l10n) });
  }

  // ---- rewards and commits ---------------------------------------------------------------------

  /** A thumbs up/down or a number, for one alternative or for the whole group. */
  async reward(turnIndex: number, alt: number | undefined, reward: number, source: 'thumb' | 'score'): Promise<void> {
    const t = this.assistantTurn(turnIndex);
    const alts = alt === undefined ? t.alternatives : [t.alternatives[alt]].filter(Boolean);
    await this.give(
      alts.map((a) => a.msgId),
      reward,
      t.taskId,
      source,
    );
  }

  /** An A/B choice: the chosen alternative gets 1, the others 0, all under the prompt's task_id. */
  async choose(turnIndex: number, alt: number): Promise<void> {
    const t = this.assistantTurn(turnIndex);
    if (!t.alternatives[alt] || t.alternatives.length < 2) return;
    const others = t.alternatives.filter((_, i) => i !== alt).map((a) => a.msgId);
    const already = this.outbox.covering(
      this.conversation.explorerUrl,
      t.alternatives.map((a) => a.msgId),
    );
    if (already) throw new AlreadyRewardedError(already);
    t.chosen = alt;
    this.save();
    await this.give([t.alternatives[alt].msgId], 1, t.taskId, 'choice');
    await this.give(others, 0, t.taskId, 'choice');
  }

  /** /commit hands the rewarded experiences to the trainer; the new explore step is reported. */
  async commit(): Promise<void> {
    const client = this.rewardingClient();
    await client.commit();
    const step = (await this.refreshMetrics())?.exploreStep ?? 0;
    this.notice = this.texts.l10n.t('Committed: the explorer is at explore step {0}.', step);
    this.emit('commit', step, client.url);
  }

  /** A reward through the outbox (sent once; a failed send stays visible and retryable). */
  private async give(msgIds: string[], reward: number, taskId: string, source: 'thumb' | 'score' | 'choice'): Promise<void> {
    const client = this.rewardingClient();
    const e = await this.outbox.give({ explorerUrl: client.url, msgIds, reward, taskId, runId: 0, source });
    if (e.state === 'failed') this.error = this.texts.describeError(new Error(e.error));
    await this.refreshMetrics();
  }

  async refreshMetrics(): Promise<OnlineMetrics | undefined> {
    const client = this.connection?.client;
    if (!client) return undefined;
    try {
      const m = await client.metrics();
      this.metrics = { ...m, at: this.now() };
      this.pushState();
      return m;
    } catch (e) {
      this.error = this.texts.describeError(e);
      this.pushState();
      return undefined;
    }
  }

  // ---- what the webview shows ------------------------------------------------------------------

  state(): PlaygroundState {
    return {
      strings: this.texts.strings,
      explorerUrl: this.connection?.client.url,
      models: this.connection?.models ?? [],
      model: this.model,
      canReward: this.connection?.canReward ?? true,
      conversation: this.conversation,
      conversations: this.store.list(),
      feedback: this.outbox.list().map((e) => ({ id: e.id, msgIds: e.msgIds, reward: e.reward, state: e.state, ...(e.error ? { error: e.error } : {}) })),
      toolCount: this.tools.length,
      params: this.params,
      metrics: this.metrics,
      busy: this.busy,
      error: this.error,
      notice: this.notice,
    };
  }

  pushState(): void {
    if (this.attached) this.post({ type: 'state', state: this.state() });
  }

  /** Runs one user action: busy while it runs, its error shown (never thrown to the webview). */
  private async guard(f: () => Promise<void>): Promise<void> {
    this.busy = true;
    this.error = undefined;
    this.notice = undefined;
    this.pushState();
    try {
      await f();
    } catch (e) {
      this.error = e instanceof AlreadyRewardedError ? this.alreadyRewarded(e.entry.state) : this.texts.describeError(e);
    } finally {
      this.busy = false;
      this.pushState();
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  private requireClient(): ExplorerClient {
    const c = this.connection?.client;
    if (!c) throw new Error(this.texts.l10n.t('Not connected to an explorer.'));
    return c;
  }

  /** The client, when the explorer takes rewards and commits (Trinity-RFT ≥ 0.4). */
  private rewardingClient(): ExplorerClient {
    const client = this.requireClient();
    if (!this.connection!.canReward) throw new Error(this.texts.l10n.t('This explorer is older than Trinity-RFT 0.4: rewards and commits are not available.'));
    return client;
  }

  private alreadyRewarded(state: string): string {
    const { l10n } = this.texts;
    return state === 'sent'
      ? l10n.t('These answers were already rewarded (already sent).')
      : l10n.t('These answers already have a reward waiting to be sent: use Retry unsent.');
  }

  private assistantTurn(i: number): AssistantTurn {
    const t = this.conversation.turns[i];
    if (t?.kind !== 'assistant') throw new Error(`turn ${i} is not an assistant turn`);
    return t;
  }

  private save(): void {
    this.conversation.updatedAt = this.now();
    if (this.conversation.turns.length) this.store.save(this.conversation);
    this.pushState();
  }

  private fresh(): Conversation {
    const now = this.now();
    return {
      id: newConversationId(now),
      title: '',
      createdAt: now,
      updatedAt: now,
      explorerUrl: this.connection?.client.url ?? '',
      model: this.model ?? '',
      turns: [],
    };
  }

  private newTaskId(): string {
    return this.seams.taskId?.() ?? `${this.conversation.id}-t${this.conversation.turns.length}`;
  }

  private now(): number {
    return (this.seams.now ?? Date.now)();
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
