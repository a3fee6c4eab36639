// `npm run bench -- relay-hostile`: the relay under a hostile client — one that stops reading
// and floods small `detail` requests, and connects again whenever it is cut off — for 60 s
// (HOSTILE_SECONDS), while a well-behaved client follows a run written at 1000 scalars/s.
// Peer: the same relay and client, the same writer, without the hostile client, just before.
// Targets: the relay's RSS ≤ 200 MB, the well-behaved client's p99 point latency ≤ 250 ms.
// The relay is the one relay.ts launches (AGENTRL_RELAY_CMD to bench another runtime).
// Ends with: BENCH relay-hostile rss_max_mb=… p99_ms=… p99_quiet_ms=… p99_ratio=… requests=… cuts=…
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TAGS, appendSteps } from '../component/relay/appender';
import { launchRelay, relayUnderTest, type RelayProc } from '../harness/relay';
import { WireClient, helloFrom, rssMiB } from '../harness/relay-wire';
import { sleep } from '../harness/wait';

const SECONDS = Number(process.env.HOSTILE_SECONDS ?? 60);
const QUIET_SECONDS = Math.min(20, SECONDS);
const RATE = 1000;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? NaN;

interface Phase {
  p50: number;
  p99: number;
  points: number;
  written: number;
  rssMax: number;
  requests: number;
  cuts: number;
}

/** The well-behaved client's latency while the writer appends for `seconds` (with the hostile client when `hostile`). */
async function phase(relay: RelayProc, good: WireClient, dir: string, live: string, seconds: number, hostile: boolean): Promise<Phase> {
  const lat: number[] = [];
  const seen = good.messages.length;
  let requests = 0;
  let cuts = 0;
  let child;
  if (hostile) {
    const backlog = (good.of('hello')[0].sources as { id: string; path: string }[]).find((s) => s.path.includes('backlog'))!.id;
    const st = fs.statSync(path.join(dir, 'events.out.tfevents.1.backlog'));
    child = spawn(process.execPath, [path.join(__dirname, 'relay-hostile-client.js'), relay.url, backlog, `${st.dev}:${st.ino}`, String(st.size), TAGS[0]], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (b: Buffer) => {
      const [r, c] = String(b).trim().split('\n').pop()!.split(' ').map(Number);
      requests = r;
      cuts = c;
    });
    await sleep(3000); // it takes its backlog, then floods
  }
  const writer = spawn(process.execPath, [path.join(__dirname, 'relay-writer.js'), live, String(RATE), String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let written = 0;
  writer.stdout.on('data', (b) => (written = Number(String(b).trim())));
  let rssMax = 0;
  // In MB (10^6 bytes), as the target is.
  const sampler = setInterval(() => (rssMax = Math.max(rssMax, rssMiB(relay.proc.pid!) * 1.048576)), 200);
  let counted = seen;
  const collect = () => {
    const now = Date.now() / 1000;
    for (; counted < good.messages.length; counted++) {
      const m = good.messages[counted];
      if (m.type !== 'points' || !String(m.source).includes('live')) continue;
      for (const w of m.wallTime as number[]) lat.push((now - w) * 1000);
    }
  };
  // Latency is taken when a message arrives: listen rather than poll.
  good.ws.on('message', collect);
  await new Promise((r) => writer.once('exit', r));
  const deadline = Date.now() + 10_000;
  while (lat.length < written && Date.now() < deadline) await sleep(50);
  good.ws.off('message', collect);
  clearInterval(sampler);
  child?.kill('SIGTERM');
  return { p50: pct(lat, 50), p99: pct(lat, 99), points: lat.length, written, rssMax, requests, cuts };
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-hostile-'));
  // A backlog the hostile client asks about again and again (each detail reads ~5 MB of it).
  appendSteps(path.join(dir, 'events.out.tfevents.1.backlog'), 0, 50_000);
  const live = path.join(dir, 'events.out.tfevents.2.live');
  fs.writeFileSync(live, '');
  const relay = await launchRelay(relayUnderTest(), ['--logdir', dir, '--poll-interval', '1000'], { env: process.env });
  try {
    const good = await helloFrom(relay.url);
    good.subscribe();
    await good.waitFor('the backlog', () => good.of('heartbeat').some((h) => h.caughtUp === true), 120_000);
    console.log(`relay-hostile: ${QUIET_SECONDS} s quiet, then ${SECONDS} s with a hostile client; ${RATE} scalars/s written`);
    const quiet = await phase(relay, good, dir, live, QUIET_SECONDS, false);
    console.log(`  quiet:   p50 ${quiet.p50.toFixed(1)} ms, p99 ${quiet.p99.toFixed(1)} ms (${quiet.points}/${quiet.written} points); relay RSS ≤ ${quiet.rssMax.toFixed(0)} MB`);
    const hostile = await phase(relay, good, dir, live, SECONDS, true);
    console.log(`  hostile: p50 ${hostile.p50.toFixed(1)} ms, p99 ${hostile.p99.toFixed(1)} ms (${hostile.points}/${hostile.written} points); relay RSS ≤ ${hostile.rssMax.toFixed(0)} MB; ${hostile.requests} requests sent, cut off ${hostile.cuts} times`);
    console.log(`  targets: RSS ≤ 200 MB (${hostile.rssMax <= 200 ? 'met' : 'MISSED'}), p99 ≤ 250 ms (${hostile.p99 <= 250 ? 'met' : 'MISSED'}), every point (${hostile.points >= hostile.written ? 'met' : 'MISSED'})`);
    console.log(
      `\nBENCH relay-hostile rss_max_mb=${hostile.rssMax.toFixed(0)} p99_ms=${hostile.p99.toFixed(1)} p99_quiet_ms=${quiet.p99.toFixed(1)} p99_ratio=${(hostile.p99 / quiet.p99).toFixed(2)} requests=${hostile.requests} cuts=${hostile.cuts}`,
    );
    good.close();
  } finally {
    await relay.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
