// A readable transcript of one episode (messages, tool calls and results, reward) for
// comparing the two branches of a fork side by side in a diff editor. Pure: no vscode.
import type { ChatMessage, EpisodeTrajectory } from '../model/trajectory';

const text = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v, null, 2));

function message(m: ChatMessage): string[] {
  const lines = [`### ${m.role}${m.tool_call_id ? ` (${m.tool_call_id})` : ''}`];
  const body = text(m.content);
  if (body) lines.push(body);
  for (const c of m.tool_calls ?? []) lines.push(`→ tool call ${c.function.name}(${c.function.arguments})`);
  return lines;
}

/** Each LLM call's request messages that are new since the previous call of the same role,
 *  then the reply; tool calls with their results; the reward at the end. */
export function episodeTranscript(e: EpisodeTrajectory, title: string): string {
  const out = [`# ${title}`, '', `episode ${e.episode} · task ${e.taskId}`, ''];
  const seen = new Map<string, number>();
  for (const t of e.turns) {
    if (t.type === 'tool') {
      out.push(`## tool ${t.name}(${t.arguments})`, `result${t.error ? ' (error)' : ''}: ${text(t.result)}`, '');
      continue;
    }
    const role = t.role ?? 'model';
    const msgs = (t.sent ?? t.request).messages ?? [];
    const from = seen.get(role) ?? 0;
    out.push(`## ${t.role ? `${t.role} ` : ''}LLM call #${t.index + 1}${t.edited ? ' (edited)' : ''}`, '');
    for (const m of msgs.slice(from)) out.push(...message(m), '');
    seen.set(role, msgs.length + 1);
    const reply = t.response?.choices?.[0]?.message;
    if (t.error) out.push(`✗ ${t.error.kind}: ${t.error.message}`, '');
    else if (reply) out.push(...message({ ...reply, role: `${reply.role} (reply)` }), '');
  }
  out.push(`## reward: ${e.reward ?? 'none'}${e.error ? ` · ${e.error.phase} error ${e.error.type}: ${e.error.message}` : ''}`, '');
  return out.join('\n');
}
