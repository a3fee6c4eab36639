// `npm run bench -- relay-hostile`: each relay (node, python3.8, python3: whichever is installed;
// AGENTRL_RELAY_CMD for another) under hostile clients, one at a time, for HOSTILE_SECONDS each
// (default 30), while a well-behaved client follows a run written at 1000 scalars/s and asks for
// a few points of a tag every 250 ms. The hostile clients (relay-hostile-client.ts), each
// connecting again whenever it is cut off:
// - `stopped`: stops reading and floods small `detail` requests;
// - `detail`: reads every answer but keeps 8 `detail` requests for every point of a 50 k-step
//   tag in flight;
// - `tokens`: reads every answer but keeps 8 `tokens` requests in flight for a heavy row (32 k
//   tokens, 20 k messages, written by Trinity-RFT's own SQL writer; skipped without Trinity).
// HOSTILE_FLOODERS picks some (comma-separated). Peer: the same relay and client without a
// hostile client, just before. Targets: the relay's RSS ≤ 200 MB, the well-behaved client's p99
// point latency ≤ 250 ms, and its answers' p99 ≤ 250 ms.
// Ends with one line per relay and flooder: BENCH relay-hostile relay=… flooder=… rss_max_mb=…
// p99_ms=… answer_p99_ms=… p99_quiet_ms=… requests=… answers=… cuts=…
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TagPoints } from '../../src/relay-protocol/messages';
import { TAGS, appendSteps } from '../component/relay/appender';
import { noTrinity } from '../component/relay/trinity-sql-writer';
import { RELAY_RUNTIMES, launchRelay, relayCommand, relaySkipReason, relayUnderTest, type RelayProc } from '../harness/relay';
import { WireClient, helloFrom, rssMiB } from '../harness/relay-wire';
import { writeTokenRows } from '../harness/trinity-token-rows';
import { sleep } from '../harness/wait';

const SECONDS = Number(process.env.HOSTILE_SECONDS ?? 30);
const QUIET_SECONDS = Math.min(20, SECONDS);
const FLOODERS = (process.env.HOSTILE_FLOODERS ?? 'stopped,detail,tokens').split(',').filter(Boolean);
const RATE = 1000;
const BACKLOG_STEPS = 50_000;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;

interface Phase {
  p50: number;
  p99: number;
  answerP99: number;
  answersGood: number;
  points: number;
  written: number;
  rssMax: number;
  requests: number;
  answers: number;
  cuts: number;
}

interface Job {
  dir: string;
  backlog: string;
  live: string;
  heavyRow: number | undefined;
}

