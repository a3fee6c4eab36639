// `agentrl pipeline`: where a run's time goes, in a terminal or CI — the bottleneck and since
// when, each role's shares, the config keys to change and what is missing. From a job dir (read
// here, with the relay's own readers) or from a running relay's URL (its backlog, until it says
// it has caught up). The analysis is src/pipeline/, the same the metrics view shows.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { type L10n, english } from '../../base/l10n';
import { RelayClient } from '../../relay-protocol/client';
import { readRunConfig } from '../../pipeline/advice';
import { pipelineReport, reportJson } from '../../pipeline/report';
import { StepTable } from '../../pipeline/step-table';
import { reportText } from '../../pipeline/text';
import { envToken, readToken } from '../cli';
import { credentialInUrl } from '../serve/auth';
import { readJobScalars } from './job-points';

export const PIPELINE_USAGE = `Usage: agentrl pipeline (--job-dir DIR | <url>) [options]

Where a run's time goes: each role's share of waiting, computing, weight sync, checkpoints and
eval over a window of steps, the bottleneck (and since which step), what to change in the
run's config, and which metrics are missing.

Options:
  --job-dir DIR       a Trinity job directory (read here; its config.json gives the advice values)
  <url>               a running 'agentrl relay' (ws:// or wss://)
  --from STEP         first step of the window (default: the first logged)
  --to STEP           last step of the window (default: the last logged)
  --json              print {"steps": [first, last], "bottleneck", "shares": {"trainer":
                      {"wait_experience", "compute", "sync_weight", "checkpoint"}, "explorer":
                      {"generate", "wait_stragglers", "wait_sync", "eval"}}, "advice": [{"key",
                      "now", "suggest"}], "missing": [tags], "since", "changes", "evidence",
                      "enable", "other", "problems", "throughput", "timeline": {"path", "bytes"}
                      or null (a job dir without Ray's timeline.json)} (absent shares null)
  --run NAME          with <url>: the run to read (default: the relay's first; a job dir's stages
                      are runs of their own)
  --token-file FILE   bearer token for <url> (or env AGENTRL_RELAY_TOKEN)
  --ca FILE           CA certificate (PEM) for a wss:// relay with its own certificate
  --lang en|zh-cn     language of the text (default en)

Exit codes: 0 printed (also when the bottleneck is unknown: see "missing"), 1 not readable
(no such job dir, relay unreachable), 2 bad usage.
`;

const WAIT_MS = 30_000;

function usageError(msg: string): number {
  process.stderr.write(`agentrl pipeline: ${msg}\n\n${PIPELINE_USAGE}`);
  return 2;
}

function failure(msg: string): number {
  process.stderr.write(`agentrl pipeline: ${msg}\n`);
  return 1;
}

