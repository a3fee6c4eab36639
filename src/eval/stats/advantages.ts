// Re-scored buffer rows as GRPO sees them: each row's group (the same task at the same step and
// model version), the advantage its recorded reward gave and the one its reward now gives
// (Trinity's GRPO: (r - mean) / (std + 1e-6), std unbiased; a group of one: r / (1 + 1e-6);
// a member that could not be re-scored counts with its recorded reward), and the rows whose
// advantage flips sign. Pure.
import type { BufferRescoreJson } from '../../feature-api/buffer-rescore';
import type { BufferRowOutcome } from '../../feature-api/rollouts';

const EPSILON = 1e-6;

function same(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return a === b || Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** GRPO advantages of `rewards` (nulls stay null and are left out of their group). */
export function groupAdvantages(rewards: (number | null)[]): (number | null)[] {
  const xs = rewards.filter((r): r is number => r !== null);
  if (!xs.length) return rewards.map(() => null);
  let mean = 0;
  let std = 1;
  if (xs.length > 1) {
    mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    std = Math.sqrt(xs.reduce((a, v) => a + (v - mean) ** 2, 0) / (xs.length - 1));
  }
  return rewards.map((r) => (r === null ? null : (r - mean) / (std + EPSILON)));
}

const sign = (x: number) => (x > EPSILON ? 1 : x < -EPSILON ? -1 : 0);

/** `agentrl eval --rescore --from-job … --json`. */
export function bufferRescoreJson(rows: BufferRowOutcome[], steps: [number, number]): Required<BufferRescoreJson> {
  const groups = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const key = `${r.task ?? `row ${r.id}`}|${r.step ?? ''}|${r.modelVersion ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  const before: (number | null)[] = rows.map(() => null);
  const after: (number | null)[] = rows.map(() => null);
  for (const members of groups.values()) {
    const a = groupAdvantages(members.map((i) => rows[i].recorded));
    // A member that could not be re-scored keeps its recorded reward in the group: its
    // siblings' advantages then change only by what was re-scored.
    const b = groupAdvantages(members.map((i) => rows[i].now ?? rows[i].recorded));
    members.forEach((i, k) => {
      before[i] = a[k];
      after[i] = b[k];
    });
  }
  let changed = 0;
  let flips = 0;
  let errors = 0;
  const out = rows.map((r, i) => {
    if (r.now === null) errors++;
    else if (!same(r.recorded, r.now)) changed++;
    const [x, y] = [before[i], r.now === null ? null : after[i]];
    if (x !== null && y !== null && sign(x) !== sign(y)) flips++;
    return { id: r.id, step: r.step, task_index: r.taskIndex, recorded: r.recorded, now: r.now, advantage_recorded: x, advantage_now: y, error: r.error };
  });
  return { steps, rows: out, changed, flips, errors };
}

const fmt = (x: number | null) => (x === null ? '–' : Number.isInteger(x) ? String(x) : x.toFixed(3));

/** What a terminal shows. */
export function bufferRescoreText(j: Required<BufferRescoreJson>): string {
  const lines = [`${j.rows.length} rows of steps ${j.steps[0]}–${j.steps[1]}: ${j.changed} changed, ${j.flips} advantage flips, ${j.errors} not re-scored`, ''];
  lines.push(
    `${'id'.padStart(8)}  ${'step'.padStart(5)}  ${'task'.padStart(5)}  ${'recorded'.padStart(8)}  ${'now'.padStart(8)}  ${'adv then'.padStart(8)}  ${'adv now'.padStart(8)}`,
  );
  for (const r of j.rows) {
    const flip = r.advantage_recorded !== null && r.advantage_now !== null && sign(r.advantage_recorded) !== sign(r.advantage_now);
    lines.push(
      `${r.id.padStart(8)}  ${fmt(r.step).padStart(5)}  ${fmt(r.task_index).padStart(5)}  ${fmt(r.recorded).padStart(8)}  ${fmt(r.now).padStart(8)}  ${fmt(r.advantage_recorded).padStart(8)}  ${fmt(r.advantage_now).padStart(8)}${flip ? '  flip' : ''}${!same(r.recorded, r.now) && r.now !== null ? '  changed' : ''}${r.error ? `  (${r.error})` : ''}`,
    );
  }
  return lines.join('\n') + '\n';
}
