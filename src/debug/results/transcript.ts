// A saved episode as a chat transcript in Markdown, the one rendering of a trajectory: the
// messages each LLM call sent (those new since that model's previous call), each reply, each
// tool call as a call — `get_weather(city="Oslo")` — with its result under it, and the reward
// and metrics. The Rollouts view opens it in VS Code's Markdown preview (turns link to the
// workflow line that made them); a fork's two branches are written with it for a side-by-side
// diff. Pure; user text is escaped so a message cannot inject markup.
import * as path from 'path';
import type { SourceFrame } from '../trajectory/runner-protocol';
import type { ChatMessage, EpisodeTrajectory, TrajectoryTurn } from '../trajectory/trajectory';

/** Escapes Markdown and HTML in user text; keeps line breaks. */
export function mdText(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>&~]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : `\\${c}`)).replace(/\n/g, '  \n');
}

/** A fenced block that the content cannot close. */
function fence(s: string, lang = ''): string {
  const longest = Math.max(2, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${s}\n${f}`;
}

/** Inline code that the content cannot close. */
function code(s: string): string {
  const longest = Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const tick = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${tick}${pad}${s.replace(/\n/g, ' ')}${pad}${tick}`;
}

function parseJson(s: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(s) as unknown };
  } catch {
    return { ok: false };
  }
}

/** A tool call as the call it is: `get_weather(city="Oslo", days=2)`. Arguments that are not a
 *  JSON object (a model's malformed output) are shown as they came. */
export function toolCallText(name: string, args: string): string {
  const parsed = args.trim() ? parseJson(args) : { ok: true as const, value: {} };
  if (!parsed.ok || !parsed.value || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) return `${name}(${args})`;
  return `${name}(${Object.entries(parsed.value)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ')})`;
}

function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === 'object' && p && 'text' in p ? String((p as { text: unknown }).text) : JSON.stringify(p))).join('\n');
  return c === undefined || c === null ? '' : JSON.stringify(c);
}

/** A tool's result: pretty JSON when it is JSON, else its text, in a block either way. */
function resultBlock(result: unknown): string {
  if (typeof result !== 'string') return fence(JSON.stringify(result, null, 2), 'json');
  const parsed = parseJson(result);
  return parsed.ok && parsed.value !== null && typeof parsed.value === 'object' ? fence(JSON.stringify(parsed.value, null, 2), 'json') : fence(result);
}

// Roles and tool calls are named in words, never emoji: the preview's font may lack them (a
// Linux browser without an emoji font draws empty boxes), and VS Code itself labels in words.
function message(m: ChatMessage): string {
  const parts = [`**${mdText(m.role)}**`];
  const text = contentText(m.content);
  if (text.trim()) parts.push(`> ${mdText(text).replace(/ {2}\n/g, '  \n> ')}`);
  for (const c of m.tool_calls ?? []) parts.push(`→ ${code(toolCallText(c.function.name, c.function.arguments))}`);
  return parts.join('\n\n');
}

/**
 * A link to the source line, relative to the transcript's folder (`linkBase`): the Markdown
 * preview opens it at that line (`#L<n>`); file: URLs are not allowed there.
 */
function sourceLink(s: SourceFrame | undefined, linkBase: string | undefined): string {
  if (!s?.path) return '';
  const label = `${mdText(path.basename(s.path))}:${s.line}`;
  if (!linkBase) return ` — ${label}`;
  const rel = path.relative(linkBase, s.path).split(path.sep).map(encodeURIComponent).join('/');
  return ` — [${label}](<${rel}#L${s.line}>)`;
}

