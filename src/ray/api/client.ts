// A small client for Ray's dashboard HTTP APIs (Jobs, State, packages), over node:http and
// `ws` for the log stream. No vscode import: errors carry a kind and the facts, and the adapter
// turns them into localized messages. The dashboard has no authentication, so nothing secret is
// ever sent to it except what the user chose to put into a job's runtime env.
import * as http from 'node:http';
import * as https from 'node:https';
import WebSocket from 'ws';
import type { RayActor, RayJob, RayNode, RayTask, RayVersion, RayWorker, SubmitJobRequest, SubmitJobResponse } from './api-types';

export type RayErrorKind =
  /** nothing answers (connection refused, DNS, timeout) */
  | 'unreachable'
  /** something answers but it is not a Ray dashboard (or lacks the Jobs API) */
  | 'not-ray'
  /** Ray answered with an HTTP error (5xx, or 4xx we did not expect) */
  | 'http'
  /** Ray refused a job submission (4xx on POST /api/jobs/) */
  | 'refused'
  /** the response was not the JSON shape we expected */
  | 'protocol';

interface HttpResponse {
  status: number;
  ok: boolean;
  text(): string;
}

export class RayError extends Error {
  constructor(
    readonly kind: RayErrorKind,
    readonly url: string,
    message: string,
    readonly status?: number,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'RayError';
  }
}

export interface RayClientOptions {
  /** Dashboard URL, e.g. http://127.0.0.1:8265 */
  url: string;
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
  /** Called once per HTTP request (the bench counts requests per minute). */
  onRequest?: (method: string, path: string) => void;
}

/** Normalises a user-typed dashboard address: adds http://, drops a trailing slash. */
export function normalizeDashboardUrl(input: string): string {
  let u = input.trim();
  if (!/^[a-z]+:\/\//i.test(u)) u = `http://${u}`;
  const parsed = new URL(u); // throws on garbage: callers validate first
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error(`not an http(s) URL: ${input}`);
  return parsed.toString().replace(/\/+$/, '');
}

/** The text of a Ray error body: the dashboard returns plain text, JSON {msg} or HTML tracebacks. */
function bodyDetail(text: string): string {
  const t = text.trim();
  try {
    const j = JSON.parse(t) as { msg?: string; message?: string; detail?: string };
    const m = j.msg ?? j.message ?? j.detail;
    if (typeof m === 'string' && m) return m.slice(0, 2000);
  } catch {
    /* not JSON */
  }
  return t
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 2000);
}

export class RayClient {
  readonly url: string;
  private readonly timeoutMs: number;

