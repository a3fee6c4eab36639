// `agentrl tail <url>`: a terminal client of the relay, built on the same RelayClient as the
// extension (reconnects and resumes from its cursors). Prints points as they arrive.
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import { PointsBatch, RelayClient } from '../../relay-protocol/client';
import { envToken, readToken } from '../cli';
import { credentialInUrl } from '../serve/auth';

export const TAIL_USAGE = `Usage: agentrl tail <url> [options]

Prints the points streamed by an 'agentrl relay' (reconnecting and resuming as needed).

Options:
  --token-file FILE   bearer token (or env AGENTRL_RELAY_TOKEN)
  --ca FILE           CA certificate (PEM) to trust for a wss:// relay with its own certificate
  --json              one JSON object per point and line:
                      {"run", "role", "tag", "step", "wall_time", "value"}
  --run NAME          only this run (repeatable)
  --tag REGEX         only tags matching this regular expression
  --experiences       also print experience rows (as {"experience": {...}} in --json mode)
  --until-idle S      exit 0 after S seconds without new data

Exit codes: 0 done (idle or interrupted), 1 relay not reachable in time, 2 bad usage,
3 unauthorized (the relay refused the token, origin or URL).
`;

/** Exit code when the relay refuses us (HTTP 400/401/403): retrying cannot help. */
export const EXIT_UNAUTHORIZED = 3;

function fail(msg: string): number {
  process.stderr.write(`agentrl tail: ${msg}\n`);
  return 2;
}

/** JSON numbers cannot be NaN/Infinity: those are printed as strings, like the protocol does. */
function jsonValue(v: number): number | string {
  return Number.isFinite(v) ? v : String(v);
}

/** One point as tail prints it (its own per-point formatting: the client hands on columns). */
export interface TailPoint {
  run: string;
  role: string;
  tag: string;
  step: number;
  wallTime: number;
  value: number;
}

export function formatPoint(p: TailPoint, json: boolean): string {
  if (json) {
    return JSON.stringify({ run: p.run, role: p.role, tag: p.tag, step: p.step, wall_time: p.wallTime, value: jsonValue(p.value) });
  }
  return `${p.run}${p.role ? `/${p.role}` : ''}  ${p.tag}  step=${p.step}  ${p.value}`;
}

/** The lines of a batch: its points tag by tag, each tag's in the order the source wrote them. */
export function batchLines(b: PointsBatch, json: boolean, tagRe?: RegExp): string[] {
  const lines: string[] = [];
  for (const s of b.series) {
    if (tagRe && !tagRe.test(s.tag)) continue;
    for (let i = 0; i < s.step.length; i++)
      lines.push(formatPoint({ run: b.run, role: b.role, tag: s.tag, step: s.step[i], wallTime: s.wallTime[i], value: s.value[i] }, json));
  }
  return lines;
}

export async function main(argv: string[]): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        'token-file': { type: 'string' },
        ca: { type: 'string' },
        json: { type: 'boolean', default: false },
        run: { type: 'string', multiple: true },
        tag: { type: 'string' },
        experiences: { type: 'boolean', default: false },
        'until-idle': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    return fail(`${(e as Error).message}\n\n${TAIL_USAGE}`);
  }
  if (values.help) {
    process.stdout.write(TAIL_USAGE);
    return 0;
  }
  if (positionals.length !== 1) return fail(`expected one relay URL\n\n${TAIL_USAGE}`);
  const url = positionals[0];
  if (!/^wss?:\/\//.test(url)) return fail(`'${url}' is not a ws:// or wss:// URL`);
  if (credentialInUrl(url)) return fail('do not put the token in the URL: use --token-file or AGENTRL_RELAY_TOKEN');
  let token: string | undefined;
  let tagRe: RegExp | undefined;
  let idleMs: number | undefined;
  let ca: Buffer | undefined;
  try {
    token = values['token-file'] !== undefined ? readToken(values['token-file']) : envToken();
    if (values.tag !== undefined) tagRe = new RegExp(values.tag);
    if (values['until-idle'] !== undefined) {
      idleMs = Number(values['until-idle']) * 1000;
      if (!Number.isFinite(idleMs) || idleMs <= 0) throw new Error(`--until-idle must be a positive number of seconds, got '${values['until-idle']}'`);
    }
    if (values.ca !== undefined) ca = fs.readFileSync(values.ca);
  } catch (e) {
    return fail((e as Error).message);
  }
  const json = values.json;
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const client = new RelayClient({ url, token, ca, runs: values.run, experiences: values.experiences });

  return new Promise<number>((resolve) => {
    let idleTimer: NodeJS.Timeout | undefined;
    let gotHello = false;
    let exitCode = 0;
    let finished = false;
    // Once only: client.close() emits 'closed', whose handler lands here again.
    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      if (idleTimer) clearTimeout(idleTimer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      void client.close().then(() => resolve(code));
    };
    const onSignal = () => finish(exitCode);
    const armIdle = () => {
      if (idleMs === undefined) return;
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        if (!gotHello) {
          process.stderr.write(`agentrl tail: could not reach the relay at ${url} within ${idleMs / 1000} s\n`);
          finish(1);
        } else finish(0);
      }, idleMs);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    client.on('hello', (h) => {
      gotHello = true;
      if (!json) process.stderr.write(`agentrl tail: connected to relay ${h.relayVersion} (${h.sources.length} sources; runs: ${h.runs.join(', ') || '-'})\n`);
    });
    client.on('points', (b) => {
      const lines = batchLines(b, json, tagRe);
      if (lines.length) process.stdout.write(`${lines.join('\n')}\n`);
      armIdle();
    });
    client.on('experiences', (m) => {
      if (values.experiences)
        for (const r of m.rows)
          out(
            json
              ? JSON.stringify({ experience: { run: m.run, ...r } })
              : `${m.run}  experience ${r.table}#${r.id} task=${r.task_id} run=${r.run_id} v=${r.model_version} reward=${r.reward}`,
          );
      armIdle();
    });
    client.on('error', (e) => {
      if (e.kind === 'auth') {
        const what =
          e.status === 401
            ? 'unauthorized (missing or wrong token: --token-file or AGENTRL_RELAY_TOKEN)'
            : e.status === 403
              ? 'unauthorized (origin refused)'
              : 'unauthorized (request refused)';
        process.stderr.write(`agentrl tail: ${what}: ${e.message}\n`);
        exitCode = EXIT_UNAUTHORIZED;
        return;
      }
      process.stderr.write(`agentrl tail: ${e.message}\n`);
    });
    client.on('state', (s) => {
      if (s.state === 'backoff') process.stderr.write(`agentrl tail: disconnected (${s.reason}); reconnecting in ${s.delayMs} ms\n`);
      if (s.state === 'closed' && exitCode !== 0) finish(exitCode);
    });
    armIdle();
    client.start();
  });
}
