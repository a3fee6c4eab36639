// One cluster as the view sees it: a refresh (sequential requests: never more than one in
// flight) builds a ClusterSnapshot — nodes, jobs, a Trinity job's actors, usage — and feeds
// each running job's stall detector from its log (bytes, `Step N` lines) and from progress the
// host reports (metric points). Failed jobs get their message and log tail. No vscode.
import type { RayJob } from '../api/api-types';
import { FORWARDER_ROLE, META, isTerminal, runNamespace } from '../api/api-types';
import { RayClient, type RayClientOptions } from '../api/client';
import type { ClusterSnapshot } from './cluster-model';
import { RelayReaper, type RelayStop } from './relay-reaper';
import { describeFailure, StallDetector, type Progress, type StallOptions } from './stall';

export interface MonitorOptions extends RayClientOptions {
  name?: string;
  stall?: StallOptions;
  /** Look up actors of running Trinity jobs (namespace from metadata). */
  actors?: boolean;
  now?: () => number;
  /** How long a relay outlives its run (default 30 s). */
  relayGraceMs?: number;
  /** Told of each relay job stopped because its run ended or is gone (once), or of the failure. */
  onRelayStopped?: (stop: RelayStop, error?: Error) => void;
}

const lastStep = (log: string): number | undefined => {
  let step: number | undefined;
  for (const m of log.matchAll(/\bStep[: ]+(\d+)/g)) step = Math.max(step ?? 0, Number(m[1]));
  return step;
};

export class ClusterMonitor {
  readonly client: RayClient;
  snapshot: ClusterSnapshot;
  private readonly detectors = new Map<string, StallDetector>();
  private readonly logs = new Map<string, string>();
  private readonly extra = new Map<string, Progress>();
  private readonly now: () => number;
  private readonly reaper: RelayReaper;

  constructor(private readonly opts: MonitorOptions) {
    this.client = new RayClient(opts);
    this.now = opts.now ?? Date.now;
    this.reaper = new RelayReaper(opts.relayGraceMs);
    this.snapshot = {
      url: this.client.url,
      name: opts.name ?? this.client.url,
      nodes: [],
      jobs: [],
      actors: {},
      usage: {},
      stalls: {},
      failures: {},
      fetchedAt: 0,
    };
  }

  /** Progress seen elsewhere (e.g. metric points from the run's relay). */
  reportProgress(submissionId: string, p: Progress): void {
    this.extra.set(submissionId, { ...this.extra.get(submissionId), ...p });
  }

  setStallOptions(s: StallOptions): void {
    this.opts.stall = s;
    this.detectors.clear();
  }

  /** The log text seen for a job (the last refresh). */
  log(id: string): string {
    return this.logs.get(id) ?? '';
  }

  async refresh(): Promise<ClusterSnapshot> {
    const s = this.snapshot;
    try {
      if (!s.rayVersion) s.rayVersion = (await this.client.version()).ray_version;
      s.nodes = await this.client.nodes();
      s.jobs = (await this.client.jobs()).sort((a, b) => (b.start_time ?? 0) - (a.start_time ?? 0));
      await this.stopOrphanRelays(s.jobs);
      s.usage = await this.client.clusterUsage().catch(() => ({}));
      const actors: ClusterSnapshot['actors'] = {};
      const stalls: ClusterSnapshot['stalls'] = {};
      const failures: ClusterSnapshot['failures'] = {};
      for (const j of s.jobs) {
        const id = j.submission_id ?? j.job_id;
        if (!id) continue;
        await this.watchJob(j, id, actors, stalls, failures);
      }
      s.actors = actors;
      s.stalls = stalls;
      s.failures = failures;
      s.error = undefined;
    } catch (e) {
      s.error = (e as Error).message;
      throw e;
    } finally {
      s.fetchedAt = this.now();
    }
    return s;
  }

  /** Relay jobs whose run ended (or is gone) are stopped: nothing else would ever stop them. */
  private async stopOrphanRelays(jobs: RayJob[]) {
    for (const stop of this.reaper.decide(jobs, this.now())) {
      try {
        await this.client.stop(stop.relay);
        this.opts.onRelayStopped?.(stop);
      } catch (e) {
        this.reaper.retry(stop.relay);
        this.opts.onRelayStopped?.(stop, e as Error);
      }
    }
  }

  private async watchJob(j: RayJob, id: string, actors: ClusterSnapshot['actors'], stalls: ClusterSnapshot['stalls'], failures: ClusterSnapshot['failures']) {
    const meta = j.metadata ?? {};
    const namespace = runNamespace(j);
    if (j.status === 'RUNNING') {
      // a debugger's forwarder job: its own watch reads its log (reach-worker.ts), the view need not
      if (meta[META.role] === FORWARDER_ROLE) return;
      const log = await this.client.logs(id).catch(() => this.logs.get(id) ?? '');
      this.logs.set(id, log);
      if (namespace && this.opts.actors !== false) actors[id] = await this.client.actors(namespace).catch(() => []);
      if (meta[META.role] === 'relay') return; // a relay is quiet by design
      let d = this.detectors.get(id);
      if (!d) this.detectors.set(id, (d = new StallDetector(this.opts.stall, j.start_time ?? this.now())));
      d.observe({ logBytes: log.length, step: lastStep(log), ...this.extra.get(id) }, this.now());
      const r = d.check(this.now(), { job: j, actors: actors[id], nodes: this.snapshot.nodes, logTail: log.slice(-8000) });
      if (r) stalls[id] = r;
    } else if (isTerminal(j.status)) {
      this.detectors.delete(id);
      if (j.status === 'FAILED') {
        if (!this.failedLogFetched.has(id)) {
          this.logs.set(id, await this.client.logs(id).catch(() => this.logs.get(id) ?? ''));
          this.failedLogFetched.add(id);
        }
        const f = describeFailure(j, { nodes: this.snapshot.nodes, logTail: (this.logs.get(id) ?? '').slice(-8000) });
        if (f) failures[id] = f;
      }
    }
  }

  private readonly failedLogFetched = new Set<string>();
}
