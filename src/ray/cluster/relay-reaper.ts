// Relay jobs must end with their run: nothing else stops them, and an orphaned relay keeps a
// Ray job RUNNING on the user's cluster forever. Given each poll's job list, this decides which
// of our relay jobs to stop — their run ended a grace period ago (so the viewer gets the last
// metrics) or is gone from the list. Pure logic: the monitor does the stopping. No vscode.
import type { RayJob } from '../api/api-types';
import { META, isTerminal } from '../api/api-types';

/** Long enough for the relay to push the run's last metric points to the viewer. */
const RELAY_GRACE_MS = 30_000;

export interface RelayStop {
  /** The relay job's submission id. */
  relay: string;
  /** The run it served. */
  run: string;
  reason: 'run-ended' | 'run-gone';
}

const idOf = (j: RayJob): string | undefined => j.submission_id ?? j.job_id ?? undefined;

/** A live relay job we submitted, with the run it serves (relays without `forRun` are not ours to judge). */
function liveRelay(j: RayJob): { relay: string; run: string } | undefined {
  const meta = j.metadata ?? {};
  const relay = idOf(j);
  const run = meta[META.forRun];
  if (meta[META.tool] !== '1' || meta[META.role] !== 'relay' || !relay || !run) return undefined;
  return j.status === 'RUNNING' || j.status === 'PENDING' ? { relay, run } : undefined;
}

/** The live relay jobs serving `run` (stopped at once when the user stops the run). */
export function relaysOf(jobs: readonly RayJob[], run: string): string[] {
  return jobs.flatMap((j) => {
    const r = liveRelay(j);
    return r && r.run === run ? [r.relay] : [];
  });
}

/** Remembers when each run was first seen terminal, when each relay was first seen live, and
 *  which relays it already asked to stop. */
export class RelayReaper {
  private readonly terminalSince = new Map<string, number>();
  /** A relay started after its run ended (the metrics view brought it back to show a finished
   *  run) gets a grace period of its own, counted from here. */
  private readonly liveSince = new Map<string, number>();
  private readonly requested = new Set<string>();

  constructor(private readonly graceMs = RELAY_GRACE_MS) {}

  /** The relays to stop after a poll that saw `jobs` at `now`; each is returned once. */
  decide(jobs: readonly RayJob[], now: number): RelayStop[] {
    const byId = new Map<string, RayJob>();
    for (const j of jobs) {
      const id = idOf(j);
      if (id) byId.set(id, j);
    }
    // First-seen times of runs no longer listed are dropped (deleted runs count as gone).
    for (const id of this.terminalSince.keys()) if (!byId.get(id) || !isTerminal(byId.get(id)!.status)) this.terminalSince.delete(id);
    for (const [id, j] of byId) if (isTerminal(j.status) && !this.terminalSince.has(id)) this.terminalSince.set(id, now);
    const stops: RelayStop[] = [];
    const live = new Set<string>();
    for (const j of jobs) {
      const r = liveRelay(j);
      if (!r) continue;
      live.add(r.relay);
      if (!this.liveSince.has(r.relay)) this.liveSince.set(r.relay, now);
      if (this.requested.has(r.relay)) continue;
      const run = byId.get(r.run);
      if (!run) stops.push({ ...r, reason: 'run-gone' });
      else if (isTerminal(run.status) && now - Math.max(this.terminalSince.get(r.run)!, this.liveSince.get(r.relay)!) >= this.graceMs)
        stops.push({ ...r, reason: 'run-ended' });
    }
    for (const id of this.liveSince.keys()) if (!live.has(id)) this.liveSince.delete(id);
    for (const id of this.requested) if (!byId.get(id) || isTerminal(byId.get(id)!.status)) this.requested.delete(id);
    for (const s of stops) this.requested.add(s.relay);
    return stops;
  }

  /** A stop request failed: consider the relay again on the next poll. */
  retry(relay: string): void {
    this.requested.delete(relay);
  }
}