/** Anchor id of a turn (headings carry it so a turn can be linked). */
const turnAnchor = (episode: string, i: number) => `${episode}-turn-${i + 1}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');

/** How many messages of each model's conversation are shown so far ('' = the rollout model). */
type Shown = Map<string, number>;

function llmSection(t: Extract<TrajectoryTurn, { type: 'llm' }>, anchor: string, shown: Shown, linkBase?: string): string {
  const role = t.role ?? '';
  const out = [
    `### <a id="${anchor}"></a>${t.role ? `${mdText(t.role)} ` : ''}LLM call #${t.index + 1}${t.edited ? ' (edited)' : ''}${sourceLink(t.source, linkBase)}`,
  ];
  // The request repeats the conversation so far: only what is new since this model's last call,
  // as the model was sent it (an edited request: the edit).
  const msgs = (t.sent ?? t.request)?.messages ?? [];
  for (const m of msgs.slice(shown.get(role) ?? 0)) out.push(message(m));
  let count = msgs.length;
  const reply = t.response?.choices?.[0];
  if (t.error) out.push(`**✗ ${mdText(t.error.kind)} error** (${t.error.status}): ${mdText(t.error.message)}`);
  else if (reply) {
    out.push(message(reply.message));
    count++; // the reply comes back as the next request's last assistant message
    const u = t.response?.usage;
    out.push(`<sub>finish: ${mdText(String(reply.finish_reason ?? '–'))}${u ? ` · tokens ${u.prompt_tokens} + ${u.completion_tokens}` : ''}</sub>`);
  }
  shown.set(role, count);
  return out.join('\n\n');
}

function toolSection(t: Extract<TrajectoryTurn, { type: 'tool' }>, anchor: string, role: string, shown: Shown, linkBase?: string): string {
  const out = [`### <a id="${anchor}"></a>tool ${code(toolCallText(t.name, t.arguments))}${sourceLink(t.source, linkBase)}`];
  if (t.result === undefined) {
    out.push('_No result was sent back._');
  } else {
    out.push(`${t.error ? '**→ error**' : '→ result'}\n\n${resultBlock(t.result)}`);
    shown.set(role, (shown.get(role) ?? 0) + 1); // the result comes back as a "tool" message
  }
  return out.join('\n\n');
}

/** One episode as Markdown; source links relative to `linkBase` (the transcript's folder);
 *  `title`: a line under the heading (which branch of a fork this is). */
export function episodeMarkdown(ep: EpisodeTrajectory, linkBase?: string, title?: string): string {
  const out: string[] = [];
  const reward = ep.reward === null || ep.reward === undefined ? 'no reward' : `reward **${ep.reward}**`;
  out.push(`## ${mdText(ep.episode)} — ${reward}${ep.error ? ` · ✗ ${mdText(ep.error.phase)} error: ${mdText(ep.error.type)}` : ''}`);
  if (title) out.push(`<sub>${mdText(title)}</sub>`);
  out.push(`**Task** ${code(ep.taskId)} (repeat ${ep.repeat})\n\n${fence(JSON.stringify(ep.task, null, 2).slice(0, 4000), 'json')}`);
  const shown: Shown = new Map();
  let callRole = '';
  ep.turns.forEach((t, i) => {
    const anchor = turnAnchor(ep.episode, i);
    if (t.type === 'llm') {
      callRole = t.role ?? '';
      out.push(llmSection(t, anchor, shown, linkBase));
    } else {
      // A tool call follows the LLM call that asked for it: its result joins that model's conversation.
      out.push(toolSection(t, anchor, callRole, shown, linkBase));
    }
  });
  if (!ep.turns.length) out.push('_No LLM calls._');
  out.push(`### Reward: ${ep.reward ?? '–'}`);
  if (Object.keys(ep.metrics ?? {}).length) out.push(fence(JSON.stringify(ep.metrics, null, 2), 'json'));
  if (ep.error) out.push(`**${mdText(ep.error.type)}**: ${mdText(ep.error.message)}`);
  return out.join('\n\n') + '\n';
}

/** A whole run: every episode, in order. */
export function runMarkdown(title: string, episodes: readonly EpisodeTrajectory[], linkBase?: string): string {
  return `# ${mdText(title)}\n\n${episodes.map((e) => episodeMarkdown(e, linkBase)).join('\n---\n\n')}`;
}
