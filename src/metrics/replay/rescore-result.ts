// The re-score's JSON (src/feature-api/buffer-rescore.ts) checked as it comes from the CLI: a
// process's output is not trusted blindly. Pure.
import { arrayOf, hasFields, isInt, isNum, isObj, isRange, isStr, nullable } from '../../base/validate';
import type { RescoreResult, RescoreRow } from '../protocol/rescore';

const num = nullable(isNum);
/** An experience id: a number, or its digits (the CLI writes ids as strings). */
const isId = (v: unknown): v is number | string => isInt(v) || (isStr(v) && /^\d{1,15}$/.test(v));
const isRow = (v: unknown): v is Partial<Omit<RescoreRow, 'id'>> & { id: number | string } =>
  hasFields(v, { id: isId }) &&
  [v.step, v.task_index].every((x) => x === undefined || x === null || isInt(x)) &&
  [v.recorded, v.now, v.advantage_recorded, v.advantage_now].every((x) => x === undefined || num(x)) &&
  (v.error === undefined || nullable(isStr)(v.error));

/** The result in `stdout` (the JSON after any lines the CLI printed before it, one line or pretty-printed), or why not. */
export function parseRescore(stdout: string): RescoreResult | { reason: string } {
  const text = stdout.trim();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // Lines before the result (a log line): the JSON is the rest from a line that opens an object.
    for (let at = text.lastIndexOf('\n{'); at > 0 && raw === undefined; at = text.lastIndexOf('\n{', at - 1)) {
      try {
        raw = JSON.parse(text.slice(at + 1));
      } catch {
        raw = undefined;
      }
    }
  }
  if (!isObj(raw)) return { reason: 'the re-score printed no JSON result' };
  if (!isRange(raw.steps) || !arrayOf(isObj)(raw.rows)) return { reason: 'the re-score result has no steps or rows' };
  const rows: RescoreRow[] = [];
  for (const r of raw.rows) {
    if (!isRow(r)) return { reason: `a re-scored row is malformed: ${JSON.stringify(r).slice(0, 200)}` };
    rows.push({
      id: Number(r.id),
      step: r.step ?? null,
      task_index: r.task_index ?? null,
      recorded: r.recorded ?? null,
      now: r.now ?? null,
      advantage_recorded: r.advantage_recorded ?? null,
      advantage_now: r.advantage_now ?? null,
      error: r.error ?? null,
    });
  }
  return {
    steps: [raw.steps[0], raw.steps[1]],
    rows,
    changed: isInt(raw.changed) ? raw.changed : rows.filter(changed).length,
    flips: isInt(raw.flips) ? raw.flips : rows.filter(flipped).length,
    errors: isInt(raw.errors) ? raw.errors : rows.filter((r) => r.now === null).length,
  };
}

/** The reward now is not the recorded one. */
export function changed(r: RescoreRow): boolean {
  return r.recorded !== r.now;
}

/** Within this of zero an advantage counts as 0 (as the re-score counts flips). */
const ZERO = 1e-6;
const sign = (x: number): number => (x > ZERO ? 1 : x < -ZERO ? -1 : 0);

/** The advantage changed sign (or went to / from zero). */
export function flipped(r: RescoreRow): boolean {
  if (r.advantage_recorded === null || r.advantage_now === null) return false;
  return sign(r.advantage_recorded) !== sign(r.advantage_now);
}

/** `A-B` (or `A`) typed by the user as a step range, or undefined. */
export function parseStepRange(text: string): [number, number] | undefined {
  const m = /^\s*(\d+)\s*(?:[-–]\s*(\d+))?\s*$/.exec(text);
  if (!m) return undefined;
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  return a <= b ? [a, b] : undefined;
}
