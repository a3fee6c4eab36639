// The shapes of Ray's dashboard HTTP APIs (Jobs, State, packages) as we use them, checked
// against Ray 2.58's dashboard code and docs. Only the fields we read are typed.

export type JobStatus = 'PENDING' | 'RUNNING' | 'STOPPED' | 'SUCCEEDED' | 'FAILED';

export interface RayVersion {
  version: string;
  ray_version: string;
  ray_commit?: string;
  session_name?: string;
}

export interface RayNode {
  node_id: string;
  node_ip: string;
  is_head_node: boolean;
  /** 'ALIVE' or 'DEAD' (Ray may add states) */
  state: string;
  state_message?: string | null;
  node_name?: string;
  resources_total: Record<string, number>;
  labels?: Record<string, string>;
  start_time_ms?: number;
  end_time_ms?: number;
}

export interface RayJob {
  type?: string;
  job_id: string | null;
  submission_id: string | null;
  status: JobStatus;
  entrypoint: string;
  message?: string | null;
  error_type?: string | null;
  start_time?: number;
  end_time?: number;
  metadata?: Record<string, string> | null;
  runtime_env?: Record<string, unknown> | null;
  driver_node_id?: string | null;
  driver_exit_code?: number | null;
  /** The driver process (Ray gives the pid as a string). */
  driver_info?: { id?: string; node_ip_address?: string; pid?: string } | null;
}

export interface RayActor {
  actor_id: string;
  class_name?: string;
  name?: string;
  ray_namespace?: string;
  /** 'ALIVE', 'DEAD', 'PENDING_CREATION', 'RESTARTING', 'DEPENDENCIES_UNREADY' (Ray may add states) */
  state: string;
  node_id?: string | null;
  pid?: number;
  job_id?: string;
  death_cause?: unknown;
}

/** A row of the State API's task table (`/api/v0/tasks?detail=1`), the fields we read. */
export interface RayTask {
  task_id: string;
  name?: string;
  state?: string;
  type?: string;
  actor_id?: string | null;
  parent_task_id?: string | null;
  worker_pid?: number | null;
  worker_id?: string | null;
  job_id?: string | null;
  node_id?: string | null;
  func_or_class_name?: string | null;
  start_time_ms?: number | null;
}

/**
 * A row of the State API's worker table (`/api/v0/workers?detail=1`), the fields we read. With
 * `RAY_DEBUG=1` (the default since Ray 2.39) a `breakpoint()` in a task or actor — or, with
 * `RAY_DEBUG_POST_MORTEM=1`, an exception — makes the worker `debugpy.listen((node_ip, 0))`,
 * record that port and count the paused thread (`ray/util/debugpy.py`); older Rays have neither field.
 */
export interface RayWorker {
  worker_id: string;
  is_alive?: boolean;
  worker_type?: string;
  node_id?: string;
  ip?: string;
  pid?: number;
  debugger_port?: number | null;
  num_paused_threads?: number | null;
  start_time_ms?: number;
}

export interface SubmitJobRequest {
  entrypoint: string;
  submission_id?: string;
  runtime_env?: { working_dir?: string; env_vars?: Record<string, string>; [k: string]: unknown };
  metadata?: Record<string, string>;
  entrypoint_num_cpus?: number;
  entrypoint_num_gpus?: number;
  entrypoint_resources?: Record<string, number>;
}

export interface SubmitJobResponse {
  job_id?: string;
  submission_id: string;
}

const TERMINAL_STATUSES: readonly JobStatus[] = ['STOPPED', 'SUCCEEDED', 'FAILED'];
export const isTerminal = (s: JobStatus): boolean => TERMINAL_STATUSES.includes(s);

/** Metadata keys we put on jobs we submit (Ray metadata values are strings). */
export const META = {
  tool: 'agentrl',
  config: 'agentrl.config',
  project: 'agentrl.project',
  name: 'agentrl.name',
  kind: 'agentrl.kind',
  role: 'agentrl.role',
  jobDir: 'agentrl.job_dir',
  /** For a relay job: the submission id of the run it serves. */
  forRun: 'agentrl.for',
} as const;

/** `META.role` of the port forwarder job Attach starts (src/ray/paused/forwarder.ts): here, with
 *  the other metadata, so the cluster monitor can pass over its log without importing paused/. */
export const FORWARDER_ROLE = 'forwarder';

/** The Ray namespace of a Trinity run we submitted (`<project>/<name>`), from its metadata. */
export function runNamespace(j: Pick<RayJob, 'metadata'>): string | undefined {
  const meta = j.metadata ?? {};
  return meta[META.project] && meta[META.name] && meta[META.kind] === 'trinity' ? `${meta[META.project]}/${meta[META.name]}` : undefined;
}
