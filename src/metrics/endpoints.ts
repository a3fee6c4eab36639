// Where the endpoints come from: the `agentrl.metrics.endpoints` setting ([{name, url, run?}])
// and the connections made with "Connect to Training Run…" (kept in workspace state); tokens
// live in SecretStorage, keyed by URL, never in settings.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Revive } from '../feature-api/commands';
import type { EndpointSpec } from './connect/connections';

export const ENDPOINTS_SETTING = 'agentrl.metrics.endpoints';
const SAVED_KEY = 'agentrl.metrics.connections';

export interface SavedConnection {
  name: string;
  url?: string;
  dir?: string;
  mode?: 'job' | 'logdir';
  run?: string;
  /** PEM file with the CA (or the self-signed certificate) of a wss:// relay. */
  caFile?: string;
  /** How to bring the relay back when it is gone (a Ray relay job that ended itself). */
  revive?: Revive;
}

export const tokenKey = (url: string) => `agentrl.metrics.token:${url}`;

export function endpointId(c: SavedConnection): string {
  return c.url ? `url:${c.url}` : `local:${c.dir}`;
}

/** Endpoints from the setting, ignoring malformed entries (reported through `warn`). */
function settingEndpoints(warn: (m: string) => void): SavedConnection[] {
  const raw = vscode.workspace.getConfiguration().get<unknown>(ENDPOINTS_SETTING);
  if (!Array.isArray(raw)) return [];
  const out: SavedConnection[] = [];
  for (const e of raw) {
    const o = e as Record<string, unknown>;
    if (typeof o?.url !== 'string' || !/^wss?:\/\/./.test(o.url)) {
      warn(vscode.l10n.t('Ignoring an entry of {0} without a ws:// or wss:// url', ENDPOINTS_SETTING));
      continue;
    }
    const caFile = typeof o.caFile === 'string' && o.caFile ? o.caFile : undefined;
    out.push({ name: typeof o.name === 'string' && o.name ? o.name : o.url, url: o.url, run: typeof o.run === 'string' && o.run ? o.run : undefined, caFile });
  }
  return out;
}

export function savedConnections(state: vscode.Memento): SavedConnection[] {
  return state.get<SavedConnection[]>(SAVED_KEY, []);
}

export async function saveConnection(state: vscode.Memento, c: SavedConnection): Promise<void> {
  const list = savedConnections(state).filter((x) => endpointId(x) !== endpointId(c));
  list.push(c);
  await state.update(SAVED_KEY, list);
}

export async function forgetConnection(state: vscode.Memento, id: string): Promise<void> {
  await state.update(
    SAVED_KEY,
    savedConnections(state).filter((x) => endpointId(x) !== id),
  );
}

/** A directory's relay mode: a Trinity job dir (monitor/tensorboard, log/, buffer/) or a plain logdir. */
export function detectMode(dir: string): 'job' | 'logdir' {
  const has = (p: string) => fs.existsSync(path.join(dir, p));
  return has('monitor/tensorboard') || has('buffer') || has('log') ? 'job' : 'logdir';
}

/** The endpoint's CA file (relative to the first workspace folder); a clear warning when unreadable. */
function readCa(c: SavedConnection, warn: (m: string) => void): string | undefined {
  if (!c.caFile) return undefined;
  const base = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
  const file = path.resolve(base, c.caFile.replace(/^~(?=\/|$)/, process.env.HOME ?? '~'));
  try {
    const pem = fs.readFileSync(file, 'utf8');
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate in it');
    return pem;
  } catch (e) {
    warn(vscode.l10n.t('Cannot use the CA file {0} of {1}: {2}', file, c.name, (e as Error).message));
    return undefined;
  }
}

/** All endpoints with their tokens (settings first; duplicates by id dropped). */
export async function resolveEndpoints(state: vscode.Memento, secrets: vscode.SecretStorage, warn: (m: string) => void): Promise<EndpointSpec[]> {
  const seen = new Set<string>();
  const out: EndpointSpec[] = [];
  for (const c of [...settingEndpoints(warn), ...savedConnections(state)]) {
    const id = endpointId(c);
    if (seen.has(id)) continue;
    seen.add(id);
    if (c.url)
      out.push({ id, name: c.name, url: c.url, token: (await secrets.get(tokenKey(c.url))) || undefined, run: c.run, ca: readCa(c, warn), revive: c.revive });
    else if (c.dir) out.push({ id, name: c.name, local: { dir: c.dir, mode: c.mode ?? detectMode(c.dir), run: c.run }, run: c.run });
  }
  return out;
}