/** A job dir: a 50 k-step backlog event file, an empty live one, and (with Trinity) a buffer with a heavy row. */
function makeJob(): Job {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-hostile-'));
  const tb = path.join(dir, 'monitor', 'tensorboard');
  for (const role of ['backlog', 'live']) fs.mkdirSync(path.join(tb, role), { recursive: true });
  const backlog = path.join(tb, 'backlog', 'events.out.tfevents.1.backlog');
  appendSteps(backlog, 0, BACKLOG_STEPS);
  const live = path.join(tb, 'live', 'events.out.tfevents.2.live');
  fs.writeFileSync(live, '');
  let heavyRow: number | undefined;
  if (!noTrinity && FLOODERS.includes('tokens')) {
    const n = 32_768;
    const long = path.join(os.tmpdir(), `relay-hostile-row-${process.pid}.json`);
    const messages = Array.from({ length: 20_000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}: ${'x'.repeat(40)}` }));
    fs.writeFileSync(
      long,
      JSON.stringify({
        tokens: Array.from({ length: n }, (_, i) => (i * 7919) % 32000),
        prompt_length: 1024,
        logprobs: Array(n).fill(-0.5),
        action_mask: Array(n).fill(1),
        advantages: Array(n).fill(0.25),
        response_text: 'y'.repeat(100_000),
        messages,
      }),
    );
    const { rows } = writeTokenRows(path.join(dir, 'trinity'), long);
    fs.rmSync(long);
    fs.renameSync(path.join(dir, 'trinity', 'buffer'), path.join(dir, 'buffer'));
    heavyRow = rows.find((r) => !r.crafted && r.tokens.length === n)?.id;
  }
  return { dir, backlog, live, heavyRow };
}

/** The well-behaved client's latencies while the writer appends for `seconds` (with the flooder `mode` unless 'quiet'). */
async function phase(relay: RelayProc, good: WireClient, job: Job, seconds: number, mode: string): Promise<Phase> {
  const lat: number[] = [];
  const answerLat: number[] = [];
  const seen = good.messages.length;
  let requests = 0;
  let cuts = 0;
  let answers = 0;
  let child;
  const sources = good.of('hello')[0].sources as { id: string; path: string; kind: string }[];
  const backlog = sources.find((s) => s.path.includes('backlog'))!.id;
  const st = fs.statSync(job.backlog);
  if (mode !== 'quiet') {
    const args =
      mode === 'tokens' ? [sources.find((s) => s.kind === 'sql')!.id, String(job.heavyRow)] : [backlog, `${st.dev}:${st.ino}`, String(st.size), TAGS[0]];
    child = spawn(process.execPath, [path.join(__dirname, 'relay-hostile-client.js'), relay.url, mode, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (b: Buffer) => {
      [requests, cuts, answers] = String(b).trim().split('\n').pop()!.split(' ').map(Number);
    });
    await sleep(3000); // it takes its backlog, then floods
  }
  const writer = spawn(process.execPath, [path.join(__dirname, 'relay-writer.js'), job.live, String(RATE), String(seconds)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let written = 0;
  writer.stdout.on('data', (b) => (written = Number(String(b).trim())));
  let rssMax = 0;
  // In MB (10^6 bytes), as the target is.
  const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMiB(relay.proc.pid!) * 1.048576)), 200);
  // The well-behaved client's own requests: a few points of a tag, one at a time, every 250 ms.
  const asked = new Map<number, number>();
  let next = 1_000_000;
  const ask = setInterval(() => {
    if (asked.size) return;
    asked.set(next, Date.now());
    good.send({
      type: 'detail',
      request: next++,
      source: backlog,
      tag: TAGS[0],
      from: 100,
      to: 110,
      maxPoints: 100,
      cursor: { source: backlog, fid: `${st.dev}:${st.ino}`, offset: st.size },
    });
  }, 250);
  let counted = seen;
  const collect = () => {
    const now = Date.now();
    for (; counted < good.messages.length; counted++) {
      const m = good.messages[counted];
      if (m.type === 'detail' && asked.has(m.request as number)) {
        answerLat.push(now - asked.get(m.request as number)!);
        asked.delete(m.request as number);
      }
      if (m.type !== 'points' || !String(m.source).includes('live')) continue;
      for (const s of m.series as TagPoints[]) for (const w of s.wallTime) lat.push(now - w * 1000);
    }
  };
  // Latency is taken when a message arrives: listen rather than poll.
  good.ws.on('message', collect);
  await new Promise((r) => writer.once('exit', r));
  clearInterval(ask);
  const deadline = Date.now() + 10_000;
  while ((lat.length < written || asked.size) && Date.now() < deadline) await sleep(50);
  // A request never answered counts as answered at the end.
  for (const t of asked.values()) answerLat.push(Date.now() - t);
  asked.clear();
  good.ws.off('message', collect);
  clearInterval(sampler);
  child?.kill('SIGTERM');
  return {
    p50: pct(lat, 50),
    p99: pct(lat, 99),
    answerP99: pct(answerLat, 99),
    answersGood: answerLat.length,
    points: lat.length,
    written,
    rssMax,
    requests,
    answers,
    cuts,
  };
}

/** Each relay to bench: [name, command line]. */
function relays(): [string, string[]][] {
  if (process.env.AGENTRL_RELAY_CMD?.trim()) return [['AGENTRL_RELAY_CMD', relayUnderTest()]];
  return RELAY_RUNTIMES.filter((r) => {
    const why = relaySkipReason(r);
    if (why) console.log(`relay-hostile: ${r} skipped: ${why}`);
    return !why;
  }).map((r) => {
    const cmd = relayCommand([], r);
    return [r, [cmd.file, ...cmd.args]];
  });
}

async function benchRelay(name: string, command: string[], job: Job): Promise<string[]> {
  const lines: string[] = [];
  const relay = await launchRelay(command, ['--job-dir', job.dir, '--poll-interval', '1000'], { env: process.env });
  try {
    const good = await helloFrom(relay.url);
    good.subscribe();
    await good.waitFor('the backlog', () => good.of('heartbeat').some((h) => h.caughtUp === true), 120_000);
    console.log(`relay-hostile [${name}]: ${QUIET_SECONDS} s quiet, then ${SECONDS} s with each hostile client; ${RATE} scalars/s written`);
    const quiet = await phase(relay, good, job, QUIET_SECONDS, 'quiet');
    console.log(
      `  quiet:   p50 ${quiet.p50.toFixed(1)} ms, p99 ${quiet.p99.toFixed(1)} ms (${quiet.points}/${quiet.written} points), answers p99 ${quiet.answerP99.toFixed(0)} ms; relay RSS ≤ ${quiet.rssMax.toFixed(0)} MB`,
    );
    for (const mode of FLOODERS) {
      if (mode === 'tokens' && job.heavyRow === undefined) {
        console.log(`  tokens: skipped (${noTrinity || 'no heavy row written'})`);
        continue;
      }
      const h = await phase(relay, good, job, SECONDS, mode);
      const met = (ok: boolean) => (ok ? 'met' : 'MISSED');
      console.log(
        `  ${mode.padEnd(8)} p50 ${h.p50.toFixed(1)} ms, p99 ${h.p99.toFixed(1)} ms (${h.points}/${h.written} points), answers p99 ${h.answerP99.toFixed(0)} ms (${h.answersGood}); relay RSS ≤ ${h.rssMax.toFixed(0)} MB; flooder: ${h.requests} requests, ${h.answers} answers read, cut off ${h.cuts} times`,
      );
      console.log(
        `           targets: RSS ≤ 200 MB (${met(h.rssMax <= 200)}), p99 ≤ 250 ms (${met(h.p99 <= 250)}), answers p99 ≤ 250 ms (${met(h.answerP99 <= 250)}), every point (${met(h.points >= h.written)})`,
      );
      lines.push(
        `BENCH relay-hostile relay=${name} flooder=${mode} rss_max_mb=${h.rssMax.toFixed(0)} p99_ms=${h.p99.toFixed(1)} answer_p99_ms=${h.answerP99.toFixed(0)} p99_quiet_ms=${quiet.p99.toFixed(1)} requests=${h.requests} answers=${h.answers} cuts=${h.cuts}`,
      );
    }
    good.close();
  } finally {
    await relay.stop();
  }
  return lines;
}

async function main(): Promise<void> {
  const job = makeJob();
  const lines: string[] = [];
  try {
    for (const [name, command] of relays()) lines.push(...(await benchRelay(name, command, job)));
  } finally {
    fs.rmSync(job.dir, { recursive: true, force: true });
  }
  console.log(`\n${lines.join('\n')}`);
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
