// How a saved run reads in the Rollouts view: the launch entry's name, its age and its mean
// reward up front (runs labelled by timestamp only, the reward cut off, told users nothing). Pure.
import * as path from 'path';
import type { RunInfo } from '../results/run-store';

/** "Debug toolcall rollouts" (the launch name), else the config file, else the run id. */
function runName(r: RunInfo): string {
  const name = typeof r.launch?.name === 'string' ? r.launch.name.trim() : '';
  if (name) return name;
  const config = typeof r.launch?.config === 'string' ? r.launch.config : r.summary?.config;
  return config ? path.basename(config) : r.id;
}

/** When the run started: its summary, else the id (run-writer's local `YYYYMMDD-HHMMSS-mmm`). */
function runStart(r: RunInfo): Date | undefined {
  const s = r.summary?.startedAt;
  if (s && !Number.isNaN(Date.parse(s))) return new Date(s);
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(r.id);
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1).map(Number);
  return new Date(y, mo - 1, d, h, mi, se);
}

function age(from: Date, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - from.getTime()) / 1000));
  if (s < 60) return 'just now';
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

/** Milliseconds until the age of any of `runs` reads differently ("3 min ago" → "4 min ago"),
 *  so the view is redrawn then and not left frozen; undefined when no run shows an age. */
export function ageRefreshDelay(runs: readonly RunInfo[], now = new Date()): number | undefined {
  let next: number | undefined;
  for (const r of runs) {
    const start = runStart(r);
    if (!start) continue;
    const s = Math.max(0, (now.getTime() - start.getTime()) / 1000);
    // the unit the age is shown in: seconds below 1 min, minutes below 1 h, hours below 48 h, else days
    const unit = s < 3600 ? 60 : s < 48 * 3600 ? 3600 : 86400;
    // age() rounds to whole seconds; the next change is at the next multiple of the unit
    const wait = (Math.floor(Math.round(s) / unit) + 1) * unit - s;
    next = Math.min(next ?? Infinity, Math.max(1, wait) * 1000);
  }
  return next;
}

/** Label and description of a run row: reward first, so a narrow view still shows it. */
export function runRow(r: RunInfo, now = new Date()): { label: string; description: string } {
  const s = r.summary;
  const start = runStart(r);
  const parts: string[] = [];
  if (!s) parts.push('in progress or interrupted');
  else {
    parts.push(s.rewardMean === null ? 'no reward' : `reward ${s.rewardMean.toFixed(2)}`);
    if (start) parts.push(age(start, now));
    parts.push(`${s.episodes} ep`);
    if (s.errors) parts.push(`${s.errors} error(s)`);
    if (s.status !== 'completed') parts.push(s.status);
    if (s.replayOf) parts.push('replay');
  }
  if (!s && start) parts.push(age(start, now));
  return { label: runName(r), description: parts.join(' · ') };
}
