// One experience of a training run's buffer (Trinity's Experience: its SQL row's decoded
// detail, or a JSON line of the file buffer / queue backup) as what a replay needs: the
// conversation (messages, else prompt_text / response_text), the reward and its parts, the
// model version, the task's row in the taskset (info["task_index"]) and the group slot. A row
// that keeps neither (Trinity 0.5.2's multi-turn workflows store tokens and the action mask
// only) keeps its turns as token spans: the runs of the action mask, decoded later with the
// run's tokenizer (token-turns.ts). Pure; why a row cannot be replayed is said through the
// injected l10n (vscode.l10n in the debug adapter, English in the CLI).
import type { ReadExperience } from '../../feature-api/experience-reader';
import { english, type L10n } from '../../base/l10n';

export interface RecordedMessage {
  role: string;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: string;
  name?: string;
  reasoning_content?: unknown;
}

export interface RecordedExperience {
  id: string;
  /** The whole conversation, when the row keeps it. */
  messages?: RecordedMessage[];
  /** A single-turn row of Trinity's vLLM model: the rendered prompt and the response. */
  promptText?: string;
  responseText?: string;
  /** A row of tokens alone: its ids and each assistant turn's span [start, end) (the action mask's runs). */
  tokens?: { ids: number[]; spans: [number, number][] };
  tools?: unknown[];
  reward: number | null;
  /** The numeric metrics of the experience: the parts of its reward. */
  parts: Record<string, number>;
  modelVersion: number | null;
  taskIndex: number | null;
  tasksetId: number | null;
  /** eid.run: the experience's place among the repeats of its task (group slot). */
  run: number | null;
  /** eid.batch when a number: the explorer step the experience was made at. */
  step: number | null;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
/** A finite number, also from a relay WireNumber string ("NaN" stays unknown). */
function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}
const int = (v: unknown): number | null => {
  const n = num(v);
  return n !== null && Number.isSafeInteger(n) && n >= 0 ? n : null;
};

/** Trinity stores `info["task_index"]` as {index, taskset_id} (its task scheduler); a bare integer is the index. */
function taskIndexIn(info: unknown): { index: number; tasksetId: number | null } | null {
  const ti = obj(info).task_index;
  const direct = int(ti);
  if (direct !== null) return { index: direct, tasksetId: null };
  const index = int(obj(ti).index);
  return index === null ? null : { index, tasksetId: int(obj(ti).taskset_id) };
}

function messagesOf(v: unknown): RecordedMessage[] | undefined {
  let m = v;
  if (typeof m === 'string') {
    try {
      m = JSON.parse(m);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(m)) return undefined;
  const out: RecordedMessage[] = [];
  for (const x of m) {
    const o = obj(x);
    if (typeof o.role !== 'string') return undefined;
    out.push(o as unknown as RecordedMessage);
  }
  return out.length ? out : undefined;
}

/** The runs of 1 in the action mask (it covers the tokens after `promptLength`), as spans of `ids`. */
function maskSpans(ids: ArrayLike<number>, promptLength: number, mask: ArrayLike<number>): [number, number][] {
  const spans: [number, number][] = [];
  const n = Math.min(mask.length, Math.max(0, ids.length - promptLength));
  for (let i = 0; i < n; i++) {
    if (!mask[i]) continue;
    const start = i;
    while (i < n && mask[i]) i++;
    spans.push([promptLength + start, promptLength + i]);
  }
  return spans;
}

/** Timings Trinity's WorkflowRunner adds to an experience's metrics (`time/run_execution`): not parts of its reward. */
export const isTiming = (name: string): boolean => name.startsWith('time/') || name.startsWith('timing/');

/** The experience a buffer row holds, or why it cannot be replayed. */
export function recordedExperience(e: ReadExperience, l10n: L10n = english): RecordedExperience | { error: string } {
  const d = e.detail;
  const info = obj(d.info);
  const messages = messagesOf(d.messages);
  const promptText = typeof d.prompt_text === 'string' ? d.prompt_text : undefined;
  const responseText = typeof d.response_text === 'string' ? d.response_text : undefined;
  const conversation = messages?.some((m) => m.role === 'assistant') || responseText !== undefined;
  const spans = !conversation && e.tokens ? maskSpans(e.tokens.ids, e.tokens.promptLength, e.tokens.actionMask) : [];
  if (!conversation && !spans.length) {
    return {
      error: l10n.t(
        'experience {0} keeps no conversation to replay: no messages with an assistant turn, no response_text and no assistant tokens marked by an action mask (a workflow that builds its experiences from tokens alone)',
        e.id,
      ),
    };
  }
  const parts: Record<string, number> = {};
  for (const [k, v] of Object.entries(obj(d.metrics))) {
    if (isTiming(k)) continue;
    const n = typeof v === 'boolean' ? Number(v) : num(v);
    if (n !== null) parts[k] = n;
  }
  const ti = (e.row?.task_index !== undefined ? { index: e.row.task_index, tasksetId: e.row.taskset_id ?? null } : null) ?? taskIndexIn(info);
  const eid = obj(d.eid);
  return {
    id: e.id,
    ...(messages?.some((m) => m.role === 'assistant') ? { messages } : {}),
    ...(promptText !== undefined ? { promptText } : {}),
    ...(responseText !== undefined ? { responseText } : {}),
    ...(spans.length && e.tokens ? { tokens: { ids: Array.from(e.tokens.ids), spans } } : {}),
    ...(Array.isArray(d.tools) ? { tools: d.tools } : {}),
    reward: num(e.row?.reward) ?? num(d.reward),
    parts,
    modelVersion: int(e.row?.model_version) ?? int(info.model_version),
    taskIndex: ti?.index ?? null,
    tasksetId: ti?.tasksetId ?? null,
    run: int(e.row?.run_id) ?? int(eid.run),
    step: int(eid.batch),
  };
}

/** The first user message's text (the task when the taskset row cannot be found). */
export function firstUserText(x: RecordedExperience): string | undefined {
  const m = x.messages?.find((m) => m.role === 'user');
  if (m) return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
  return x.promptText;
}
