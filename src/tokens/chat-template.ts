// A conversation through the model's chat template (@huggingface/jinja, which renders Qwen2.5's
// tool-aware template byte-identical to transformers' apply_chat_template), then through the
// tokenizer: the tokens the trainer rebuilds from the messages, and the action mask Trinity-RFT
// 0.5.2 derives for them. Trinity's rule (trinity/common/models/utils.py,
// tokenize_and_mask_messages_default — used unless the template has a {% generation %} block):
// for each assistant message k, render messages[:k] with the generation prompt and messages[:k+1]
// without; the tokens between the two lengths are trained. So the assistant's content and what
// the template closes its turn with (<|im_end|> and the newline after it) are trained, and
// the system and user turns, tool results and the next turn's header are not. For templates
// that think (a "<think>" in the template) only the turns after the last user message count.
import { Interpreter, Template } from '@huggingface/jinja';
import type { RunTokenizer } from './tokenizer';

export interface ToolCall {
  id?: string;
  type?: string;
  function: { name: string; arguments: unknown };
}

/** An OpenAI-style chat message (extra keys pass through to the template). */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: ToolCall[];
  [key: string]: unknown;
}

export class ChatTemplateError extends Error {}

/**
 * What one render may cost. A template comes from the model folder a job dir names, so it may be
 * hostile: a loop nested in loops renders gigabytes, or runs for good. Counted in interpreter
 * steps and characters produced, not wall time, so the same template fails the same way on a
 * busy machine. Real templates (Qwen, Llama, DeepSeek, with tools) use about 80 steps per
 * message and characters close to the conversation's size.
 */
export interface RenderBudget {
  steps: number;
  chars: number;
  /** List items made, all lists together (range(), list concatenation, lists looked up). */
  items: number;
}
const RENDER_BUDGET: RenderBudget = { steps: 200_000, chars: 16 * 1024 * 1024, items: 2_000_000 };

/** The render under way (renders are synchronous, so one at a time) and what it has spent. */
let spending: { budget: RenderBudget; steps: number; chars: number; items: number; name: string } | undefined;

// @huggingface/jinja has no limits of its own: every node it evaluates goes through evaluate(),
// so that is where the budget is counted (a no-op outside renderChat).
type Evaluate = (this: Interpreter, ...args: Parameters<Interpreter['evaluate']>) => ReturnType<Interpreter['evaluate']>;
const evaluate: Evaluate = Reflect.get(Interpreter.prototype, 'evaluate');
Interpreter.prototype.evaluate = function budgeted(this: Interpreter, ...args: Parameters<Evaluate>): ReturnType<Evaluate> {
  const s = spending;
  if (s && ++s.steps > s.budget.steps) throw overBudget(s, `${s.budget.steps} steps`);
  const value = evaluate.apply(this, args);
  if (s) {
    const v: unknown = value.value;
    if (typeof v === 'string' && (s.chars += v.length) > s.budget.chars) throw overBudget(s, `${s.budget.chars} characters`);
    if (Array.isArray(v) && (s.items += v.length) > s.budget.items) throw overBudget(s, `${s.budget.items} items in a list`);
  }
  return value;
};

function overBudget(s: { name: string }, what: string): ChatTemplateError {
  return new ChatTemplateError(
    `${s.name}'s chat template went over its budget (${what}) rendering one conversation: a template that loops or grows without end is not rendered`,
  );
}

