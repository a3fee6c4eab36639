// Where an explorer URL comes from and whether it is safe to use: the URL file Trinity's
// serve-mode explorer writes into its job dir, and the warning an unauthenticated explorer
// deserves when it is reached over plain http on a non-loopback address.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { normalizeExplorerUrl } from './explorer-client';

/** `<job>/<explorer.name>_server_url.txt` files in a job dir (Explorer.serve writes one). */
export function findServerUrlFiles(jobDir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(jobDir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.endsWith('_server_url.txt'))
    .sort()
    .map((n) => path.join(jobDir, n));
}

/** The URL in such a file, normalized; undefined when empty or not a URL. */
export function readServerUrlFile(file: string): string | undefined {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return text ? normalizeExplorerUrl(text.split(/\s+/)[0]) : undefined;
  } catch {
    return undefined;
  }
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\]|::1)$/i;

export interface UrlRisk {
  /** plain http to a non-loopback host: prompts and rewards travel unencrypted and anyone on
   *  the network can call /feedback and /commit (the explorer has no authentication) */
  exposed: boolean;
  host: string;
  port: number;
  /** an SSH local forward that makes the explorer reachable on loopback instead */
  tunnelCommand?: string;
  tunnelUrl?: string;
}

export function assessUrl(url: string, localPort?: number): UrlRisk {
  const u = new URL(normalizeExplorerUrl(url));
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  const exposed = u.protocol === 'http:' && !LOOPBACK.test(u.hostname);
  if (!exposed) return { exposed, host: u.hostname, port };
  const lp = localPort ?? port;
  return {
    exposed,
    host: u.hostname,
    port,
    tunnelCommand: `ssh -N -L ${lp}:127.0.0.1:${port} <user>@${u.hostname}`,
    tunnelUrl: `http://127.0.0.1:${lp}`,
  };
}
