// A saved episode as a chat transcript in Markdown: the messages the workflow sent, each
// model reply (text and tool calls), each tool's result, the reward and metrics — readable in
// VS Code's Markdown preview (issue 18: clicking a turn did nothing and "Open Trajectories"
// showed one-line JSONL). Pure; user text is escaped so a message cannot inject markup.
import * as path from 'path';
import type { SourceFrame } from '../model/rollout-protocol';
import type { ChatMessage, EpisodeTrajectory, TrajectoryTurn } from '../model/trajectory';

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

function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p === 'object' && p && 'text' in p ? String((p as { text: unknown }).text) : JSON.stringify(p))).join('\n');
  return c === undefined || c === null ? '' : JSON.stringify(c);
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

const ICON: Record<string, string> = { system: '⚙️', user: '🧑', assistant: '🤖', tool: '🔧' };

function message(m: ChatMessage): string {
  const head = `**${ICON[m.role] ?? '•'} ${mdText(m.role)}**`;
  const parts = [head];
  const text = contentText(m.content);
  if (text.trim()) parts.push(`> ${mdText(text).replace(/ {2}\n/g, '  \n> ')}`);
  for (const c of m.tool_calls ?? []) parts.push(`→ calls \`${c.function.name.replace(/`/g, '')}\`\n\n${fence(pretty(c.function.arguments), 'json')}`);
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
export const turnAnchor = (episode: string, i: number) => `${episode}-turn-${i + 1}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');

function turnSection(ep: EpisodeTrajectory, t: TrajectoryTurn, i: number, shown: number, linkBase?: string): { text: string; shown: number } {
  const out: string[] = [];
  if (t.type === 'llm') {
    out.push(`### <a id="${turnAnchor(ep.episode, i)}"></a>LLM call #${t.index + 1}${t.edited ? ' (edited)' : ''}${sourceLink(t.source, linkBase)}`);
    // The request repeats the conversation so far: show only what is new since the last call.
    const msgs = t.request?.messages ?? [];
    for (const m of msgs.slice(shown)) out.push(message(m));
    shown = msgs.length;
    const reply = t.response?.choices?.[0];
    if (t.error) out.push(`**✗ ${mdText(t.error.kind)} error** (${t.error.status}): ${mdText(t.error.message)}`);
    else if (reply) {
      out.push(message(reply.message));
      shown++; // the reply comes back as the next request's last assistant message
      const u = t.response?.usage;
      out.push(`<sub>finish: ${mdText(String(reply.finish_reason ?? '–'))}${u ? ` · tokens ${u.prompt_tokens} + ${u.completion_tokens}` : ''}</sub>`);
    }
  } else {
    out.push(`### <a id="${turnAnchor(ep.episode, i)}"></a>🔧 Tool \`${t.name.replace(/`/g, '')}\`${sourceLink(t.source, linkBase)}`);
    out.push(`Arguments:\n\n${fence(pretty(t.arguments), 'json')}`);
    if (t.result !== undefined) {
      out.push(`${t.error ? '**Error**' : 'Result'}:\n\n${fence(typeof t.result === 'string' ? pretty(t.result) : JSON.stringify(t.result, null, 2), 'json')}`);
      shown++; // the result comes back as a "tool" message
    }
  }
  return { text: out.join('\n\n'), shown };
}

/** One episode as Markdown; source links relative to `linkBase` (the transcript's folder). */
export function episodeMarkdown(ep: EpisodeTrajectory, linkBase?: string, title?: string): string {
  const out: string[] = [];
  const reward = ep.reward === null || ep.reward === undefined ? 'no reward' : `reward **${ep.reward}**`;
  out.push(`## ${mdText(ep.episode)} — ${reward}${ep.error ? ` · ✗ ${mdText(ep.error.phase)} error: ${mdText(ep.error.type)}` : ''}`);
  if (title) out.push(`<sub>${mdText(title)}</sub>`);
  out.push(`**Task** \`${ep.taskId.replace(/`/g, "")}\` (repeat ${ep.repeat})\n\n${fence(JSON.stringify(ep.task, null, 2).slice(0, 4000), 'json')}`);
  let shown = 0;
  ep.turns.forEach((t, i) => {
    const s = turnSection(ep, t, i, shown, linkBase);
    shown = s.shown;
    out.push(s.text);
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
