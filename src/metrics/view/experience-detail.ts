// One rollout as the drill-down shows it, from the relay's decoded experience: its messages
// (chat format; content parts joined; a tool call as a call, `get_weather(city="Oslo")`, its
// result the tool message under it), or the prompt and response
// texts of single-turn experiences, plus the other fields. Pure.
import type { ExperienceViewDetail, ExperienceMessage, ExperienceRef, FieldNode } from '../protocol/experience-rows';
import type { ExperienceDetail } from '../../relay-protocol/messages';

const SHOWN_ELSEWHERE = new Set(['messages', 'prompt_text', 'response_text']);

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        typeof p === 'string'
          ? p
          : p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string'
            ? (p as { text: string }).text
            : JSON.stringify(p),
      )
      .join('\n');
  }
  return JSON.stringify(content, null, 1);
}

/** `name(k="v", n=1)` from a call's name and its arguments (a JSON string or an object). */
function toolCallText(name: string, args: unknown): string {
  let v = args;
  if (typeof args === 'string') {
    try {
      v = JSON.parse(args);
    } catch {
      return `${name}(${args})`;
    }
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return `${name}(${typeof args === 'string' ? args : JSON.stringify(args)})`;
  return `${name}(${Object.entries(v)
    .map(([k, x]) => `${k}=${JSON.stringify(x)}`)
    .join(', ')})`;
}

/** The calls of an assistant message as text, one per line; undefined when it has none. */
function callsText(calls: unknown): string | undefined {
  if (!Array.isArray(calls) || !calls.length) return undefined;
  return calls
    .map(
      (c: { function?: { name?: unknown; arguments?: unknown } } | null) =>
        `→ ${toolCallText(typeof c?.function?.name === 'string' ? c.function.name : '?', c?.function?.arguments ?? {})}`,
    )
    .join('\n');
}

export function toExperienceViewDetail(ref: ExperienceRef, d: ExperienceDetail): ExperienceViewDetail {
  const messages: ExperienceMessage[] = [];
  if (Array.isArray(d.messages)) {
    for (const m of d.messages) {
      if (!m || typeof m !== 'object') continue;
      const { role, content, tool_calls: calls, ...rest } = m as Record<string, unknown>;
      const extra = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null && v !== undefined));
      const shownCalls = callsText(calls);
      if (calls !== undefined && calls !== null && shownCalls === undefined) extra.tool_calls = calls;
      const body = [text(content), shownCalls].filter((x) => x).join('\n');
      messages.push({
        role: typeof role === 'string' ? role : '?',
        content: body,
        extra: Object.keys(extra).length ? JSON.stringify(extra, null, 1) : undefined,
      });
    }
  } else {
    if (typeof d.prompt_text === 'string') messages.push({ role: 'user', content: d.prompt_text });
    if (typeof d.response_text === 'string') messages.push({ role: 'assistant', content: d.response_text });
  }
  const fields: FieldNode[] = [];
  for (const [k, v] of Object.entries(d)) {
    if (SHOWN_ELSEWHERE.has(k) || v === null || v === undefined) continue;
    fields.push(fieldNode(k, v));
  }
  return { ref, messages, fields };
}

type Scalar = string | number | boolean | bigint | null | undefined;
const isScalar = (v: unknown): v is Scalar => v === null || (typeof v !== 'object' && typeof v !== 'function' && typeof v !== 'symbol');
const scalarText = (v: Scalar): string => (typeof v === 'string' ? v : String(v));

/** A value as labelled fields, not minified JSON: scalars (and lists of them) as text, objects
 *  and other lists as groups of their entries (a list's entries numbered from 1). */
function fieldNode(key: string, v: unknown): FieldNode {
  if (isScalar(v)) return { key, value: scalarText(v) };
  if (Array.isArray(v)) {
    if (v.every(isScalar)) return { key, value: v.map(scalarText).join(', ') };
    return { key, children: v.map((x, i) => fieldNode(String(i + 1), x)) };
  }
  return { key, children: Object.entries(v as Record<string, unknown>).map(([k, x]) => fieldNode(k, x)) };
}
