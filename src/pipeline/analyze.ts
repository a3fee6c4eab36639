// Where a run's time goes: per step, each role's wall time split into its parts (tags.ts says
// which timer wraps what), the shares over a window, and a verdict (the bottleneck) per block
// of steps, merged into segments so a run whose bottleneck moves says since when.
import type { StepTable } from './step-table';
import { type MissingTag, missingTag } from './tags';

export type Bottleneck = 'explorer' | 'trainer' | 'sync' | 'stragglers' | 'checkpoint' | 'eval' | 'balanced' | 'unknown';
export const TRAINER_PARTS = ['wait_experience', 'compute', 'sync_weight', 'checkpoint'] as const;
export const EXPLORER_PARTS = ['generate', 'wait_stragglers', 'wait_sync', 'eval'] as const;
export type TrainerPart = (typeof TRAINER_PARTS)[number];
export type ExplorerPart = (typeof EXPLORER_PARTS)[number];
export type Shares<P extends string> = Record<P, number | null>;

/** One role's seconds at one step; a part is null where its tag says nothing. */
export interface RoleStep<P extends string> {
  wall: number;
  parts: Record<P, number | null>;
}

export interface StepRow {
  step: number;
  trainer?: RoleStep<TrainerPart>;
  explorer?: RoleStep<ExplorerPart>;
  /** The slowest run of the step over its mean run (stragglers), when logged. */
  tailRatio?: number;
}

/** A share a verdict rests on, and the tags whose charts show it. */
export interface Evidence {
  role: 'trainer' | 'explorer';
  part: TrainerPart | ExplorerPart | 'tail_ratio';
  value: number;
  tags: string[];
}

export interface Segment {
  from: number;
  to: number;
  bottleneck: Bottleneck;
  evidence: Evidence[];
}

/**
 * Thresholds of the verdict: a role idle `wait` of its time names the other as the bottleneck
 * (unless the other waits within `tie` as much); sync, checkpoint or eval costing `cost` of a role
 * names itself; the slowest runs holding `straggle` of the explore time make it stragglers.
 */
const LIMITS = { wait: 0.3, cost: 0.2, straggle: 0.4, busy: 0.6, idle: 0.15, tie: 0.1 };

const TAGS: Record<string, string[]> = {
  wait_experience: ['time/read_experience', 'timing_s/gen'],
  compute: ['time/train_step', 'time/step', 'timing_s/step'],
  sync_weight: ['time/sync_weight', 'timing_s/update_weights'],
  checkpoint: ['time/save_checkpoint', 'timing_s/save_checkpoint'],
  generate: ['time/wait_explore_step', 'timing_s/gen'],
  wait_stragglers: ['rollout/time/run_execution/max', 'rollout/time/run_execution/mean', 'timing_s/agent_loop/generate_sequences/max'],
  wait_sync: ['time/wait_explore_step', 'rollout/model_version'],
  eval: ['time/eval', 'timing_s/testing'],
  tail_ratio: ['rollout/time/run_execution/max', 'rollout/time/run_execution/mean'],
};

const tagsOf = (part: string): string[] => TAGS[part] ?? [];

const nz = (v: number | null | undefined): number => v ?? 0;

/** The slowest run's hold on a step: the runners idle for max − mean of its wait. */
function tail(explore: number, mean: number | undefined, max: number | undefined): { straggle: number | null; ratio?: number } {
  if (mean === undefined || max === undefined || max <= 0) return { straggle: null };
  return { straggle: explore * Math.min(1, Math.max(0, (max - mean) / max)), ...(mean > 0 ? { ratio: max / mean } : {}) };
}

interface ExplorerStep {
  role: RoleStep<ExplorerPart>;
  tailRatio?: number;
}

