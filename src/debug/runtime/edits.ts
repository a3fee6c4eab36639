// Edit = fork, the "stays edited" half: a message the user changed in a held request stays
// changed for the rest of that episode. The workflow's own message list still holds the
// original, so every later request of the episode that carries the original message gets
// the edited one instead (rollout and auxiliary calls alike; other episodes never).
import { canonicalJson } from '../gateway/chat';
import type { ChatMessage, ChatCompletionRequest } from '../trajectory/trajectory';

export interface MessageEdit {
  /** canonicalJson(original): what a later request's message is matched against. */
  key: string;
  original: ChatMessage;
  edited: ChatMessage;
}

/** The messages changed in `sent` against `request`, position by position. */
export function messageEdits(request: ChatCompletionRequest, sent: ChatCompletionRequest): MessageEdit[] {
  const out: MessageEdit[] = [];
  const a = request.messages ?? [];
  const b = sent.messages ?? [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const key = canonicalJson(a[i]);
    if (key !== canonicalJson(b[i])) out.push({ key, original: a[i], edited: b[i] });
  }
  return out;
}

/** Adds `fresh` to the episode's edits; a new edit of the same original replaces the old one. */
export function mergeEdits(edits: MessageEdit[], fresh: MessageEdit[]): void {
  for (const e of fresh) {
    const i = edits.findIndex((x) => x.key === e.key);
    if (i >= 0) edits[i] = e;
    else edits.push(e);
  }
}

/** `request` with every message that equals an edited original replaced by its edit, or
 *  undefined when it carries none of them. */
export function applyEdits(request: ChatCompletionRequest, edits: MessageEdit[]): ChatCompletionRequest | undefined {
  if (!edits.length || !Array.isArray(request.messages)) return undefined;
  const byKey = new Map(edits.map((e) => [e.key, e]));
  let changed = false;
  const messages = request.messages.map((m) => {
    const e = byKey.get(canonicalJson(m));
    if (!e) return m;
    changed = true;
    return JSON.parse(JSON.stringify(e.edited)) as ChatMessage;
  });
  return changed ? { ...(JSON.parse(JSON.stringify(request)) as ChatCompletionRequest), messages } : undefined;
}