function stepArg(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a step number (a non-negative integer), got '${v}'`);
  return n;
}

/** The zh-cn bundle we ship (l10n/, walking up from this file: dist/ in the package, out/src/... under tsc). */
export function languageOf(locale: string): L10n {
  if (!locale.startsWith('zh')) return english;
  for (let dir = __dirname, i = 0; i < 6; i++, dir = path.dirname(dir)) {
    const file = path.join(dir, 'l10n', 'bundle.l10n.zh-cn.json');
    if (!fs.existsSync(file)) continue;
    const bundle = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    return { t: (message, ...args) => english.t(bundle[message] ?? message, ...args) };
  }
  return english;
}

export async function main(argv: string[]): Promise<number> {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        'job-dir': { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        json: { type: 'boolean', default: false },
        run: { type: 'string' },
        'token-file': { type: 'string' },
        ca: { type: 'string' },
        lang: { type: 'string', default: 'en' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (e) {
    return usageError((e as Error).message);
  }
  if (values.help) {
    process.stdout.write(PIPELINE_USAGE);
    return 0;
  }
  const jobDir = values['job-dir'];
  const url = positionals[0];
  if ((jobDir === undefined) === (url === undefined) || positionals.length > 1) return usageError('give either --job-dir DIR or one relay URL');
  if (url !== undefined && !/^wss?:\/\//.test(url)) return usageError(`'${url}' is not a ws:// or wss:// URL`);
  if (url !== undefined && credentialInUrl(url)) return usageError('do not put the token in the URL: use --token-file or AGENTRL_RELAY_TOKEN');
  const locale = String(values.lang).toLowerCase();
  if (locale !== 'en' && locale !== 'zh-cn') return usageError(`--lang must be en or zh-cn (got '${locale}')`);
  let from: number | undefined;
  let to: number | undefined;
  try {
    from = stepArg(values.from, '--from');
    to = stepArg(values.to, '--to');
    if (from !== undefined && to !== undefined && from > to) throw new Error(`--from ${from} is after --to ${to}`);
  } catch (e) {
    return usageError((e as Error).message);
  }

  const table = new StepTable();
  const add = (role: string, tag: string, step: number, wall: number | undefined, value: number) => table.add(role, tag, step, wall, value);
  let config;
  if (jobDir !== undefined) {
    try {
      const read = readJobScalars(jobDir, add);
      for (const f of read.failures) process.stderr.write(`agentrl pipeline: could not read ${f}\n`);
      if (!read.roles.length)
        process.stderr.write(`agentrl pipeline: no event files (monitor/tensorboard/<role>/) nor log/<role>.log in ${path.resolve(jobDir)}\n`);
    } catch (e) {
      return failure(`cannot read the job dir: ${(e as Error).message}`);
    }
    config = readRunConfig(jobDir);
  } else {
    let token: string | undefined;
    let ca: Buffer | undefined;
    try {
      token = values['token-file'] !== undefined ? readToken(values['token-file']) : envToken();
      if (values.ca !== undefined) ca = fs.readFileSync(values.ca);
    } catch (e) {
      return usageError((e as Error).message);
    }
    const problem = await readRelay(url, { token, ca, run: values.run }, add);
    if (problem) return failure(problem);
    config = { reason: 'the run is read through a relay URL: its config is not on this machine' };
  }
  const report = pipelineReport(table, { from, to, config });
  const l10n = languageOf(locale);
  const timeline = jobDir !== undefined ? rayTimeline(jobDir) : undefined;
  if (values.json) process.stdout.write(`${JSON.stringify({ ...reportJson(report), ...(timeline !== undefined ? { timeline } : {}) })}\n`);
  else {
    let text = reportText(l10n, report);
    if (timeline === null) text += `${l10n.t('No Ray timeline (monitor/timeline.json): monitor.enable_ray_timeline: true makes Trinity write one.')}\n`;
    else if (timeline) text += `${l10n.t('Ray timeline: {0} ({1} MB)', timeline.path, (timeline.bytes / 1048576).toFixed(1))}\n`;
    process.stdout.write(text);
  }
  return 0;
}

/** Trinity's Ray timeline (`monitor.enable_ray_timeline`) in the job dir, or null when it has none. */
function rayTimeline(jobDir: string): { path: string; bytes: number } | null {
  const rel = 'monitor/timeline.json';
  try {
    const st = fs.statSync(path.join(jobDir, rel));
    return st.isFile() ? { path: rel, bytes: st.size } : null;
  } catch {
    return null;
  }
}

/** Streams the relay's backlog into `add` until it says it has caught up; a problem, or undefined. */
async function readRelay(
  url: string,
  opts: { token?: string; ca?: Buffer; run?: string },
  add: (role: string, tag: string, step: number, wall: number | undefined, value: number) => void,
): Promise<string | undefined> {
  const client = new RelayClient({
    url,
    token: opts.token,
    ca: opts.ca,
    ...(opts.run !== undefined ? { runs: [opts.run] } : {}),
    experiences: false,
    backoff: { initialMs: 100, maxMs: 1000 },
  });
  try {
    return await new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(`the relay at ${url} did not send its backlog within ${WAIT_MS / 1000} s`), WAIT_MS);
      const done = (problem: string | undefined) => {
        clearTimeout(timer);
        resolve(problem);
      };
      // One run: the steps of two runs (a job's stages) are not the same steps.
      let run = opts.run;
      client.on('hello', (h) => {
        run ??= h.runs[0];
        if (h.runs.length > 1 && opts.run === undefined)
          process.stderr.write(`agentrl pipeline: reading run ${run} (the relay has ${h.runs.join(', ')}; --run picks another)\n`);
      });
      client.on('points', (b) => {
        if (b.run !== run) return;
        for (const s of b.series) for (let i = 0; i < s.step.length; i++) add(b.role, s.tag, s.step[i], s.wallTime[i], s.value[i]);
      });
      client.on('heartbeat', (h) => {
        if (h.caughtUp) done(undefined);
      });
      client.on('error', (e) => {
        if (e.kind === 'auth') done(`unauthorized: ${e.message}`);
      });
      client.start();
    });
  } finally {
    await client.close();
  }
}
