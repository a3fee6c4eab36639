// The marker `npm start` leaves in its sandbox copy of the sample workspace
// (`.agentrl/sandbox.json`): the sandbox's model endpoint and the demo run's job dir. The
// extension reads it to connect the metrics view to the demo, to open the walkthrough on
// first start, and to point new launch entries at a model that answers. No vscode import.
import * as fs from 'node:fs';
import * as path from 'node:path';

const SANDBOX_MARKER = '.agentrl/sandbox.json';
/** The demo run's endpoint name, in every UI that shows it. */
export const DEMO_NAME = 'demo: simulated trainer';

export interface SandboxMarker {
  /** When this copy was made (the walkthrough opens once per copy). */
  created?: string;
  /** OpenAI-compatible base URL of the sandbox's model (e.g. http://127.0.0.1:8089/v1). */
  model?: string;
  /** That model's folder (its tokenizer): a demo run started in the sandbox names it in its config. */
  modelPath?: string;
  /** The demo run (demo/demo_trainer.py) started by `npm start`. */
  demo?: { jobDir: string; name: string };
}

/** The marker of a workspace folder, or undefined (missing or malformed: ignored). */
export function readSandboxMarker(folder: string): SandboxMarker | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(path.join(folder, SANDBOX_MARKER), 'utf8'));
  } catch {
    return undefined;
  }
  if (!raw || typeof raw !== 'object') return undefined;
  const o = raw as Record<string, unknown>;
  const out: SandboxMarker = {};
  if (typeof o.created === 'string') out.created = o.created;
  if (typeof o.model === 'string' && /^https?:\/\//.test(o.model)) out.model = o.model;
  if (typeof o.modelPath === 'string' && path.isAbsolute(o.modelPath)) out.modelPath = o.modelPath;
  const d = o.demo as Record<string, unknown> | undefined;
  if (d && typeof d.jobDir === 'string' && typeof d.name === 'string') out.demo = { jobDir: path.resolve(folder, d.jobDir), name: d.name };
  return out;
}

/** True when GET <baseUrl>/models answers 200 within `timeoutMs`. */
export async function modelAnswers(baseUrl: string, timeoutMs = 1500): Promise<boolean> {
  try {
    const r = await fetch(`${baseUrl.replace(/\/+$/, '')}/models`, { signal: AbortSignal.timeout(timeoutMs) });
    return r.ok;
  } catch {
    return false;
  }
}

/** The first endpoint of `candidates` that answers (in order), or undefined. */
export async function firstAnswering(candidates: readonly string[], probe: (u: string) => Promise<boolean> = modelAnswers): Promise<string | undefined> {
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c)) continue;
    seen.add(c);
    if (await probe(c)) return c;
  }
  return undefined;
}

/** Where `npm start` serves the tiny model by default. */
export const SANDBOX_FALLBACK_URL = 'http://127.0.0.1:8089/v1';
