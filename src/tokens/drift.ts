// Retokenization drift: the tokens the engine saw and generated for each LLM call of an episode
// against the tokens the trainer rebuilds from the same messages through the chat template. A
// multi-turn trainer that re-tokenizes (Trinity's convert_messages_to_experience does) trains on
// the template's tokens with logprobs the engine computed for other tokens whenever the two
// differ: a tool result JSON re-serialized with other spacing, tool-call arguments rendered as a
// string instead of an object, a sampled non-canonical split of a word. Each difference is
// found on its turn, with the span and both sides' ids, and nowhere else.
import { type ChatMessage, type TemplateTokens, tokenizeAndMask } from './chat-template';
import type { RunTokenizer } from './tokenizer';

/** One LLM call as the engine reported it: the prompt ids it was given, the completion ids it returned. */
export interface EngineCall {
  promptIds: ArrayLike<number>;
  completionIds: ArrayLike<number>;
}

export interface DriftFinding {
  /** 1-based assistant turn (LLM call). */
  turn: number;
  /** The conversation's message this turn produced. */
  message: number;
  part: 'prompt' | 'completion';
  /** Where the two first differ, as a token index into that part. */
  at: number;
  /** Differing tokens: the longer side's count in the differing region. */
  count: number;
  engineIds: number[];
  templateIds: number[];
  engineText: string;
  templateText: string;
  /** The role of the message the difference starts in (or, at a message boundary, the message before it). */
  afterRole: string | undefined;
}

export interface DriftReport {
  turns: number;
  findings: DriftFinding[];
  template: TemplateTokens;
}

/** The differing region of two id lists: common prefix and suffix removed. */
function region(a: ArrayLike<number>, b: ArrayLike<number>): { at: number; aEnd: number; bEnd: number } | undefined {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  if (at === a.length && at === b.length) return undefined;
  let ea = a.length;
  let eb = b.length;
  while (ea > at && eb > at && a[ea - 1] === b[eb - 1]) {
    ea--;
    eb--;
  }
  return { at, aEnd: ea, bEnd: eb };
}

const ids = (a: ArrayLike<number>, from: number, to: number): number[] => Array.prototype.slice.call(a, from, to) as number[];

function roleAt(t: TemplateTokens, pos: number, messages: readonly ChatMessage[]): string | undefined {
  const span = t.spans.find((s) => pos >= s.start && pos < s.end);
  if (!span) return undefined;
  // At a message's first tokens (its header), the difference follows the previous message.
  const prev = span.index > 0 && pos - span.start < 3 ? messages[span.index - 1].role : undefined;
  return prev ?? span.role;
}

/**
 * Drift of each engine call against the template's tokens for `messages` (the whole episode,
 * the calls in order, one per assistant message). The completion is compared with the assistant
 * turn's trained span; the template's end-of-turn tokens the engine does not return (it stops
 * on them) are not a difference.
 */
export function findDrift(tok: RunTokenizer, messages: readonly ChatMessage[], calls: readonly EngineCall[], tools?: readonly unknown[]): DriftReport {
  const t = tokenizeAndMask(tok, messages, tools);
  const findings: DriftFinding[] = [];
  const turns = Math.min(calls.length, t.turns.length);
  const finding = (turn: number, part: DriftFinding['part'], engine: ArrayLike<number>, template: ArrayLike<number>, base: number): void => {
    const r = region(engine, template);
    if (!r) return;
    const e = ids(engine, r.at, r.aEnd);
    const p = ids(template, r.at, r.bEnd);
    findings.push({
      turn: turn + 1,
      message: t.turns[turn].message,
      part,
      at: r.at,
      count: Math.max(e.length, p.length),
      engineIds: e,
      templateIds: p,
      engineText: tok.decode(e),
      templateText: tok.decode(p),
      afterRole: roleAt(t, base + r.at, messages),
    });
  };
  for (let k = 0; k < turns; k++) {
    const { promptEnd, end } = t.turns[k];
    const call = calls[k];
    finding(k, 'prompt', call.promptIds, t.ids.subarray(0, promptEnd), 0);
    const c = call.completionIds;
    finding(k, 'completion', c, generatedPart(tok, t.ids.subarray(promptEnd, end), c), promptEnd);
  }
  return { turns, findings, template: t };
}

/**
 * The part of a trained span the engine generates: the template closes the turn with its
 * end-of-turn token and a newline, the engine stops on that token and may or may not return it
 * — neither is a difference.
 */
function generatedPart(tok: RunTokenizer, span: Int32Array, completion: ArrayLike<number>): Int32Array {
  const returnsStop = completion.length > 0 && tok.isSpecial(completion[completion.length - 1]);
  for (let j = span.length - 1; j >= Math.max(0, span.length - 3); j--) {
    if (tok.isSpecial(span[j])) return span.subarray(0, returnsStop ? j + 1 : j);
  }
  return span;
}