/** Trinity's explorer: the step's wait, eval beyond it, then the gap to the next step's log. */
function trinityExplorer(t: StepTable, s: number): ExplorerStep | undefined {
  const explore = t.field('wait_explore_step', s);
  if (explore === undefined) return undefined;
  const { straggle, ratio } = tail(explore, t.field('run_mean', s), t.field('run_max', s));
  const pipeline = nz(t.field('pipeline_total', s));
  // Eval tasks are scheduled beside the step's own (explorer.py), so only the part of time/eval
  // beyond the step's wait keeps the explorer from its next step.
  const evalT = t.field('eval', s);
  const evalExtra = evalT === undefined ? null : Math.max(0, evalT - explore);
  // After the step's log the explorer finishes its eval, then sync_weight() waits for the
  // trainer's weights; no timer covers that: it is the gap to the next step's log.
  const at = t.explorerWall.get(s);
  const next = t.explorerWall.get(s + 1);
  const nextBusy = t.field('wait_explore_step', s + 1);
  let waitSync: number | null = null;
  if (at !== undefined && next !== undefined && nextBusy !== undefined)
    waitSync = Math.max(0, next - at - nextBusy - nz(t.field('pipeline_total', s + 1)) - nz(evalExtra));
  return {
    role: {
      wall: explore + pipeline + nz(evalExtra) + nz(waitSync),
      parts: { generate: explore - nz(straggle) + pipeline, wait_stragglers: straggle, wait_sync: waitSync, eval: evalExtra },
    },
    ...(ratio !== undefined ? { tailRatio: ratio } : {}),
  };
}

/** verl in one process: generation, then the weights and the tests, within its step. */
function verlExplorer(t: StepTable, s: number): ExplorerStep | undefined {
  const explore = t.field('gen', s);
  if (explore === undefined) return undefined;
  const { straggle, ratio } = tail(explore, t.field('agent_mean', s), t.field('agent_max', s));
  const sync = t.field('sync_weight', s);
  const testing = t.field('testing', s);
  return {
    role: {
      wall: t.field('step', s) ?? explore + nz(sync) + nz(testing),
      parts: { generate: explore - nz(straggle), wait_stragglers: straggle, wait_sync: sync ?? null, eval: testing ?? null },
    },
    ...(ratio !== undefined ? { tailRatio: ratio } : {}),
  };
}

/** Per-step rows of the steps in [from, to] that have a timing. */
export function stepRows(t: StepTable, from = -Infinity, to = Infinity): StepRow[] {
  const verl = t.has('gen');
  const rows: StepRow[] = [];
  for (const s of t.allSteps()) {
    if (s < from || s > to) continue;
    const row: StepRow = { step: s };
    // Trainer: its loop runs these one after another (Trinity's trainer.py).
    const wait = t.field('read_experience', s) ?? t.field('gen', s);
    const sync = t.field('sync_weight', s);
    const ckpt = t.field('save_checkpoint', s);
    let compute = t.field('train_step', s) ?? (verl ? undefined : t.field('step', s)) ?? t.phaseSum(s);
    const step = t.field('step', s);
    if (verl && step !== undefined) compute = Math.max(0, step - nz(wait) - nz(sync) - nz(ckpt) - nz(t.field('testing', s)));
    if (wait !== undefined || compute !== undefined) {
      const parts = { wait_experience: wait ?? null, compute: compute ?? null, sync_weight: sync ?? null, checkpoint: ckpt ?? null };
      row.trainer = { wall: nz(wait) + nz(compute) + nz(sync) + nz(ckpt), parts };
    }
    const explorer = verl ? verlExplorer(t, s) : trinityExplorer(t, s);
    if (explorer) {
      row.explorer = explorer.role;
      if (explorer.tailRatio !== undefined) row.tailRatio = explorer.tailRatio;
    }
    if (row.trainer || row.explorer) rows.push(row);
  }
  return rows;
}

export interface WindowShares {
  trainer: Shares<TrainerPart>;
  explorer: Shares<ExplorerPart>;
  /** Seconds of wall time summed over the window, per role (0: no data). */
  wall: { trainer: number; explorer: number };
  /** Mean over the window's steps of the slowest run / mean run. */
  tailRatio: number | null;
  steps: { trainer: number; explorer: number };
}