// jinja's range() builds its whole list before evaluate() sees it: bounded at the start of a
// budgeted render, by wrapping the global the library declares (it refuses a redeclaration).
type Run = (this: Interpreter, ...args: Parameters<Interpreter['run']>) => ReturnType<Interpreter['run']>;
const run: Run = Reflect.get(Interpreter.prototype, 'run');
Interpreter.prototype.run = function budgetedRun(this: Interpreter, ...args: Parameters<Run>): ReturnType<Run> {
  const s = spending;
  const range = this.global.variables.get('range') as { value: (a: { value: unknown }[], scope: unknown) => unknown } | undefined;
  if (s && range && typeof range.value === 'function') {
    const Fn = range.constructor as new (f: (a: { value: unknown }[], scope: unknown) => unknown) => typeof range;
    const max = s.budget.items;
    this.global.variables.set(
      'range',
      new Fn((a, scope) => {
        const [x, y, step = 1] = a.map((v) => Number(v.value));
        const [from, to] = a.length < 2 ? [0, x] : [x, y];
        const n = step === 0 ? 0 : Math.ceil((to - from) / step);
        if (!((s.items += Math.max(0, n)) <= max)) throw overBudget(s, `${max} items in a list`);
        return range.value(a, scope);
      }) as never,
    );
  }
  return run.apply(this, args);
};

/** transformers renders with the special tokens of tokenizer_config.json (raise_exception is jinja's own). */
function context(
  tok: RunTokenizer,
  messages: readonly ChatMessage[],
  tools: readonly unknown[] | undefined,
  addGenerationPrompt: boolean,
): Record<string, unknown> {
  return {
    ...tok.specialTokens,
    messages,
    tools: tools && tools.length ? tools : undefined,
    add_generation_prompt: addGenerationPrompt,
  };
}

const compiled = new WeakMap<RunTokenizer, Template>();

function templateOf(tok: RunTokenizer): Template {
  const cached = compiled.get(tok);
  if (cached) return cached;
  if (!tok.chatTemplate) throw new ChatTemplateError(`${tok.name} has no chat template`);
  if (usesGenerationBlocks(tok.chatTemplate)) {
    // Trinity then asks transformers for return_assistant_tokens_mask, which needs the
    // tokenizer's character offsets; not mirrored here, said so rather than guessed.
    throw new ChatTemplateError(`${tok.name}'s chat template marks assistant turns with {% generation %}: its mask is not derived here`);
  }
  let t: Template;
  try {
    t = new Template(tok.chatTemplate);
  } catch (e) {
    throw new ChatTemplateError(`${tok.name}'s chat template does not parse: ${e instanceof Error ? e.message : String(e)}`);
  }
  compiled.set(tok, t);
  return t;
}

function usesGenerationBlocks(template: string): boolean {
  return /\{%-?\s*generation\s*-?%\}/.test(template);
}

