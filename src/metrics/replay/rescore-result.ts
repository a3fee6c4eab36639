// The re-score's JSON (src/metrics/protocol/rescore.ts) checked as it comes from the CLI: a
// process's output is not trusted blindly. Pure.
import { arrayOf, hasFields, isInt, isNum, isObj, isRange, isStr, nullable } from '../../base/validate';
import type { RescoreResult, RescoreRow } from '../protocol/rescore';

const num = nullable(isNum);
const isRow = (v: unknown): v is RescoreRow =>
  hasFields(v, { id: isInt }) &&
  [v.step, v.task_index].every((x) => x === undefined || x === null || isInt(x)) &&
  [v.recorded, v.now, v.advantage_recorded, v.advantage_now].every((x) => x === undefined || num(x)) &&
  (v.error === undefined || nullable(isStr)(v.error));

/** The result in `stdout` (the last JSON object line when the CLI printed more), or why not. */
export function parseRescore(stdout: string): RescoreResult | { reason: string } {
  const text = stdout.trim();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    const line = text
      .split('\n')
      .reverse()
      .find((l) => l.trim().startsWith('{'));
    try {
      raw = line ? JSON.parse(line) : undefined;
    } catch {
      raw = undefined;
    }
  }
  if (!isObj(raw)) return { reason: 'the re-score printed no JSON result' };
  if (!isRange(raw.steps) || !arrayOf(isObj)(raw.rows)) return { reason: 'the re-score result has no steps or rows' };
  const rows: RescoreRow[] = [];
  for (const r of raw.rows) {
    if (!isRow(r)) return { reason: `a re-scored row is malformed: ${JSON.stringify(r).slice(0, 200)}` };
    rows.push({
      id: r.id,
      step: (r.step as number | null | undefined) ?? null,
      task_index: (r.task_index as number | null | undefined) ?? null,
      recorded: (r.recorded as number | null | undefined) ?? null,
      now: (r.now as number | null | undefined) ?? null,
      advantage_recorded: (r.advantage_recorded as number | null | undefined) ?? null,
      advantage_now: (r.advantage_now as number | null | undefined) ?? null,
      error: (r.error as string | null | undefined) ?? null,
    });
  }
  return {
    steps: [raw.steps[0], raw.steps[1]],
    rows,
    changed: isInt(raw.changed) ? raw.changed : rows.filter(changed).length,
    flips: isInt(raw.flips) ? raw.flips : rows.filter(flipped).length,
  };
}

/** The reward now is not the recorded one. */
export function changed(r: RescoreRow): boolean {
  return r.recorded !== r.now;
}

/** The advantage changed sign (or went to / from zero). */
export function flipped(r: RescoreRow): boolean {
  if (r.advantage_recorded === null || r.advantage_now === null) return false;
  return Math.sign(r.advantage_recorded) !== Math.sign(r.advantage_now);
}

/** `A-B` (or `A`) typed by the user as a step range, or undefined. */
export function parseStepRange(text: string): [number, number] | undefined {
  const m = /^\s*(\d+)\s*(?:[-–]\s*(\d+))?\s*$/.exec(text);
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  return a <= b ? [a, b] : undefined;
}
