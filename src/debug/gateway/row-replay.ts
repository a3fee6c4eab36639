// Replay of one experience of a training run's buffer: the workflow's LLM call k is answered
// with the k-th assistant turn of the recorded conversation (or the response_text of a
// single-turn row that keeps only prompt_text / response_text), no model asked. Each request is
// checked against what the recording says the model saw before that turn; a request that differs
// (the prompt template changed, the environment answered otherwise) is a divergence, reported
// with the same diff as the replay of a debug run (chat.ts). A group-sampling call (`n` > 1, as
// Trinity's math workflows sample a task's repeats in one call) is answered with the recorded
// member in every slot, and the result says which slot the recorded one is. A row that keeps only
// tokens (Trinity's multi-turn workflows) is answered with its turns rebuilt by the run's
// tokenizer (experience/token-turns.ts), each request rendered through the chat template and
// compared with the tokens the model was prompted with. Pure.
import { asPromise } from '../../base/promise';
import type { ChatCompletion, ChatCompletionRequest, ChatMessage } from '../trajectory/trajectory';
import type { RecordedExperience, RecordedMessage } from '../experience/recorded';
import type { TokenTurns } from '../experience/token-turns';
import { canonicalJson, requestDiff } from './chat';
import type { CallContext, ChatUpstream, UpstreamResult } from './model-endpoint';
import type { ReplayCheck, ReplayVerifier } from './replay';

/** What the replay saw of the workflow's calls, for the result. */
export interface RowReplayLog {
  /** Calls the workflow made to the rollout model. */
  calls: number;
  /** The first divergence: the 1-based call and the request diff. */
  divergedAt: { call: number; message: string; diff: string } | null;
  /** The 1-based call from which a live model answered, after the divergence (null: none did). */
  liveFrom: number | null;
  /** The slot of a group-sampling call the recorded member answers, and the group's size. */
  slot: { index: number; of: number } | null;
  /** What the check could not compare, once each (prompt_text rows, sampling parameters…). */
  unchecked: string[];
}

/** A message as compared: role, text, tool calls (name, arguments, id), tool_call_id, name. */
function comparable(m: ChatMessage | RecordedMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role };
  if (m.content !== undefined && m.content !== null && m.content !== '') out.content = m.content;
  if (Array.isArray(m.tool_calls) && m.tool_calls.length) {
    out.tool_calls = (m.tool_calls as { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[]).map((c) => ({
      id: c.id,
      name: c.function?.name,
      arguments: typeof c.function?.arguments === 'string' ? c.function.arguments : JSON.stringify(c.function?.arguments ?? ''),
    }));
  }
  if (typeof m.tool_call_id === 'string') out.tool_call_id = m.tool_call_id;
  if (typeof m.name === 'string' && m.name) out.name = m.name;
  return out;
}

