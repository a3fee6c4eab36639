// "Tools: from the workflow" in the playground: the tool lists a workflow really offered its
// model, read from the requests the rollout debugger recorded (.agentrl/runs/<id>/recording.jsonl),
// so chatting with the served model uses exactly the schemas the agent code sends — not a copy
// that drifts. Pure: files only. Newest runs first; one entry per distinct tool set.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LAUNCH_FILE, RECORDING_FILE, RUNS_DIR } from '../../workspace-files/run-files';

/** An OpenAI function tool, as sent in a chat-completions request. */
export interface FunctionTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; [k: string]: unknown };
}

export interface WorkflowTools {
  /** The run the tools were recorded in. */
  run: string;
  /** The launch configuration's name (or the workflow), for the picker. */
  source?: string;
  names: string[];
  tools: FunctionTool[];
}

/** Reads at most this much of a recording: the first request with tools is near the start. */
const HEAD_BYTES = 4 * 2 ** 20;

function isFunctionTool(t: unknown): t is FunctionTool {
  const f = (t as { function?: { name?: unknown } } | null)?.function;
  return !!t && typeof t === 'object' && (t as { type?: unknown }).type === 'function' && !!f && typeof f.name === 'string';
}

function readHead(file: string): string {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(Math.min(HEAD_BYTES, fs.fstatSync(fd).size));
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The first tool list in a recording (a torn or foreign line is skipped, never fatal). */
function toolsInRecording(file: string): FunctionTool[] | undefined {
  for (const line of readHead(file).split('\n')) {
    if (!line.includes('"tools"')) continue;
    try {
      const tools = (JSON.parse(line) as { request?: { tools?: unknown } }).request?.tools;
      if (Array.isArray(tools) && tools.length && tools.every(isFunctionTool)) return tools;
    } catch {
      // a line cut by a run still writing
    }
  }
  return undefined;
}

function launchName(dir: string): string | undefined {
  try {
    const l = JSON.parse(fs.readFileSync(path.join(dir, LAUNCH_FILE), 'utf8')) as { name?: unknown; workflow?: unknown };
    return typeof l.name === 'string' ? l.name : typeof l.workflow === 'string' ? l.workflow : undefined;
  } catch {
    return undefined;
  }
}

/** Distinct tool sets recorded under `root` (a workspace folder), newest run first. */
export function workflowToolsFromRuns(root: string, maxRuns = 50): WorkflowTools[] {
  const base = path.join(root, RUNS_DIR);
  let ids: string[];
  try {
    ids = fs.readdirSync(base).sort().reverse().slice(0, maxRuns);
  } catch {
    return [];
  }
  const seen = new Set<string>();
  const out: WorkflowTools[] = [];
  for (const id of ids) {
    const dir = path.join(base, id);
    const tools = toolsInRecording(path.join(dir, RECORDING_FILE));
    if (!tools) continue;
    const key = JSON.stringify(tools);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ run: id, source: launchName(dir), names: tools.map((t) => t.function.name), tools });
  }
  return out;
}
