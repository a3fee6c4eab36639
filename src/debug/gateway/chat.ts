// Pure helpers over OpenAI chat-completion shapes: stream chunks <-> completions, SSE
// framing, request comparison for replay, and a readable diff when a replay diverges.
import type { ChatCompletion, ChatCompletionRequest, ToolCall } from '../trajectory/trajectory';

interface Delta {
  role?: string;
  content?: string | null;
  tool_calls?: { index?: number; id?: string; type?: string; function?: { name?: string; arguments?: string } }[];
}
interface Chunk {
  id?: string;
  created?: number;
  model?: string;
  choices?: { index?: number; delta?: Delta; finish_reason?: string | null; logprobs?: { content?: unknown[] | null } | null; [k: string]: unknown }[];
  usage?: ChatCompletion['usage'];
  [k: string]: unknown;
}

/** The chat.completion a stream of chunks adds up to. */
export function assembleChunks(chunks: unknown[]): ChatCompletion {
  const choices = new Map<
    number,
    {
      content: string;
      hasContent: boolean;
      role: string;
      calls: Map<number, ToolCall>;
      finish: string | null;
      logprobs: unknown[];
      extra: Record<string, unknown>;
    }
  >();
  const out: ChatCompletion = { choices: [] };
  for (const raw of chunks as Chunk[]) {
    if (raw.id !== undefined) out.id = raw.id;
    if (raw.created !== undefined) out.created = raw.created;
    if (raw.model !== undefined) out.model = raw.model;
    if (raw.usage) out.usage = raw.usage;
    out.object = 'chat.completion';
    for (const c of raw.choices ?? []) {
      const i = c.index ?? 0;
      let slot = choices.get(i);
      if (!slot) {
        slot = { content: '', hasContent: false, role: 'assistant', calls: new Map(), finish: null, logprobs: [], extra: {} };
        choices.set(i, slot);
      }
      const d = c.delta ?? {};
      if (d.role) slot.role = d.role;
      if (typeof d.content === 'string') {
        slot.content += d.content;
        if (d.content) slot.hasContent = true;
      }
      for (const tc of d.tool_calls ?? []) {
        const k = tc.index ?? 0;
        const call = slot.calls.get(k) ?? { id: '', type: 'function', function: { name: '', arguments: '' } };
        if (tc.id) call.id = tc.id;
        if (tc.type) call.type = tc.type;
        call.function.name += tc.function?.name ?? '';
        call.function.arguments += tc.function?.arguments ?? '';
        slot.calls.set(k, call);
      }
      if (c.finish_reason) slot.finish = c.finish_reason;
      if (c.logprobs?.content) slot.logprobs.push(...c.logprobs.content);
      for (const [key, value] of Object.entries(c)) {
        if (!['index', 'delta', 'finish_reason', 'logprobs'].includes(key) && value !== undefined && value !== null) slot.extra[key] = value;
      }
    }
  }
  for (const [index, s] of [...choices.entries()].sort((a, b) => a[0] - b[0])) {
    const message: ChatCompletion['choices'][number]['message'] = { role: s.role, content: s.hasContent || !s.calls.size ? s.content : null };
    if (s.calls.size) message.tool_calls = [...s.calls.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    out.choices.push({
      index,
      message,
      finish_reason: s.finish,
      logprobs: s.logprobs.length ? { content: s.logprobs as { token: string; logprob: number }[] } : null,
      ...s.extra,
    });
  }
  return out;
}

/** Stream chunks that deliver `c` (used when the user edited a streamed reply). */
export function completionToChunks(c: ChatCompletion): unknown[] {
  const base = { id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model };
  const chunks: unknown[] = [];
  for (const ch of c.choices) {
    const delta: Record<string, unknown> = { role: ch.message.role, content: ch.message.content ?? null };
    if (ch.message.tool_calls?.length) delta.tool_calls = ch.message.tool_calls.map((t, index) => ({ index, ...t }));
    chunks.push({ ...base, choices: [{ index: ch.index ?? 0, delta, finish_reason: null }] });
    chunks.push({ ...base, choices: [{ index: ch.index ?? 0, delta: {}, finish_reason: ch.finish_reason ?? 'stop' }] });
  }
  if (c.usage) chunks.push({ ...base, choices: [], usage: c.usage });
  return chunks;
}

export function sseFrame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}
export const SSE_DONE = 'data: [DONE]\n\n';

/** JSON with object keys sorted, so key order never counts as a difference. */
export function canonicalJson(value: unknown, indent?: number): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(sort(value), null, indent);
}

export function sameRequest(a: ChatCompletionRequest, b: ChatCompletionRequest): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** A line diff (recorded vs received) of two requests, with a little context. */
export function requestDiff(recorded: ChatCompletionRequest, received: ChatCompletionRequest, context = 2): string {
  const a = canonicalJson(recorded, 2).split('\n');
  const b = canonicalJson(received, 2).split('\n');
  // LCS table: requests are small (tens to a few thousand lines), so O(n*m) is fine here.
  const n = a.length;
  const m = b.length;
  if (n * m > 4_000_000) return `--- recorded\n+++ received\n(requests too large to diff line by line: ${n} vs ${m} lines)`;
  const dp: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const ops: { t: ' ' | '-' | '+'; s: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ t: ' ', s: a[i++] });
      j++;
    } else if (i < n && (j >= m || dp[i + 1][j] >= dp[i][j + 1])) ops.push({ t: '-', s: a[i++] });
    else ops.push({ t: '+', s: b[j++] });
  }
  const keep = ops.map((o, k) => o.t !== ' ' || ops.slice(Math.max(0, k - context), k + context + 1).some((x) => x.t !== ' '));
  const lines = ['--- recorded', '+++ received'];
  let skipped = false;
  ops.forEach((o, k) => {
    if (keep[k]) {
      lines.push(`${o.t} ${o.s}`);
      skipped = false;
    } else if (!skipped) {
      lines.push('  …');
      skipped = true;
    }
  });
  return lines.join('\n');
}
