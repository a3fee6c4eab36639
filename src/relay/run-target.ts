// Where a terminal client of the relay reads a run — a job directory, read here by an
// in-process relay on loopback (the same code that serves the editor), or a running relay's URL
// with its token and CA — checked the same way by every such command (agentrl tokens, tasks,
// pipeline).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '../base/log';
import type { RelayClient } from '../relay-protocol/client';
import type { SourceInfo } from '../relay-protocol/messages';
import { envToken, readToken } from './cli';
import { credentialInUrl } from './serve/auth';
import { RELAY_DEFAULTS, Relay } from './serve/relay';

export type RunTarget =
  { jobDir: string; url?: undefined; token?: undefined; ca?: undefined } | { jobDir?: undefined; url: string; token?: string; ca?: Buffer };

/** The options these commands share (parseArgs values). */
export interface TargetOptions {
  'job-dir'?: string;
  'token-file'?: string;
  ca?: string;
}

/** The run to read, or what is wrong: `usage` (exit 2) or `failure` (exit 1). */
export function runTarget(values: TargetOptions, positionals: string[]): RunTarget | { usage: string } | { failure: string } {
  const jobDir = values['job-dir'];
  if ((jobDir === undefined) === (positionals.length === 0) || positionals.length > 1) return { usage: 'give either --job-dir DIR or one relay URL' };
  if (jobDir !== undefined) return fs.statSync(jobDir, { throwIfNoEntry: false })?.isDirectory() ? { jobDir } : { failure: `${jobDir} is not a directory` };
  const url = positionals[0];
  if (!/^wss?:\/\//.test(url)) return { usage: `'${url}' is not a ws:// or wss:// URL` };
  if (credentialInUrl(url)) return { usage: 'do not put the token in the URL: use --token-file or AGENTRL_RELAY_TOKEN' };
  try {
    const token = values['token-file'] !== undefined ? readToken(values['token-file']) : envToken();
    return { url, token, ca: values.ca !== undefined ? fs.readFileSync(values.ca) : undefined };
  } catch (e) {
    return { usage: (e as Error).message };
  }
}

/** A relay of one job directory on loopback, for one client (nothing is started elsewhere). */
export function inProcessRelay(jobDir: string): Relay {
  return new Relay({
    ...RELAY_DEFAULTS,
    root: { mode: 'job', dir: path.resolve(jobDir) },
    port: 0,
    token: undefined,
    allowOrigins: [],
    log: silentLogger,
    maxClients: 1,
  });
}

/** The experience buffer to read: the source named, else the SQL buffer, else the first JSON-lines one. */
export function pickExperienceSource(sources: SourceInfo[], wanted: string | undefined): SourceInfo | undefined {
  if (wanted !== undefined) return sources.find((s) => s.id === wanted);
  return sources.find((s) => s.kind === 'sql') ?? sources.find((s) => s.kind === 'jsonl');
}

/** Failed connections in a row, before the relay ever answered, after which it is said unreachable
 *  (with the clients' backoff from 100 ms: well under a second for a port where nothing listens). */
const CONNECT_TRIES = 3;

/** Calls `refused` with why the relay at `url` cannot be used, as soon as that is certain: it
 *  refused the token, or CONNECT_TRIES connections failed before it ever answered (a dead
 *  address, said at once rather than after the whole wait). It may be called again: the first counts. */
export function onRefusal(c: RelayClient, url: string, refused: (why: string) => void): void {
  let failed = 0;
  let answered = false;
  c.on('hello', () => (answered = true));
  c.on('error', (e) => {
    if (e.kind === 'auth') return refused(e.message);
    if (e.kind !== 'connection' || answered || ++failed < CONNECT_TRIES) return;
    refused(`cannot reach the relay at ${url} (${e.message}; ${failed} attempts): is it running, and is that its address?`);
  });
}
