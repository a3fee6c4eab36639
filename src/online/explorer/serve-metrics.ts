// The explorer's GET /metrics JSON (Trinity ExplorerService.collect_metrics + explore_step_num)
// as a typed snapshot: totals, the explore step and one row per inference engine.

export interface EngineMetrics {
  index: number;
  requests: number;
  modelVersion: number;
}

export interface OnlineMetrics {
  totalExperiences: number;
  readyExperiences: number;
  exploreStep: number;
  engines: EngineMetrics[];
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Parses /metrics; undefined when the body is not the documented shape. */
export function parseMetrics(body: unknown): OnlineMetrics | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const m = body as Record<string, unknown>;
  const total = num(m['rollout/total_experience_count']);
  const ready = num(m['rollout/ready_experience_count']);
  if (total === undefined || ready === undefined) return undefined;
  const engines = new Map<number, EngineMetrics>();
  for (const [k, v] of Object.entries(m)) {
    const hit = /^rollout\/model_(\d+)\/(total_request_count|model_version)$/.exec(k);
    if (!hit || num(v) === undefined) continue;
    const i = Number(hit[1]);
    const e = engines.get(i) ?? { index: i, requests: 0, modelVersion: 0 };
    if (hit[2] === 'total_request_count') e.requests = v as number;
    else e.modelVersion = v as number;
    engines.set(i, e);
  }
  return {
    totalExperiences: total,
    readyExperiences: ready,
    exploreStep: num(m.explore_step_num) ?? 0,
    engines: [...engines.values()].sort((a, b) => a.index - b.index),
  };
}

/** The version the explorer serves when all engines agree (else the newest), undefined with none. */
export function servingVersion(m: OnlineMetrics | undefined): number | undefined {
  if (!m || m.engines.length === 0) return undefined;
  return Math.max(...m.engines.map((e) => e.modelVersion));
}