function sumShares<P extends string>(rows: (RoleStep<P> | undefined)[], parts: readonly P[]): { shares: Shares<P>; wall: number; n: number } {
  let wall = 0;
  let n = 0;
  const sum = {} as Record<P, number | null>;
  for (const p of parts) sum[p] = null;
  for (const r of rows) {
    if (!r) continue;
    n++;
    wall += r.wall;
    for (const p of parts) {
      const v = r.parts[p];
      if (v !== null) sum[p] = (sum[p] ?? 0) + v;
    }
  }
  const shares = {} as Shares<P>;
  for (const p of parts) {
    const v = sum[p];
    shares[p] = v === null || wall <= 0 ? null : v / wall;
  }
  return { shares, wall, n };
}

export function windowShares(rows: StepRow[]): WindowShares {
  const tr = sumShares(
    rows.map((r) => r.trainer),
    TRAINER_PARTS,
  );
  const ex = sumShares(
    rows.map((r) => r.explorer),
    EXPLORER_PARTS,
  );
  const ratios = rows.map((r) => r.tailRatio).filter((v): v is number => v !== undefined);
  return {
    trainer: tr.shares,
    explorer: ex.shares,
    wall: { trainer: tr.wall, explorer: ex.wall },
    tailRatio: ratios.length ? ratios.reduce((a, b) => a + b, 0) / ratios.length : null,
    steps: { trainer: tr.n, explorer: ex.n },
  };
}

/** The tags a verdict needs that the window lacks (empty: enough data). */
export function missingFor(t: StepTable, w: WindowShares): MissingTag[] {
  const out: MissingTag[] = [];
  if (w.steps.trainer === 0) {
    out.push(missingTag('time/read_experience', 'trainer'), missingTag('time/train_step', 'trainer'));
  } else {
    if (w.trainer.wait_experience === null) out.push(missingTag('time/read_experience', 'trainer'));
    if (w.trainer.compute === null) out.push(missingTag('time/train_step', 'trainer'));
  }
  if (w.steps.explorer === 0) out.push(missingTag('time/wait_explore_step', 'explorer'));
  else if (w.explorer.wait_stragglers === null) {
    for (const tag of ['rollout/time/run_execution/max', 'rollout/time/run_execution/mean'])
      if (!t.seen.has(tag) && !t.has('agent_max')) out.push(missingTag(tag, 'explorer'));
  }
  return out;
}

const ev = (role: 'trainer' | 'explorer', part: Evidence['part'], value: number | null): Evidence[] =>
  value === null ? [] : [{ role, part, value, tags: tagsOf(part) }];

