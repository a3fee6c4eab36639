// Stall detection for a running job: a run whose metrics, log lines and rollout counts have
// not advanced for N minutes is flagged, with what the cluster tells us about why (an actor not
// ALIVE, a dead node, the explorer waiting on the synchronizer, the last log lines). N is the
// user's setting, or derived from the run's own step cadence. Pure: fed by the host's polling.
import type { RayActor, RayJob, RayNode } from '../api/api-types';

export interface Progress {
  /** Metric points received for the run so far (relay stream). */
  points?: number;
  /** Highest step seen. */
  step?: number;
  /** Bytes of job log seen so far. */
  logBytes?: number;
  /** Rollouts / experiences counted so far. */
  rollouts?: number;
}

export interface StallOptions {
  /** Fixed threshold (ms); when unset it is derived from the cadence. */
  thresholdMs?: number;
  /** Derived threshold = factor × median gap between progress events, clamped to [min, max]. */
  factor?: number;
  minMs?: number;
  maxMs?: number;
  /** Threshold before any cadence is known (ms). */
  initialMs?: number;
}

export interface StallContext {
  job?: RayJob;
  actors?: RayActor[];
  nodes?: RayNode[];
  logTail?: string;
}

export interface StallReport {
  stalledForMs: number;
  thresholdMs: number;
  /** Trinity actors (explorer, trainer, synchronizer, rollout models) that are not ALIVE. */
  actorsNotAlive: Array<{ name: string; state: string }>;
  /** Nodes that are DEAD (the job's driver node first when known). */
  deadNodes: Array<{ id: string; ip: string; message?: string }>;
  explorerWaitsOnSynchronizer: boolean;
  lastLogLines: string[];
}

const KEYS: Array<keyof Progress> = ['points', 'step', 'logBytes', 'rollouts'];

export class StallDetector {
  private last: Progress = {};
  private lastProgressAt: number;
  private readonly gaps: number[] = [];

  constructor(
    private readonly opts: StallOptions = {},
    start = Date.now(),
  ) {
    this.lastProgressAt = start;
  }

  /** Records the counters at time `t`; any counter going up counts as progress. */
  observe(p: Progress, t = Date.now()): boolean {
    const advanced = KEYS.some((k) => p[k] !== undefined && (this.last[k] === undefined ? p[k] > 0 : p[k] > this.last[k]));
    for (const k of KEYS) if (p[k] !== undefined) this.last[k] = Math.max(p[k], this.last[k] ?? -Infinity);
    if (advanced) {
      const gap = t - this.lastProgressAt;
      if (gap > 0) {
        this.gaps.push(gap);
        if (this.gaps.length > 50) this.gaps.shift();
      }
      this.lastProgressAt = t;
    }
    return advanced;
  }

  thresholdMs(): number {
    if (this.opts.thresholdMs !== undefined) return this.opts.thresholdMs;
    const min = this.opts.minMs ?? 5 * 60_000;
    const max = this.opts.maxMs ?? 60 * 60_000;
    if (this.gaps.length < 3) return Math.max(min, this.opts.initialMs ?? 15 * 60_000);
    const sorted = [...this.gaps].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    return Math.min(max, Math.max(min, (this.opts.factor ?? 10) * median));
  }

  /** A report when the run has not advanced for longer than the threshold, else undefined. */
  check(t = Date.now(), ctx: StallContext = {}): StallReport | undefined {
    if (ctx.job && ctx.job.status !== 'RUNNING') return undefined;
    const stalledForMs = t - this.lastProgressAt;
    const thresholdMs = this.thresholdMs();
    if (stalledForMs < thresholdMs) return undefined;
    return { stalledForMs, thresholdMs, ...explain(ctx) };
  }
}

const TRINITY_ACTOR = /^(explorer|trainer|synchronizer|.*_rollout_model_\d+|.*explorer.*|.*trainer.*)$/;
const WAIT_SYNC = /wait(?:ing)?\b.*\bsynchroni[sz]er|synchroni[sz]er.*\bwait/i;

function explain(ctx: StallContext): Omit<StallReport, 'stalledForMs' | 'thresholdMs'> {
  const actorsNotAlive = (ctx.actors ?? [])
    .filter((a) => a.state !== 'ALIVE' && (!a.name || TRINITY_ACTOR.test(a.name)))
    .map((a) => ({ name: a.name || a.class_name || a.actor_id, state: a.state }));
  const dead = (ctx.nodes ?? []).filter((n) => n.state === 'DEAD');
  const driver = ctx.job?.driver_node_id;
  dead.sort((a, b) => Number(b.node_id === driver) - Number(a.node_id === driver));
  const deadNodes = dead.map((n) => ({ id: n.node_id, ip: n.node_ip, message: n.state_message ?? undefined }));
  const lines = (ctx.logTail ?? '').split(/\r?\n/).filter((l) => l.trim());
  const lastLogLines = lines.slice(-20);
  const explorerWaitsOnSynchronizer = lines.slice(-50).some((l) => WAIT_SYNC.test(l));
  return { actorsNotAlive, deadNodes, explorerWaitsOnSynchronizer, lastLogLines };
}

export interface FailureReport {
  message: string;
  errorType?: string;
  deadNodes: Array<{ id: string; ip: string; message?: string }>;
  lastLogLines: string[];
}

/** What we show for a job that ended FAILED. */
export function describeFailure(job: RayJob, ctx: StallContext = {}): FailureReport | undefined {
  if (job.status !== 'FAILED') return undefined;
  const e = explain({ ...ctx, job });
  return { message: job.message ?? '', errorType: job.error_type ?? undefined, deadNodes: e.deadNodes, lastLogLines: e.lastLogLines };
}
