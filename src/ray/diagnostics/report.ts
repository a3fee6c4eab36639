// The diagnostics of a run as one Markdown report, the three things maintainers ask for when Ray
// training hangs (`ray status`, `ray list actors --detail`, `py-spy dump` of the stuck processes)
// plus versions, the stall finding, the last log lines per role and the config with its secrets
// masked. It is written in English on purpose: it is pasted into upstream issues. Pure.
import type { RayActor, RayJob, RayNode } from '../api/api-types';
import type { StallReport } from '../cluster/stall';
import type { RoleLog } from './collect';
import { maskConfigSecrets, maskSecretsInText } from './mask-secrets';
import { actorLabel, frameText, type ActorStacks, type StackFailure, type StacksReport } from './stacks';
import type { TrinityProbe } from './trinity-probe';

export interface DiagnosticsInput {
  /** ISO time the report was taken. */
  takenAt: string;
  job: RayJob;
  rayVersion?: string;
  trinityVersion?: string;
  /** What the probe job found when the run did not say (see trinity-probe.ts). */
  trinityProbe?: TrinityProbe;
  /** The autoscaler report (`ray status`). */
  clusterStatus?: string;
  nodes: RayNode[];
  actors: RayActor[];
  stacks?: StacksReport;
  /** Why no stacks at all (the dashboard failed). */
  stacksError?: string;
  logs: RoleLog[];
  config?: { path: string; text: string };
  stall?: StallReport;
  /** Parts of the cluster that could not be read. */
  errors?: string[];
}

function trinityLine(version: string | undefined, probe: TrinityProbe | undefined): string {
  if (version) return version;
  if (probe && 'installed' in probe)
    return probe.installed
      ? `${probe.version} (installed in the job's Python, asked by a probe job)`
      : "not installed (no trinity-rft in the job's Python, asked by a probe job)";
  const why = probe ? `; the probe job: ${probe.error}` : '';
  return `unknown (not pinned in the job and not in its log${why}: \`pip show trinity-rft\` on a node)`;
}

/** How to fix a refused stack, in the words of an issue comment. */
export function stackFixHint(f: StackFailure): string {
  switch (f.kind) {
    case 'profiling-disabled':
      return 'The dashboard refuses stack dumps: start the head node with RAY_DASHBOARD_ENABLE_PROFILING=1 (e.g. `RAY_DASHBOARD_ENABLE_PROFILING=1 ray start --head …`).';
    case 'py-spy-missing':
      return 'py-spy is not installed on that node: `pip install py-spy` in the Python environment Ray runs from.';
    case 'not-permitted':
      return 'py-spy may not attach to the process (ptrace): run Ray as the same user with ptrace allowed (`sysctl kernel.yama.ptrace_scope=0`), or give the container CAP_SYS_PTRACE (`docker run --cap-add SYS_PTRACE`), or make py-spy setuid root.';
    case 'process-gone':
      return 'The process had exited by the time its stack was taken.';
    default:
      return 'The dashboard could not take the stack.';
  }
}

