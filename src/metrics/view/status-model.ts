// What the status bar says: the latest reward mean of the active run (the run that received
// a point last) with a trend arrow, and the worst endpoint state. Pure.
import type { EndpointState, EndpointStatus } from '../protocol/view-protocol';
import { rewardTagRank } from './layout';
import { emaSmooth } from '../store/smoothing';
import type { MetricsStore } from '../store/store';

export type Trend = 'up' | 'down' | 'flat';

export interface StatusSummary {
  run?: string;
  tag?: string;
  step?: number;
  value?: number;
  /** The reward smoothed (EMA, STATUS_SMOOTHING over the last points): what the status bar shows. */
  smoothed?: number;
  /** Trend of the smoothed reward. */
  trend?: Trend;
  /** The most urgent state across endpoints (error > stale > connecting > backfilling > live). */
  state?: EndpointState;
  endpoints: EndpointStatus[];
}

const URGENCY: EndpointState[] = ['finished', 'live', 'stopped', 'backfilling', 'connecting', 'stale', 'error'];
/** Points compared on each side for the trend (the last N against the N before). */
const TREND_WINDOW = 20;
/** A trend starts when the two windows' means differ by this many standard errors, and holds
 *  while they still differ the same way by HOLD (hysteresis: noise does not flip the arrow). */
const ENTER = 2;
const HOLD = 0.5;
/** EMA weight of the status-bar reward (TensorBoard's default smoothing) and points it spans. */
export const STATUS_SMOOTHING = 0.6;
const SMOOTH_SPAN = 200;

/** `previous`: the last summary, whose trend holds until the data says otherwise. */
export function summarize(store: MetricsStore, endpoints: EndpointStatus[], previous?: StatusSummary): StatusSummary {
  const out: StatusSummary = { endpoints };
  for (const e of endpoints) if (!out.state || URGENCY.indexOf(e.state) > URGENCY.indexOf(out.state)) out.state = e.state;
  let active: string | undefined;
  let latest = -Infinity;
  for (const s of store.list()) {
    if (s.lastWall > latest) {
      latest = s.lastWall;
      active = s.run;
    }
  }
  if (active === undefined) return out;
  out.run = active;
  const reward = store
    .list()
    .filter((s) => s.run === active && rewardTagRank(s.tag) >= 0 && s.length > 0)
    .sort((a, b) => rewardTagRank(a.tag) - rewardTagRank(b.tag))[0];
  if (!reward) return out;
  const c = store.columns(reward.key);
  if (!c || !c.length) return out;
  out.tag = reward.tag;
  out.step = c.step[c.length - 1];
  out.value = c.value[c.length - 1];
  // The smoothed curve, so the status bar does not jump with every raw point.
  const from = Math.max(0, c.length - SMOOTH_SPAN);
  const sm = emaSmooth(Array.prototype.slice.call(c.value, from, c.length) as number[], STATUS_SMOOTHING);
  out.smoothed = sm[sm.length - 1];
  // the raw points (smoothed ones are correlated, their spread says nothing); the same run and tag keep their trend
  const held = previous && previous.run === out.run && previous.tag === out.tag ? previous.trend : undefined;
  out.trend = trendOf(c.value, c.length, held);
  return out;
}

/** The last TREND_WINDOW finite values against the TREND_WINDOW before them (halves of what
 *  there is when fewer): up or down when the difference of their means stands out of their
 *  noise (ENTER standard errors); a trend `previous` holds while it still points that way (HOLD). */
export function trendOf(values: ArrayLike<number>, length = values.length, previous?: Trend): Trend {
  const finite: number[] = [];
  for (let i = length - 1; i >= 0 && finite.length < 2 * TREND_WINDOW; i--) if (Number.isFinite(values[i])) finite.push(values[i]);
  const half = Math.floor(finite.length / 2);
  if (half < 1) return 'flat';
  const recent = finite.slice(0, half);
  const before = finite.slice(half, 2 * half);
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  const variance = (a: number[], m: number) => (a.length > 1 ? a.reduce((x, y) => x + (y - m) ** 2, 0) / (a.length - 1) : 0);
  const a = mean(recent);
  const b = mean(before);
  const d = a - b;
  const se = Math.sqrt(variance(recent, a) / recent.length + variance(before, b) / before.length);
  const scale = Math.max(Math.abs(a), Math.abs(b), 1e-12);
  if (Math.abs(d) / scale < 0.005) return 'flat';
  const way: Trend = d > 0 ? 'up' : 'down';
  if (previous === way && Math.abs(d) > HOLD * se) return way;
  return Math.abs(d) > ENTER * se ? way : 'flat';
}