  constructor(private readonly opts: RayClientOptions) {
    this.url = normalizeDashboardUrl(opts.url);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  /** node:http rather than fetch: undici's fetch always sends `Sec-Fetch-Mode`, and Ray's
   *  dashboard refuses mutating requests that look like browser traffic (HTTP 405). */
  private request(method: string, path: string, body?: Buffer | string, contentType?: string): Promise<HttpResponse> {
    this.opts.onRequest?.(method, path);
    const target = new URL(this.url + path);
    const mod = target.protocol === 'https:' ? https : http;
    const payload = body === undefined ? undefined : typeof body === 'string' ? Buffer.from(body) : body;
    return new Promise((resolve, reject) => {
      const unreachable = (why: string) =>
        reject(new RayError('unreachable', this.url, `cannot reach the Ray dashboard at ${this.url} (${why})`, undefined, why));
      const req = mod.request(
        target,
        {
          method,
          headers: {
            ...(contentType ? { 'content-type': contentType } : {}),
            ...(payload ? { 'content-length': String(payload.length) } : {}),
            'user-agent': 'agentrl',
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            const buf = Buffer.concat(chunks);
            resolve({ status, ok: status >= 200 && status < 300, text: () => buf.toString('utf8') });
          });
          res.on('error', (e) => unreachable(e.message));
        },
      );
      req.setTimeout(this.timeoutMs, () => req.destroy(Object.assign(new Error(`timed out after ${this.timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      req.on('error', (e: NodeJS.ErrnoException) => unreachable(e.code === 'ETIMEDOUT' ? `timed out after ${this.timeoutMs} ms` : (e.code ?? e.message)));
      req.end(payload);
    });
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request(method, path, body === undefined ? undefined : JSON.stringify(body), body === undefined ? undefined : 'application/json');
    const text = res.text();
    if (!res.ok) {
      const detail = bodyDetail(text);
      if (method === 'POST' && path === '/api/jobs/' && res.status >= 400 && res.status < 500) {
        throw new RayError('refused', this.url, `Ray refused the job: ${detail || `HTTP ${res.status}`}`, res.status, detail);
      }
      if (res.status === 404 || (res.status >= 300 && res.status < 400)) {
        throw new RayError('not-ray', this.url, `${this.url} does not look like a Ray dashboard (${method} ${path} → HTTP ${res.status})`, res.status, detail);
      }
      throw new RayError('http', this.url, `Ray dashboard error: ${method} ${path} → HTTP ${res.status}${detail ? `: ${detail}` : ''}`, res.status, detail);
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      const kind = path === '/api/version' ? 'not-ray' : 'protocol';
      throw new RayError(
        kind,
        this.url,
        `${this.url} does not look like a Ray dashboard (${method} ${path} did not return JSON)`,
        res.status,
        text.slice(0, 200),
      );
    }
  }

  /** State API responses are wrapped: {result, msg, data: {result: {result: [...]}}}. */
  private async state<T>(path: string): Promise<T[]> {
    const r = await this.json<{ result?: boolean; msg?: string; data?: { result?: { result?: T[] } } }>('GET', path);
    if (r.result === false) throw new RayError('http', this.url, `Ray State API error on ${path}: ${r.msg ?? 'unknown'}`, 200, r.msg);
    const rows = r.data?.result?.result;
    if (!Array.isArray(rows)) throw new RayError('protocol', this.url, `unexpected State API response on ${path}`);
    return rows;
  }

  async version(): Promise<RayVersion> {
    const v = await this.json<RayVersion>('GET', '/api/version');
    if (!v || typeof v.ray_version !== 'string')
      throw new RayError('not-ray', this.url, `${this.url} does not look like a Ray dashboard (no ray_version in /api/version)`);
    return v;
  }

  nodes(): Promise<RayNode[]> {
    return this.state<RayNode>('/api/v0/nodes?detail=1&limit=1000');
  }

  /** Actors, optionally only those of one Ray namespace (Trinity: `<project>/<name>`). */
  actors(namespace?: string): Promise<RayActor[]> {
    const f = namespace ? `&filter_keys=ray_namespace&filter_predicates=%3D&filter_values=${encodeURIComponent(namespace)}` : '';
    return this.state<RayActor>(`/api/v0/actors?detail=1&limit=1000${f}`);
  }

  async jobs(): Promise<RayJob[]> {
    const j = await this.json<RayJob[]>('GET', '/api/jobs/');
    if (!Array.isArray(j)) throw new RayError('protocol', this.url, 'unexpected response from GET /api/jobs/');
    return j;
  }

  job(id: string): Promise<RayJob> {
    return this.json<RayJob>('GET', `/api/jobs/${encodeURIComponent(id)}`);
  }

  submit(req: SubmitJobRequest): Promise<SubmitJobResponse> {
    return this.json<SubmitJobResponse>('POST', '/api/jobs/', req);
  }

  async stop(id: string): Promise<boolean> {
    const r = await this.json<{ stopped?: boolean }>('POST', `/api/jobs/${encodeURIComponent(id)}/stop`);
    return r.stopped !== false;
  }

  async delete(id: string): Promise<boolean> {
    const r = await this.json<{ deleted?: boolean }>('DELETE', `/api/jobs/${encodeURIComponent(id)}`);
    return r.deleted !== false;
  }

  async logs(id: string): Promise<string> {
    const r = await this.json<{ logs?: string }>('GET', `/api/jobs/${encodeURIComponent(id)}/logs`);
    return r.logs ?? '';
  }

  /** Whether `gcs://<name>` already exists (then the upload is skipped). */
  async packageExists(name: string): Promise<boolean> {
    const res = await this.request('GET', `/api/packages/gcs/${encodeURIComponent(name)}`);
    if (res.ok) return true;
    if (res.status === 404) return false;
    throw new RayError('http', this.url, `Ray dashboard error: GET /api/packages/gcs/${name} → HTTP ${res.status}`, res.status);
  }

  async uploadPackage(name: string, zip: Buffer): Promise<void> {
    const res = await this.request('PUT', `/api/packages/gcs/${encodeURIComponent(name)}`, zip, 'application/octet-stream');
    const text = res.text();
    if (!res.ok) {
      const detail = bodyDetail(text);
      throw new RayError(
        res.status === 413 ? 'refused' : 'http',
        this.url,
        `Ray refused the package upload (HTTP ${res.status})${detail ? `: ${detail}` : ''}`,
        res.status,
        detail,
      );
    }
  }

  /** `/api/cluster_status?format=1`: used / total per resource, parsed from the autoscaler report. */
  async clusterUsage(): Promise<Record<string, [number, number]>> {
    return parseClusterStatus(await this.clusterStatus());
  }

  /** The autoscaler's report as `ray status` prints it. */
  async clusterStatus(): Promise<string> {
    const r = await this.json<{ data?: { clusterStatus?: string } }>('GET', '/api/cluster_status?format=1');
    return r.data?.clusterStatus ?? '';
  }

  /** Tasks of a job that have not finished (State API): who runs what, and who called it. */
  tasks(jobId: string): Promise<RayTask[]> {
    const f = `&filter_keys=job_id&filter_predicates=%3D&filter_values=${encodeURIComponent(jobId)}&filter_keys=state&filter_predicates=!%3D&filter_values=FINISHED`;
    return this.state<RayTask>(`/api/v0/tasks?detail=1&limit=1000${f}`);
  }

  /** Live workers (State API), with their debugger port and paused threads where Ray has those fields. */
  workers(): Promise<RayWorker[]> {
    return this.state<RayWorker>('/api/v0/workers?detail=1&limit=1000&filter_keys=is_alive&filter_predicates=%3D&filter_values=true');
  }

  /** The port a node's raylet listens on (the dashboard's `/nodes/{id}`), or undefined when it does not say:
   *  a port known to be open on the node's address, so reaching it tells whether the node is reachable. */
  async nodeManagerPort(nodeId: string): Promise<number | undefined> {
    const r = await this.json<unknown>('GET', `/nodes/${encodeURIComponent(nodeId)}`);
    const seen = new Set<unknown>();
    const find = (v: unknown): number | undefined => {
      if (!v || typeof v !== 'object' || seen.has(v)) return undefined;
      seen.add(v);
      const o = v as Record<string, unknown>;
      const p = Number(o.nodeManagerPort);
      if (Number.isInteger(p) && p > 0) return p;
      for (const x of Object.values(o)) {
        const hit = find(x);
        if (hit) return hit;
      }
      return undefined;
    };
    return find(r);
  }

  /** The tasks a worker ran or runs (State API): which job, task or actor method it is paused in. */
  tasksOfWorker(workerId: string): Promise<RayTask[]> {
    return this.state<RayTask>(`/api/v0/tasks?detail=1&limit=100&filter_keys=worker_id&filter_predicates=%3D&filter_values=${encodeURIComponent(workerId)}`);
  }

  /**
   * `py-spy dump` of a process on a node, taken by that node's dashboard agent. The answer is
   * returned as is, refusals included (403: profiling is off on the head; 500: py-spy missing,
   * not permitted, process gone): the caller explains them. Only an unreachable dashboard throws.
   */
  async traceback(pid: number, nodeId: string): Promise<{ status: number; body: string }> {
    const res = await this.request('GET', `/worker/traceback?pid=${encodeURIComponent(String(pid))}&node_id=${encodeURIComponent(nodeId)}`);
    return { status: res.status, body: res.text() };
  }

  /** The last `lines` lines of an actor's stdout or stderr (State API log files). */
  async actorLog(actorId: string, suffix: 'out' | 'err', lines = 50): Promise<string> {
    const res = await this.request('GET', `/api/v0/logs/file?actor_id=${encodeURIComponent(actorId)}&suffix=${suffix}&lines=${lines}&filter_ansi_code=true`);
    if (!res.ok)
      throw new RayError(
        'http',
        this.url,
        `Ray dashboard error: GET /api/v0/logs/file (actor ${actorId}) → HTTP ${res.status}`,
        res.status,
        bodyDetail(res.text()),
      );
    return res.text();
  }

  /** The logs WebSocket URL of a job. */
  tailUrl(id: string): string {
    return `${this.url.replace(/^http/, 'ws')}/api/jobs/${encodeURIComponent(id)}/logs/tail`;
  }
}

/** Parses lines such as ` 1.0/2.0 CPU` and ` 0B/15.82GiB memory` of `ray status`. */
export function parseClusterStatus(text: string): Record<string, [number, number]> {
  const out: Record<string, [number, number]> = {};
  const unit = (n: string, u?: string): number => {
    const k: Record<string, number> = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30, TiB: 2 ** 40 };
    return Number(n) * (u ? (k[u] ?? 1) : 1);
  };
  for (const m of text.matchAll(/^\s*([\d.]+)(B|KiB|MiB|GiB|TiB)?\/([\d.]+)(B|KiB|MiB|GiB|TiB)?\s+([A-Za-z_][\w:./-]*)/gm)) {
    out[m[5]] = [unit(m[1], m[2]), unit(m[3], m[4])];
  }
  return out;
}

export interface LogTail {
  close(): void;
  /** 'ws' while the WebSocket delivers, 'poll' after falling back to GET …/logs. */
  readonly mode: 'ws' | 'poll';
}

/** Streams a job's log: the logs WebSocket, falling back to polling the plain GET (emitting only
 *  what is new) when the socket cannot be opened. `onEnd` fires when the job's log is complete. */
export function tailLogs(client: RayClient, id: string, onChunk: (text: string) => void, onEnd: (err?: Error) => void, pollMs = 2000): LogTail {
  let closed = false;
  let mode: 'ws' | 'poll' = 'ws';
  let seen = 0;
  let timer: NodeJS.Timeout | undefined;
  let opened = false;
  const ws = new WebSocket(client.tailUrl(id), { handshakeTimeout: 10_000 });
  const finish = (err?: Error) => {
    if (closed) return;
    closed = true;
    if (timer) clearTimeout(timer);
    onEnd(err);
  };
  const poll = async () => {
    if (closed) return;
    try {
      const text = await client.logs(id);
      if (text.length > seen) {
        onChunk(text.slice(seen));
        seen = text.length;
      }
      const job = await client.job(id);
      if (['STOPPED', 'SUCCEEDED', 'FAILED'].includes(job.status)) {
        const again = await client.logs(id);
        if (again.length > seen) onChunk(again.slice(seen));
        return finish();
      }
    } catch (e) {
      return finish(e as Error);
    }
    timer = setTimeout(() => void poll(), pollMs);
  };
  ws.on('open', () => (opened = true));
  ws.on('message', (data) => {
    const text = (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)).toString();
    seen += text.length;
    onChunk(text);
  });
  ws.on('error', () => {
    /* handled in close */
  });
  ws.on('close', () => {
    if (closed) return;
    // Not opened (no WebSocket there), or closed early (Ray closes the tail of a job that has
    // not started yet): the plain GET picks up from what was already shown and ends with the job.
    if (!opened) mode = 'poll';
    void poll();
  });
  return {
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      ws.terminate();
    },
    get mode() {
      return mode;
    },
  };
}