const fence = (text: string, lang = 'text'): string => {
  const ticks = '`'.repeat(Math.max(3, ...[...text.matchAll(/`{3,}/g)].map((m) => m[0].length + 1)));
  return `${ticks}${lang}\n${text.replace(/\n+$/, '')}\n${ticks}`;
};
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** The readable part of Ray's `death_cause` (a protobuf as JSON: `{actor_died_error_context: {error_message, …}}` and the like). */
export function deathCause(c: unknown): string {
  if (c === null || c === undefined) return '';
  if (typeof c === 'string') return c;
  if (typeof c !== 'object') return JSON.stringify(c) ?? '';
  const found: string[] = [];
  const walk = (o: unknown) => {
    if (!o || typeof o !== 'object') return;
    for (const [k, v] of Object.entries(o as Record<string, unknown>)) {
      if (typeof v === 'string' && /message|reason/i.test(k) && v.trim()) found.push(v.trim());
      else walk(v);
    }
  };
  walk(c);
  return (found.length ? found.join('; ') : JSON.stringify(c)).slice(0, 500);
}

const nameOf = (id: string, actors: RayActor[]): string => {
  if (id === 'driver') return 'the driver';
  const a = actors.find((x) => x.actor_id === id);
  return a ? actorLabel(a) : id.slice(0, 8);
};

function waitLine(a: ActorStacks): string {
  if (a.error) return `no stack: ${a.error.kind} — ${stackFixHint(a.error)}`;
  if (!a.wait) return 'idle (no method of its own on the stack; an async actor awaits off-stack: see its running tasks)';
  return `waits in \`${a.wait.call}\`${a.wait.frame ? ` at \`${frameText(a.wait.frame)}\`` : ''}`;
}

/** The stacks section (also what "Show Stacks" opens). */
export function renderStacks(s: StacksReport, actors: RayActor[], heading = '##'): string {
  const out: string[] = [`${heading} Stacks (py-spy, through the Ray dashboard)`, ''];
  const all = [...actors, ...s.groups.flatMap((g) => g.actors.map((a) => a.actor))];
  if (s.cycle) out.push(`**Deadlock:** ${[...s.cycle, s.cycle[0]].map((id) => nameOf(id, all)).join(' → ')} (each waits on the next).`, '');
  if (s.waits.length) {
    out.push('Who waits on whom:', '');
    for (const e of s.waits)
      out.push(`- ${nameOf(e.from, all)} waits on ${nameOf(e.to, all)} in \`${e.task}\`${e.source === 'frame' ? ' (from its frame name)' : ''}`);
    out.push('');
  }
  for (const g of s.groups) {
    for (const a of g.actors) {
      out.push(`${heading}# ${actorLabel(a.actor)} — ${g.role}`, '');
      out.push(`pid ${a.actor.pid ?? '?'} on node ${(a.actor.node_id ?? '?').slice(0, 8)} · ${waitLine(a)}`);
      if (a.running.length) out.push(`running: ${a.running.map((t) => `\`${t}\``).join(', ')}`);
      out.push('');
      if (a.raw) out.push(fence(a.raw), '');
      else if (a.error) out.push(fence(a.error.detail), '');
    }
  }
  if (!s.groups.length) out.push('No live process of the run to take a stack of.', '');
  return out.join('\n');
}

function stallSection(st: StallReport | undefined, stacks: StacksReport | undefined, actors: RayActor[]): string[] {
  const out = ['## Stall finding', ''];
  if (!st) out.push('The run is not flagged as stalled.');
  else {
    out.push(`No metrics, log lines or rollouts for ${(st.stalledForMs / 60_000).toFixed(1)} min (threshold ${(st.thresholdMs / 60_000).toFixed(1)} min).`);
    for (const a of st.actorsNotAlive) out.push(`- actor ${a.name} is ${a.state}`);
    for (const n of st.deadNodes) out.push(`- node ${n.ip} ${n.id.slice(0, 8)} is DEAD${n.message ? `: ${n.message}` : ''}`);
    if (st.explorerWaitsOnSynchronizer) out.push('- the log says the explorer waits on the synchronizer');
  }
  if (stacks?.cycle) out.push(`- the stacks show a deadlock: ${[...stacks.cycle, stacks.cycle[0]].map((id) => nameOf(id, actors)).join(' → ')}`);
  out.push('');
  return out;
}

/** The whole report, secrets masked (config values and anything key-shaped, everywhere). */
export function renderDiagnostics(d: DiagnosticsInput): string {
  const j = d.job;
  const id = j.submission_id ?? j.job_id ?? '?';
  const masked = d.config ? maskConfigSecrets(d.config.text) : undefined;
  const python = d.stacks?.groups.flatMap((g) => g.actors).find((a) => a.stack?.python)?.stack?.python;
  const out: string[] = [
    `# Ray run diagnostics: ${id}`,
    '',
    `Taken ${d.takenAt} by Agent RL Studio.`,
    '',
    '## Versions',
    '',
    `- Ray: ${d.rayVersion ?? 'unknown'}`,
    `- Trinity-RFT: ${trinityLine(d.trinityVersion, d.trinityProbe)}`,
    ...(python ? [`- Python (workers): ${python}`] : []),
    '',
    ...stallSection(d.stall, d.stacks, d.actors),
    '## Job',
    '',
    `- status: ${j.status}${j.message ? ` — ${j.message.split('\n')[0]}` : ''}`,
    `- entrypoint: \`${j.entrypoint}\``,
    ...(j.start_time ? [`- started: ${new Date(j.start_time).toISOString()}`] : []),
    ...(j.driver_node_id ? [`- driver node: ${j.driver_node_id.slice(0, 8)}`] : []),
    '',
    '## Cluster resources (`ray status`)',
    '',
    d.clusterStatus ? fence(d.clusterStatus) : '(not available)',
    '',
    '| node | ip | state | resources |',
    '|---|---|---|---|',
    ...d.nodes.map(
      (n) =>
        `| ${n.node_id.slice(0, 8)}${n.is_head_node ? ' (head)' : ''} | ${n.node_ip} | ${cell(n.state + (n.state_message ? `: ${n.state_message}` : ''))} | ${cell(
          Object.entries(n.resources_total)
            .filter(([k]) => !k.startsWith('node:'))
            .map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(2)}`)
            .join(', '),
        )} |`,
    ),
    '',
    '## Actors (`ray list actors --detail`)',
    '',
  ];
  if (d.actors.length) {
    out.push('| actor | class | state | node | pid | death cause |', '|---|---|---|---|---|---|');
    for (const a of d.actors)
      out.push(
        `| ${cell(a.name || a.actor_id.slice(0, 8))} | ${cell(a.class_name ?? '')} | ${a.state} | ${(a.node_id ?? '').slice(0, 8)} | ${a.pid ?? ''} | ${cell(deathCause(a.death_cause))} |`,
      );
  } else out.push('No actors found for this run.');
  out.push('');
  if (d.stacks) out.push(renderStacks(d.stacks, d.actors));
  else out.push('## Stacks', '', d.stacksError ?? 'Not taken.', '');
  out.push(`## Logs (last lines per role)`, '');
  for (const l of d.logs) out.push(`### ${l.title}`, '', fence(l.lines.join('\n')), '');
  if (d.config && masked) out.push(`## Config \`${d.config.path}\` (secrets masked)`, '', fence(masked.text, 'yaml'), '');
  if (d.errors?.length) out.push('## Not available', '', ...d.errors.map((e) => `- ${e}`), '');
  return maskSecretsInText(out.join('\n'), masked?.secrets ?? []);
}
