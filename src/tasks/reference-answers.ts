// Evidence of reward hacking from the taskset's reference answers: answers the reward accepts
// (a reward at or above the run's solved threshold) that do not contain the task's reference
// answer. Evidence, not proof — an answer may be right in another form — so the finding gives its
// numbers and the rows to read. The relay sends no response texts with its table: the caller
// reads a bounded sample of accepted rows (`referenceSample`: each task's best-rewarded member at
// its latest accepted versions) and hands their texts here.
import { type Finding, finding } from './task-findings';
import { type FindingText, l10n } from './finding-text';
import type { TaskTable } from './task-table';

/** The answers by task key (as TaskTable keys them: `index` for taskset 0, `taskset/index` after
 *  it), or why there are none. Here, not beside the reader: the webview's build has no `node:fs`. */
export type References = { answers: Map<string, string>; tasksets: number } | { why: FindingText };

/** A finding needs at least this many accepted answers without the reference… */
const MIN_MISSING = 2;
/** …and this share of the accepted answers read. */
const MIN_SHARE = 0.1;
/** Accepted rows read per run at most, and per task. */
const SAMPLE_ROWS = 200;
const SAMPLE_PER_TASK = 3;
/** A reference longer than this is a worked solution, not an answer to look for. */
const MAX_REFERENCE = 200;

/**
 * The answer to look for in a taskset row's reference (its `response_key` value): the part after
 * the last "####" (GSM8K's reference is a worked solution ending "#### 42"), else a LaTeX
 * \boxed{…}'s content, else the whole value; undefined when it is empty or too long to be one answer.
 */
export function referenceAnswer(value: unknown): string | undefined {
  const raw = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value : undefined;
  if (raw === undefined) return undefined;
  const hashes = raw.lastIndexOf('####');
  const boxed = /\\boxed\{([^{}]*)\}/.exec(raw);
  const answer = (hashes >= 0 ? raw.slice(hashes + 4) : boxed ? boxed[1] : raw).trim();
  return answer && answer.length <= MAX_REFERENCE ? answer : undefined;
}

/** Lower case, runs of whitespace as one space, thousands separators out of numbers ("1,234" is "1234"). */
function normalize(s: string): string {
  return s
    .toLowerCase()
    .replace(/(\d),(?=\d{3}\b)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whether a response contains the reference answer: a number as a whole number ("42" is not in
 * "142" nor "4.2"; "42.0" counts), any other answer as text (case and spacing aside).
 */
export function containsReference(response: string, reference: string): boolean {
  const r = normalize(reference).replace(/\.$/, '');
  const text = normalize(response);
  if (!r) return false;
  const num = /^[-+]?\d+(\.\d+)?$/.test(r) ? Number(r) : NaN;
  if (Number.isFinite(num)) {
    for (const m of text.matchAll(/[-+]?\d+(?:\.\d+)?/g)) {
      const before = m.index > 0 ? text[m.index - 1] : '';
      if (/[\d.]/.test(before)) continue;
      if (Number(m[0]) === num) return true;
    }
    return false;
  }
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escape(r)}($|[^\\p{L}\\p{N}])`, 'u').test(text);
}

/** An accepted row to read: its id, and the task, version and reward the table has for it. */
export interface AcceptedRow {
  id: number;
  task: string;
  version: number;
  reward: number;
}

/**
 * The rows to read: for each task with a reference, its best-rewarded member at its latest
 * versions where that member's reward is accepted (≥ `threshold`), up to SAMPLE_PER_TASK per task
 * and `max` in all, taken a task at a time so every task is read before any is read twice.
 */
export function referenceSample(table: TaskTable, references: ReadonlyMap<string, string>, threshold: number, max = SAMPLE_ROWS): AcceptedRow[] {
  const perTask: AcceptedRow[][] = [];
  for (const [task, byVersion] of table.cells) {
    if (!references.has(task)) continue;
    const rows: AcceptedRow[] = [];
    for (const v of [...byVersion.keys()].sort((a, b) => b - a)) {
      const e = table.examples.get(`${task}@${v}`);
      if (e && e.bestReward >= threshold && !rows.some((r) => r.id === e.best)) rows.push({ id: e.best, task, version: v, reward: e.bestReward });
      if (rows.length >= SAMPLE_PER_TASK) break;
    }
    if (rows.length) perTask.push(rows);
  }
  const out: AcceptedRow[] = [];
  for (let round = 0; round < SAMPLE_PER_TASK && out.length < max; round++)
    for (const rows of perTask) if (round < rows.length && out.length < max) out.push(rows[round]);
  return out;
}

/** An accepted row read, with its response text. */
export interface AcceptedAnswer extends AcceptedRow {
  response: string;
}

/** The finding, when enough accepted answers lack their task's reference; undefined otherwise. */
export function referenceFinding(answers: readonly AcceptedAnswer[], references: ReadonlyMap<string, string>, threshold: number): Finding | undefined {
  const read = answers.filter((a) => a.reward >= threshold && references.has(a.task));
  const missing = read.filter((a) => !containsReference(a.response, references.get(a.task)!));
  if (missing.length < MIN_MISSING || missing.length < MIN_SHARE * read.length) return undefined;
  const tasks = new Set(missing.map((a) => a.task)).size;
  missing.sort((a, b) => b.version - a.version || b.reward - a.reward || a.id - b.id);
  return finding(
    'reference_answer',
    l10n.t(
      "{0} of {1} accepted answers read (reward ≥ {2}) do not contain their task's reference answer, in {3} tasks",
      missing.length,
      read.length,
      threshold.toFixed(2),
      tasks,
    ),
    missing.slice(0, 5).map((a) => a.id),
    { accepted_read: read.length, without_reference: missing.length, tasks },
  );
}