/** The text of a message's content (strings, and the text parts of a list). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

export class RowReplayUpstream implements ChatUpstream, ReplayVerifier {
  readonly label: string;
  readonly log: RowReplayLog = { calls: 0, divergedAt: null, liveFrom: null, slot: null, unchecked: [] };
  /** Indexes of the assistant turns in the recorded messages. */
  private readonly turns: number[];

  constructor(
    private readonly x: RecordedExperience,
    private readonly tokenTurns?: TokenTurns,
  ) {
    this.label = `replay of experience ${x.id}`;
    this.turns = (x.messages ?? []).flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
    this.note('sampling parameters (temperature, max_tokens…) and the model name: an experience does not keep them');
    if (x.messages && !x.tools) this.note('tools offered to the model: the experience keeps none');
  }

  /** How many LLM calls the recording answers. */
  get recordedCalls(): number {
    return this.x.messages ? this.turns.length : this.tokenTurns && !this.x.responseText ? this.tokenTurns.texts.length : 1;
  }

  private note(s: string): void {
    if (!this.log.unchecked.includes(s)) this.log.unchecked.push(s);
  }

  verify(_episode: string, index: number, request: ChatCompletionRequest, role?: string): ReplayCheck {
    if (this.log.liveFrom !== null) {
      // A live model answers from the divergence on: nothing recorded to compare with.
      if (!role) this.log.calls = Math.max(this.log.calls, index + 1);
      return { ok: true };
    }
    const check = this.check(index, request, role);
    if (!role) this.log.calls = Math.max(this.log.calls, index + 1);
    if (!check.ok && !this.log.divergedAt) this.log.divergedAt = { call: index + 1, message: check.message, diff: check.diff };
    return check;
  }

  private check(index: number, request: ChatCompletionRequest, role?: string): ReplayCheck {
    const got = (request.messages ?? []).map(comparable);
    if (role) {
      return {
        ok: false,
        message: `Replay diverged: ${role} call #${index + 1}: an experience records only the rollout model's turns, not an auxiliary model's`,
        diff: requestDiff({ messages: [] }, { messages: got as unknown as ChatMessage[] }),
      };
    }
    if (index >= this.recordedCalls) {
      return {
        ok: false,
        message: `Replay diverged: the workflow makes LLM call #${index + 1}, but the experience records ${this.recordedCalls} model turn(s)`,
        diff: requestDiff({ messages: [] }, { messages: got as unknown as ChatMessage[] }),
      };
    }
    if (this.x.messages) {
      const want = this.x.messages.slice(0, this.turns[index]).map(comparable);
      if (canonicalJson(want) === canonicalJson(got)) return { ok: true };
      return {
        ok: false,
        message: `Replay diverged: LLM call #${index + 1} differs from what the model saw before its recorded turn ${index + 1}`,
        diff: requestDiff({ messages: want as unknown as ChatMessage[] }, { messages: got as unknown as ChatMessage[] }),
      };
    }
    if (this.tokenTurns && this.x.responseText === undefined) {
      const want = this.tokenTurns.prompts[index];
      let rendered: string;
      try {
        rendered = this.tokenTurns.render(request.messages ?? []);
      } catch (e) {
        return { ok: false, message: `Replay diverged: LLM call #${index + 1}: ${(e as Error).message}`, diff: '' };
      }
      if (rendered === want) return { ok: true };
      return {
        ok: false,
        message: `Replay diverged: LLM call #${index + 1}, rendered by the chat template, differs from the tokens the model was prompted with before its recorded turn ${index + 1}`,
        diff: requestDiff(
          { prompt: want.split('\n') } as unknown as ChatCompletionRequest,
          { prompt: rendered.split('\n') } as unknown as ChatCompletionRequest,
        ),
      };
    }
    // prompt_text: the chat template's rendering, which this side cannot reproduce without the
    // run's tokenizer. Compared: each message's text appears in it, in order.
    this.note('the chat template and the roles (a prompt_text row keeps the rendered prompt): checked only that each message text appears in it, in order');
    const prompt = this.x.promptText ?? '';
    let at = 0;
    for (const m of request.messages ?? []) {
      const t = textOf(m.content);
      const found = prompt.indexOf(t, at);
      if (found < 0) {
        return {
          ok: false,
          message: `Replay diverged: LLM call #${index + 1}: a ${m.role} message's text is not in the recorded prompt_text (after what matched before it)`,
          diff: requestDiff({ prompt_text: prompt, messages: [] }, { messages: got as unknown as ChatMessage[] }),
        };
      }
      at = found + t.length;
    }
    return { ok: true };
  }

  /** From the call that diverged on, `live` answers. */
  goLive(live: ChatUpstream, fromCall: number): void {
    this.live = live;
    this.log.liveFrom ??= fromCall;
  }

  private live: ChatUpstream | undefined;

  complete(body: ChatCompletionRequest, ctx: CallContext): Promise<UpstreamResult> {
    if (this.live) return this.live.complete(body, ctx);
    return asPromise(() => this.answer(body, ctx));
  }

  private answer(body: ChatCompletionRequest, ctx: CallContext): UpstreamResult {
    if (ctx.role || ctx.index >= this.recordedCalls)
      return { ok: false, error: { kind: 'divergence', status: 409, message: `no recorded model turn for call #${ctx.index + 1}` } };
    const rec = this.x.messages
      ? this.x.messages[this.turns[ctx.index]]
      : { role: 'assistant', content: this.x.responseText ?? this.tokenTurns?.texts[ctx.index] ?? '' };
    const message: ChatMessage = { role: 'assistant', content: rec.content ?? null };
    if (Array.isArray(rec.tool_calls) && rec.tool_calls.length) message.tool_calls = rec.tool_calls as ChatMessage['tool_calls'];
    if (rec.reasoning_content !== undefined && rec.reasoning_content !== null) message.reasoning_content = rec.reasoning_content;
    const n = typeof body.n === 'number' && Number.isInteger(body.n) && body.n > 1 ? body.n : 1;
    if (n > 1) this.log.slot = { index: this.x.run !== null ? this.x.run % n : 0, of: n };
    const response: ChatCompletion = {
      id: `replay-${this.x.id}-${ctx.index + 1}`,
      object: 'chat.completion',
      created: 0,
      model: typeof body.model === 'string' ? body.model : 'replay',
      choices: Array.from({ length: n }, (_, i) => ({
        index: i,
        message: { ...message },
        finish_reason: message.tool_calls ? 'tool_calls' : 'stop',
      })),
    };
    return { ok: true, response };
  }

  models(): Promise<unknown> {
    return Promise.resolve({ object: 'list', data: [{ id: 'replay', object: 'model', owned_by: 'replay' }] });
  }
}
