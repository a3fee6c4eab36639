// One rollout as the drill-down shows it, from the relay's decoded experience: its messages
// (chat format; content parts joined; tool calls shown as JSON), or the prompt and response
// texts of single-turn experiences, plus the other fields. Pure.
import type { RolloutDetail, RolloutMessage, RolloutRef } from '../protocol/view-protocol';
import type { ExperienceDetail } from '../../relay-protocol/messages';

const SHOWN_ELSEWHERE = new Set(['messages', 'prompt_text', 'response_text']);

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return content
      .map((p) => (typeof p === 'string' ? p : p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : JSON.stringify(p)))
      .join('\n');
  }
  return JSON.stringify(content, null, 1);
}

export function toRolloutDetail(ref: RolloutRef, d: ExperienceDetail): RolloutDetail {
  const messages: RolloutMessage[] = [];
  if (Array.isArray(d.messages)) {
    for (const m of d.messages) {
      if (!m || typeof m !== 'object') continue;
      const { role, content, ...rest } = m as Record<string, unknown>;
      const extra = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null && v !== undefined));
      messages.push({ role: typeof role === 'string' ? role : '?', content: text(content), extra: Object.keys(extra).length ? JSON.stringify(extra, null, 1) : undefined });
    }
  } else {
    if (typeof d.prompt_text === 'string') messages.push({ role: 'user', content: d.prompt_text });
    if (typeof d.response_text === 'string') messages.push({ role: 'assistant', content: d.response_text });
  }
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(d)) {
    if (SHOWN_ELSEWHERE.has(k) || v === null || v === undefined) continue;
    fields[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return { ref, messages, fields };
}