/** The template's text for `messages` (the empty conversation renders as ''). */
export function renderChat(
  tok: RunTokenizer,
  messages: readonly ChatMessage[],
  opts: { tools?: readonly unknown[]; addGenerationPrompt?: boolean; budget?: RenderBudget } = {},
): string {
  if (messages.length === 0 && !opts.addGenerationPrompt) return '';
  const t = templateOf(tok);
  const budget = opts.budget ?? RENDER_BUDGET;
  spending = { budget, steps: 0, chars: 0, items: 0, name: tok.name };
  try {
    return t.render(context(tok, messages, opts.tools, opts.addGenerationPrompt ?? false));
  } catch (e) {
    if (e instanceof ChatTemplateError) throw e;
    // A template deep enough to overflow the stack is as hostile as a looping one.
    throw new ChatTemplateError(`${tok.name}'s chat template failed: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    spending = undefined;
  }
}

/** One message's tokens in the rendered conversation: [start, end). The first message starts after
 *  what the template puts before it of its own accord (its default system prompt, a BOS token):
 *  that is [0, spans[0].start), labelled TEMPLATE_ROLE where it is shown. */
export interface MessageSpan {
  index: number;
  role: string;
  start: number;
  end: number;
}

/** The role of the tokens the template adds before the first message of its own accord. */
export const TEMPLATE_ROLE = 'template';

/** The tokens the trainer rebuilds from a conversation, and the mask Trinity would train on. */
export interface TemplateTokens {
  ids: Int32Array;
  /** Per token of `ids`: 1 trained (an assistant turn), 0 not. */
  mask: Uint8Array;
  /** Trinity's prompt_length: the first trained token (0 when none is trained). */
  promptLength: number;
  /** Per assistant turn: the template's prompt for it (its length) and the end of its trained span. */
  turns: { message: number; promptEnd: number; end: number }[];
  /** Every message's tokens, for saying where a difference or a wrongly trained token is. */
  spans: MessageSpan[];
}

/** Trinity-RFT 0.5.2's messages → (tokens, action mask, prompt_length), mirrored (see the module comment). */
export function tokenizeAndMask(tok: RunTokenizer, messages: readonly ChatMessage[], tools?: readonly unknown[]): TemplateTokens {
  if (messages.length === 0) throw new ChatTemplateError('no messages');
  const encode = (msgs: readonly ChatMessage[], gen: boolean): Int32Array => tok.encode(renderChat(tok, msgs, { tools, addGenerationPrompt: gen }));
  let start = 0;
  if (tok.chatTemplate?.includes('<think>')) {
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i].role === 'user') {
        start = i;
        break;
      }
    }
  }
  const generation: number[] = []; // assistant message indices
  for (let i = start; i < messages.length; i++) if (messages[i].role === 'assistant') generation.push(i);
  const ids = encode(messages, false);
  const mask = new Uint8Array(ids.length);
  const turns: TemplateTokens['turns'] = [];
  for (const k of generation) {
    // Trinity renders the first turn's prompt from the conversation itself when it opens with the assistant.
    const promptEnd = k === 0 ? 0 : encode(messages.slice(0, k), true).length;
    const end = encode(messages.slice(0, k + 1), false).length;
    mask.fill(1, Math.min(promptEnd, ids.length), Math.min(end, ids.length));
    turns.push({ message: k, promptEnd, end });
  }
  const first = mask.indexOf(1);
  return { ids, mask, promptLength: first < 0 ? 0 : first, turns, spans: messageSpans(tok, messages, tools) };
}

/** Each message's tokens (spans[i] is message i): the growth of the rendered conversation's tokens
 *  as messages are added; the first starts after what the template adds before it (templatePreamble). */
export function messageSpans(tok: RunTokenizer, messages: readonly ChatMessage[], tools?: readonly unknown[]): MessageSpan[] {
  const spans: MessageSpan[] = [];
  let prev = templatePreamble(tok, messages, tools);
  for (let i = 0; i < messages.length; i++) {
    const end = tok.encode(renderChat(tok, messages.slice(0, i + 1), { tools })).length;
    spans.push({ index: i, role: messages[i].role, start: prev, end });
    prev = end;
  }
  return spans;
}

/** A system prompt no conversation holds: what a template renders around it is its system turn. */
const PROBE_SYSTEM = 'agentrl: the system turn of this template';

/**
 * How many tokens the template puts before the first message when the conversation does not open
 * with a system message: Qwen's default system prompt, Llama 3.1's dated system turn, a BOS token.
 * The first message's own tokens (U) are what follows the template's system turn for a probe
 * prompt (S): render([system, first]) = S + U. Then render([first]) = preamble + U. 0 when the
 * conversation opens with a system message, when the template refuses a system message, or when
 * the tokens do not split that way (a template without turn markers, where tokens merge across).
 */
function templatePreamble(tok: RunTokenizer, messages: readonly ChatMessage[], tools?: readonly unknown[]): number {
  if (!messages.length || messages[0].role === 'system') return 0;
  let alone: Int32Array, system: Int32Array, both: Int32Array;
  try {
    const probe: ChatMessage = { role: 'system', content: PROBE_SYSTEM };
    alone = tok.encode(renderChat(tok, messages.slice(0, 1), { tools }));
    system = tok.encode(renderChat(tok, [probe], { tools }));
    both = tok.encode(renderChat(tok, [probe, messages[0]], { tools }));
  } catch {
    return 0;
  }
  const own = both.length - system.length;
  if (own <= 0 || own > alone.length) return 0;
  for (let i = 0; i < system.length; i++) if (both[i] !== system[i]) return 0;
  for (let i = 1; i <= own; i++) if (alone[alone.length - i] !== both[both.length - i]) return 0;
  return alone.length - own;
}
