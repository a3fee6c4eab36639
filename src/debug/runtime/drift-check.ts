// Retokenization drift of a debug run's LLM calls, checked as each reply arrives: the engine's
// prompt and completion ids against the ids the run's chat template gives for the same messages
// (what a trainer re-tokenizing the conversation trains on). Each call is checked once, when it
// is the newest of its episode (and role): only its own turn's findings are new.
import type { ChatMessage, TemplateTokens } from '../../tokens/chat-template';
import { findDrift, type DriftFinding, type EngineCall } from '../../tokens/drift';
import type { RunTokenizer } from '../../tokens/tokenizer';
import type { Episode, LlmTurn } from './episode';

/** The engine's ids of a call, when the endpoint returned both parts. */
function engineCall(t: LlmTurn): EngineCall | undefined {
  const promptIds = t.response?.prompt_token_ids;
  const completionIds = t.response?.choices?.[0]?.token_ids;
  return Array.isArray(promptIds) && Array.isArray(completionIds) ? { promptIds, completionIds } : undefined;
}

/**
 * The drift of `turn` (the episode's newest call of its role), undefined when there is no verdict: its messages and reply through the
 * template, every earlier call of the role as the earlier assistant turns. Nothing when the
 * endpoint returned no ids, when the workflow did not keep the whole conversation (the calls do
 * not line up with its assistant messages), or when the template cannot render the messages.
 */
export function driftOfCall(tok: RunTokenizer, ep: Episode, turn: LlmTurn): DriftFinding[] | undefined {
  if (!tok.chatTemplate) return undefined;
  const calls: EngineCall[] = [];
  for (const t of ep.turns) {
    if (t.kind !== 'llm' || t.role !== turn.role || t.error) continue;
    const c = engineCall(t);
    if (!c) return undefined;
    calls.push(c);
    if (t === turn) break;
  }
  const reply = turn.response?.choices?.[0]?.message;
  const request = turn.sent ?? turn.request;
  if (!reply || !calls.length) return undefined;
  const messages = [...(request.messages as ChatMessage[]), reply as ChatMessage];
  if (messages.filter((m) => m.role === 'assistant').length !== calls.length) return undefined;
  try {
    const report = findDrift(tok, messages, calls, request.tools);
    const k = calls.length;
    const prevEnd = k > 1 ? report.template.turns[k - 2].end : 0;
    const out: DriftFinding[] = [];
    for (const f of report.findings) {
      if (f.turn !== k) continue;
      if (f.part === 'completion' || k === 1) {
        out.push(f);
        continue;
      }
      const newPart = newInPrompt(f, prevEnd, tok, (pos) => roleAt(report.template, messages, pos));
      if (newPart) out.push(newPart);
    }
    return out;
  } catch {
    return undefined; // a template that cannot render these messages: no verdict, not a finding
  }
}

/**
 * The part of a prompt finding that lies after the previous turn (tool results, user messages,
 * the generation prompt): a difference inside the conversation so far was found on its own turn
 * already. Both sides share the ids after the differing region, so the new part is aligned from
 * the end.
 */
function newInPrompt(f: DriftFinding, prevEnd: number, tok: RunTokenizer, role: (pos: number) => string | undefined): DriftFinding | undefined {
  const templateEnd = f.at + f.templateIds.length;
  if (templateEnd <= prevEnd) return undefined;
  let from = Math.max(f.at, prevEnd) - f.at;
  let templateIds = f.templateIds.slice(from);
  let engineIds = f.engineIds.slice(Math.max(0, Math.min(from, f.engineIds.length - templateIds.length)));
  // The new part's own common start (a message header both render alike) is no difference.
  let same = 0;
  while (same < engineIds.length && same < templateIds.length && engineIds[same] === templateIds[same]) same++;
  from += same;
  templateIds = templateIds.slice(same);
  engineIds = engineIds.slice(same);
  return {
    ...f,
    at: f.at + from,
    count: Math.max(engineIds.length, templateIds.length),
    engineIds,
    templateIds,
    engineText: tok.decode(engineIds),
    templateText: tok.decode(templateIds),
    afterRole: from > 0 ? role(f.at + from) : f.afterRole,
  };
}

/** The role a difference at `pos` follows, as drift.ts words it: at a message's first tokens (its header), the message before. */
function roleAt(t: TemplateTokens, messages: readonly ChatMessage[], pos: number): string | undefined {
  const span = t.spans.find((s) => pos >= s.start && pos < s.end);
  if (!span) return undefined;
  return span.index > 0 && pos - span.start < 3 ? messages[span.index - 1].role : span.role;
}
