// A run's pipeline report over a window of steps: shares per role, the current bottleneck and
// since when, the evidence, what to change, what is missing (and what turns it on), unknown
// timings under "other", and the problems met in the data. Its JSON is what
// `agentrl pipeline --json` prints.
import { type Advice, type RunConfig, adviceFor } from './advice';
import {
  type Bottleneck,
  type Evidence,
  type ExplorerPart,
  type Segment,
  type Shares,
  type StepRow,
  type TrainerPart,
  missingFor,
  segments,
  stepRows,
  windowShares,
} from './analyze';
import type { StepTable } from './step-table';
import type { MissingTag } from './tags';

export interface DataProblem {
  kind: 'bad-values' | 'out-of-order' | 'role-missing';
  /** The tag (bad values, out of order) or the role (role missing). */
  subject: string;
  count: number;
}

export interface PipelineReport {
  steps: [number, number] | null;
  bottleneck: Bottleneck;
  /** First step of the current bottleneck's segment. */
  since: number | null;
  segments: Segment[];
  shares: { trainer: Shares<TrainerPart>; explorer: Shares<ExplorerPart> };
  evidence: Evidence[];
  tailRatio: number | null;
  advice: Advice[];
  /** Why there is no advice with values: no config copy was found. */
  configProblem?: string;
  missing: MissingTag[];
  other: string[];
  problems: DataProblem[];
  throughput: { stepsPerHour: number | null; tokensPerSecond: number | null };
  /** GPUs per role and the GPU-hours each part cost over the window (when the config says). */
  gpu: {
    explorer: number;
    trainer: number | null;
    hours: { trainer: Partial<Record<TrainerPart, number>>; explorer: Partial<Record<ExplorerPart, number>> };
  } | null;
}

export interface ReportOptions {
  from?: number;
  to?: number;
  config?: RunConfig | { reason: string };
}

export function pipelineReport(t: StepTable, opts: ReportOptions = {}): PipelineReport {
  return reportOfRows(t, stepRows(t, opts.from, opts.to), opts);
}

/** The report of rows already computed (the view keeps them for its bars). */
export function reportOfRows(t: StepTable, rows: StepRow[], opts: ReportOptions = {}): PipelineReport {
  const w = windowShares(rows);
  const segs = segments(rows);
  const missing = missingFor(t, w);
  const last = segs[segs.length - 1];
  const essential = missing.some((m) => m.role === 'trainer');
  const bottleneck: Bottleneck = essential || !last ? 'unknown' : last.bottleneck;
  const problems: DataProblem[] = [];
  for (const [tag, count] of t.problems.badValues) problems.push({ kind: 'bad-values', subject: tag, count });
  for (const [tag, count] of t.problems.outOfOrder) problems.push({ kind: 'out-of-order', subject: tag, count });
  if (rows.length && w.steps.trainer === 0) problems.push({ kind: 'role-missing', subject: 'trainer', count: 0 });
  if (rows.length && w.steps.explorer === 0) problems.push({ kind: 'role-missing', subject: 'explorer', count: 0 });
  const cfg = opts.config && !('reason' in opts.config) ? opts.config : undefined;
  const tput: number[] = [];
  for (const r of rows) {
    const v = t.field('throughput', r.step);
    if (v !== undefined) tput.push(v);
  }
  return {
    steps: rows.length ? [rows[0].step, rows[rows.length - 1].step] : null,
    bottleneck,
    since: bottleneck === 'unknown' || !last ? null : last.from,
    segments: segs,
    shares: { trainer: w.trainer, explorer: w.explorer },
    // Only the tags this run logs: the charts a click opens.
    evidence: bottleneck === 'unknown' || !last ? [] : last.evidence.map((e) => ({ ...e, tags: e.tags.filter((tag) => t.seen.has(tag)) })),
    tailRatio: w.tailRatio,
    advice: cfg ? adviceFor(bottleneck, cfg) : [],
    ...(opts.config && 'reason' in opts.config ? { configProblem: opts.config.reason } : {}),
    missing,
    other: [...t.other].sort(),
    problems,
    throughput: {
      stepsPerHour: w.steps.trainer && w.wall.trainer > 0 ? (3600 * w.steps.trainer) / w.wall.trainer : null,
      tokensPerSecond: tput.length ? tput.reduce((a, b) => a + b, 0) / tput.length : null,
    },
    gpu: cfg ? gpuHours(cfg, rows) : null,
  };
}

function gpuHours(cfg: RunConfig, rows: StepRow[]): PipelineReport['gpu'] {
  const g = cfg.gpus();
  const trainerGpus = g.total === null ? null : Math.max(0, g.total - g.explorer);
  const hours: NonNullable<PipelineReport['gpu']>['hours'] = { trainer: {}, explorer: {} };
  for (const r of rows) {
    if (r.trainer && trainerGpus !== null) {
      for (const [p, v] of Object.entries(r.trainer.parts) as [TrainerPart, number | null][])
        if (v !== null) hours.trainer[p] = (hours.trainer[p] ?? 0) + (v * trainerGpus) / 3600;
    }
    if (r.explorer) {
      for (const [p, v] of Object.entries(r.explorer.parts) as [ExplorerPart, number | null][])
        if (v !== null) hours.explorer[p] = (hours.explorer[p] ?? 0) + (v * g.explorer) / 3600;
    }
  }
  return { explorer: g.explorer, trainer: trainerGpus, hours };
}

const round = (v: number | null, digits = 4): number | null => (v === null ? null : Number(v.toFixed(digits)));

function roundShares<P extends string>(s: Shares<P>): Shares<P> {
  const out = {} as Shares<P>;
  for (const k of Object.keys(s) as P[]) out[k] = round(s[k]);
  return out;
}

/** What `agentrl pipeline --json` prints: the shape first, then the detail. */
export function reportJson(r: PipelineReport): Record<string, unknown> {
  return {
    steps: r.steps,
    bottleneck: r.bottleneck,
    shares: { trainer: roundShares(r.shares.trainer), explorer: roundShares(r.shares.explorer) },
    advice: r.advice.map((a) => ({ key: a.key, now: a.now, suggest: a.suggest })),
    missing: r.missing.map((m) => m.tag),
    since: r.since,
    changes: r.segments.slice(1).map((s, i) => ({ step: s.from, from: r.segments[i].bottleneck, to: s.bottleneck })),
    evidence: r.evidence.map((e) => ({ role: e.role, part: e.part, value: round(e.value), tags: e.tags })),
    enable: r.missing.map((m) => ({ tag: m.tag, role: m.role, enable: m.enable })),
    other: r.other,
    problems: r.problems,
    throughput: { steps_per_hour: round(r.throughput.stepsPerHour, 2), tokens_per_second: round(r.throughput.tokensPerSecond, 2) },
    ...(r.configProblem ? { config_problem: r.configProblem } : {}),
  };
}
