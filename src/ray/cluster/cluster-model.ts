// What the Ray view shows, computed from API data without vscode: one snapshot per cluster
// (nodes with usage, jobs with their age and our metadata, a Trinity job's actors) and the
// labels/descriptions of its rows, so the tree adapter only maps rows to TreeItems.
import type { L10n } from '../../base/l10n';
import type { RayActor, RayJob, RayNode } from '../api/api-types';
import { META } from '../api/api-types';
import type { FailureReport, StallReport } from './stall';

export interface ClusterSnapshot {
  url: string;
  name: string;
  rayVersion?: string;
  nodes: RayNode[];
  jobs: RayJob[];
  /** Per job submission id: its actors (Trinity namespace), when looked up. */
  actors: Record<string, RayActor[]>;
  usage: Record<string, [number, number]>;
  /** When the last refresh failed: its message (the rows still show the last good data). */
  error?: string;
  stalls: Record<string, StallReport>;
  failures: Record<string, FailureReport>;
  fetchedAt: number;
}

export type Row =
  | { type: 'cluster'; id: string; label: string; description: string; error?: string }
  | { type: 'group'; id: string; label: string; description: string; group: 'nodes' | 'jobs' }
  | { type: 'node'; id: string; label: string; description: string; tooltip: string; alive: boolean; head: boolean }
  | { type: 'job'; id: string; label: string; description: string; tooltip: string; status: string; submissionId: string; stalled: boolean; relay: boolean }
  | { type: 'actor'; id: string; label: string; description: string; alive: boolean; job: string }
  | { type: 'info'; id: string; label: string; description: string; severity: 'warning' | 'error' | 'info' };

const GB = 2 ** 30;
const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
  return `${Math.floor(s / 86400)}d${Math.floor((s % 86400) / 3600)}h`;
}

const STANDARD = new Set(['CPU', 'GPU', 'memory', 'object_store_memory']);
function customResources(n: RayNode): string[] {
  return Object.entries(n.resources_total)
    .filter(([k]) => !STANDARD.has(k) && !k.startsWith('node:') && !k.startsWith('accelerator_type:'))
    .map(([k, v]) => `${k}=${fmt(v)}`);
}

export function nodeRow(n: RayNode, usage: Record<string, [number, number]>, clusterNodes: number): Row {
  const r = n.resources_total;
  const parts: string[] = [];
  // Per-node usage is not in the State API; the autoscaler's totals are exact on one node only.
  const used = (k: string) => (clusterNodes === 1 && usage[k] ? `${fmt(usage[k][0])}/` : '');
  if (r.CPU !== undefined) parts.push(`CPU ${used('CPU')}${fmt(r.CPU)}`);
  if (r.GPU !== undefined) parts.push(`GPU ${used('GPU')}${fmt(r.GPU)}`);
  if (r.memory !== undefined) parts.push(`mem ${(r.memory / GB).toFixed(1)} GB`);
  parts.push(...customResources(n));
  const alive = n.state === 'ALIVE';
  return {
    type: 'node',
    id: n.node_id,
    label: `${n.is_head_node ? 'head ' : ''}${n.node_ip} · ${n.node_id.slice(0, 8)}`,
    description: `${alive ? 'ALIVE' : n.state} · ${parts.join(' · ')}`,
    tooltip: [`${n.node_id}`, `${n.state}${n.state_message ? `: ${n.state_message}` : ''}`, ...Object.entries(r).map(([k, v]) => `${k}: ${fmt(v)}`)].join('\n'),
    alive,
    head: n.is_head_node,
  };
}

export function jobRow(j: RayJob, now: number, stalled: boolean): Row {
  const id = j.submission_id ?? j.job_id ?? '?';
  const meta = j.metadata ?? {};
  const ours = meta[META.tool] === '1';
  const relay = meta[META.role] === 'relay';
  const name = relay ? `relay for ${meta[META.forRun] ?? '?'}` : ours && meta[META.name] ? `${meta[META.project] ?? ''}/${meta[META.name]}` : id;
  const since = j.end_time ? j.end_time - (j.start_time ?? j.end_time) : now - (j.start_time ?? now);
  return {
    type: 'job',
    id,
    label: name,
    description: `${stalled ? 'STALLED · ' : ''}${j.status} · ${age(since)} · ${j.entrypoint.length > 60 ? j.entrypoint.slice(0, 57) + '…' : j.entrypoint}`,
    tooltip: [id, j.entrypoint, j.message ?? '', ...Object.entries(meta).map(([k, v]) => `${k}: ${v}`)].filter(Boolean).join('\n'),
    status: j.status,
    submissionId: id,
    stalled,
    relay,
  };
}

function actorRow(a: RayActor, job: string): Row {
  return {
    type: 'actor',
    id: a.actor_id,
    label: a.name || a.class_name || a.actor_id.slice(0, 8),
    description: `${a.state}${a.class_name ? ` · ${a.class_name}` : ''}`,
    alive: a.state === 'ALIVE',
    job,
  };
}

/** Info rows under a job: the stall report or the failure (their text through `l10n`). */
export function jobDetails(s: ClusterSnapshot, id: string, l10n: L10n): Row[] {
  const rows: Row[] = [];
  const dead = (n: { ip: string; id: string }) => l10n.t('node {0} {1} is DEAD', n.ip, n.id.slice(0, 8));
  const st = s.stalls[id];
  if (st) {
    rows.push({
      type: 'info',
      id: `${id}:stall`,
      label: l10n.t('no progress for {0} (threshold {1})', age(st.stalledForMs), age(st.thresholdMs)),
      description: '',
      severity: 'warning',
    });
    for (const a of st.actorsNotAlive)
      rows.push({ type: 'info', id: `${id}:actor:${a.name}`, label: l10n.t('actor {0} is {1}', a.name, a.state), description: '', severity: 'warning' });
    for (const n of st.deadNodes) rows.push({ type: 'info', id: `${id}:dead:${n.id}`, label: dead(n), description: n.message ?? '', severity: 'error' });
    if (st.explorerWaitsOnSynchronizer)
      rows.push({ type: 'info', id: `${id}:sync`, label: l10n.t('the explorer waits on the synchronizer'), description: '', severity: 'warning' });
  }
  const f = s.failures[id];
  if (f) {
    rows.push({ type: 'info', id: `${id}:failed`, label: l10n.t('FAILED: {0}', f.message.split('\n')[0]), description: f.errorType ?? '', severity: 'error' });
    for (const n of f.deadNodes) rows.push({ type: 'info', id: `${id}:fdead:${n.id}`, label: dead(n), description: n.message ?? '', severity: 'error' });
    f.lastLogLines.slice(-5).forEach((l, i) => rows.push({ type: 'info', id: `${id}:log:${i}`, label: l.slice(0, 200), description: '', severity: 'info' }));
  }
  for (const a of s.actors[id] ?? []) rows.push(actorRow(a, id));
  return rows;
}