/** The bottleneck of a window of steps and the shares it rests on. */
function verdict(w: WindowShares): { bottleneck: Bottleneck; evidence: Evidence[] } {
  const T = w.trainer;
  const E = w.explorer;
  if (w.steps.trainer === 0 || T.wait_experience === null || T.compute === null) {
    return { bottleneck: 'unknown', evidence: [] };
  }
  const candidates: { kind: Bottleneck; score: number; evidence: Evidence[] }[] = [];
  const waits = T.wait_experience;
  const held = E.wait_sync;
  // In Trinity's default lockstep (sync_interval 1, offset 0) the two roles take turns: each
  // waits for the other, and the one that waits more is the faster one.
  // The explorer's wait covers the trainer's sync and checkpoint too: those name themselves.
  const heldByCompute =
    held === null || w.wall.explorer <= 0 ? null : Math.max(0, held - ((T.sync_weight ?? 0) + (T.checkpoint ?? 0)) * (w.wall.trainer / w.wall.explorer));
  if (waits >= LIMITS.wait && (heldByCompute === null || waits > heldByCompute + LIMITS.tie)) {
    const explore = (E.generate ?? 0) + (E.wait_stragglers ?? 0);
    const tail = E.wait_stragglers !== null && explore > 0 ? E.wait_stragglers / explore : null;
    if (tail !== null && tail >= LIMITS.straggle) {
      candidates.push({
        kind: 'stragglers',
        score: waits,
        evidence: [
          ...ev('trainer', 'wait_experience', waits),
          ...ev('explorer', 'wait_stragglers', E.wait_stragglers),
          ...ev('explorer', 'tail_ratio', w.tailRatio),
        ],
      });
    } else
      candidates.push({ kind: 'explorer', score: waits, evidence: [...ev('trainer', 'wait_experience', waits), ...ev('explorer', 'generate', E.generate)] });
  }
  if (T.sync_weight !== null && T.sync_weight >= LIMITS.cost)
    candidates.push({ kind: 'sync', score: T.sync_weight, evidence: [...ev('trainer', 'sync_weight', T.sync_weight), ...ev('explorer', 'wait_sync', held)] });
  if (T.checkpoint !== null && T.checkpoint >= LIMITS.cost)
    candidates.push({ kind: 'checkpoint', score: T.checkpoint, evidence: ev('trainer', 'checkpoint', T.checkpoint) });
  if (E.eval !== null && E.eval >= LIMITS.cost)
    candidates.push({ kind: 'eval', score: E.eval, evidence: [...ev('explorer', 'eval', E.eval), ...ev('trainer', 'wait_experience', waits)] });
  // The explorer waits for the trainer's weights (or, without explorer data, the trainer never
  // waits for experiences while it computes): the trainer holds the pipeline.
  const trainerHolds =
    heldByCompute !== null ? heldByCompute >= LIMITS.wait && heldByCompute > waits + LIMITS.tie : waits < LIMITS.idle && T.compute >= LIMITS.busy;
  if (trainerHolds) {
    candidates.push({
      kind: 'trainer',
      score: heldByCompute ?? T.compute - 0.5,
      evidence: [...ev('trainer', 'compute', T.compute), ...ev('trainer', 'wait_experience', waits), ...ev('explorer', 'wait_sync', held)],
    });
  }
  if (!candidates.length)
    return { bottleneck: 'balanced', evidence: [...ev('trainer', 'wait_experience', waits), ...ev('explorer', 'wait_sync', E.wait_sync)] };
  candidates.sort((a, b) => b.score - a.score);
  return { bottleneck: candidates[0].kind, evidence: candidates[0].evidence };
}

/** Steps per verdict block: short runs judge every 5 steps, long ones in ~25 blocks. */
const blockSize = (n: number): number => Math.max(5, Math.ceil(n / 25));

/** Verdicts per block, merged where equal; a lone block between two equal ones is noise and joins them. */
export function segments(rows: StepRow[]): Segment[] {
  if (!rows.length) return [];
  const b = blockSize(rows.length);
  const blocks: { from: number; to: number; kind: Bottleneck; start: number; end: number }[] = [];
  for (let i = 0; i < rows.length; i += b) {
    // A tail shorter than half a block joins the block before it.
    const end = rows.length - (i + b) < b / 2 ? rows.length : i + b;
    const slice = rows.slice(i, end);
    blocks.push({ from: slice[0].step, to: slice[slice.length - 1].step, kind: verdict(windowShares(slice)).bottleneck, start: i, end });
    if (end === rows.length) break;
  }
  for (let i = 1; i + 1 < blocks.length; i++) {
    if (blocks[i].kind !== blocks[i - 1].kind && blocks[i - 1].kind === blocks[i + 1].kind) blocks[i].kind = blocks[i - 1].kind;
  }
  const merged: typeof blocks = [];
  for (const bl of blocks) {
    const last = merged[merged.length - 1];
    if (last && last.kind === bl.kind) {
      last.to = bl.to;
      last.end = bl.end;
    } else merged.push({ ...bl });
  }
  return merged.map((m) => {
    const v = verdict(windowShares(rows.slice(m.start, m.end)));
    return { from: m.from, to: m.to, bottleneck: m.kind, evidence: v.evidence };
  });
}
