// `npm run bench -- sqlite`: the relay (dist/agentrl.js) following a ~2 GB Trinity SQL
// experience buffer while a writer adds 100 rows/s and the trainer and /feedback update rows'
// consumed and reward (test/fixtures/relay/sqlite_bench.py): its CPU (% of one core, from
// /proc over the writer's SECONDS) and RSS; the same on a ~200 MB buffer (RSS must not grow
// with the buffer); and the peer, the whole-file sql.js reader it replaced
// (sqlite-wholefile.ts), on the 200 MB buffer and on the 2 GB one.
// Buffers are built once and cached under .cache/bench/sqlite/ (they grow by what the writer adds).
// Ends with: BENCH sqlite cpu_pct=… rss_mb=… rss_mb_small=… rss_ratio=… peer_cpu_pct_small=… …
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RelayClient } from '../../src/relay-protocol/client';
import { repoRoot } from '../harness/paths';
import { startRelay } from '../harness/relay';
import { sleep } from '../harness/wait';

const cacheDir = path.join(repoRoot, '.cache', 'bench', 'sqlite');
const fixture = path.join(repoRoot, 'test', 'fixtures', 'relay', 'sqlite_bench.py');
const SECONDS = Number(process.env.SQLITE_BENCH_SECONDS ?? 40);
const RATE = 100;
const BIG_MB = Number(process.env.SQLITE_BENCH_MB ?? 2048);
const SMALL_MB = 200;
const TICK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** A job dir whose buffer/experience_buffer.db holds ~mb MB (built once). */
function jobDir(name: string, mb: number): { dir: string; db: string } {
  const dir = path.join(cacheDir, name);
  const db = path.join(dir, 'buffer', 'experience_buffer.db');
  if (!fs.existsSync(db)) {
    fs.mkdirSync(path.dirname(db), { recursive: true });
    console.log(`building a ${mb} MB Trinity buffer in ${path.relative(repoRoot, db)} …`);
    const r = spawnSync('python3', [fixture, 'build', db, String(mb)], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('build failed');
  }
  return { dir, db };
}

function rowCount(db: string): number {
  const r = spawnSync(
    'python3',
    ['-c', 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM experience_buffer").fetchone()[0])', db],
    { encoding: 'utf8' },
  );
  return Number(r.stdout.trim());
}

function cpuSeconds(pid: number): number {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / TICK; // utime, stime (fields 14, 15)
}

function memMb(pid: number): { rss: number; hwm: number } {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Runs `python sqlite_bench.py feed` for SECONDS while `sample` runs each second; resolves with the rows it added. */
async function feed(db: string, sample: () => void): Promise<number> {
  const w = spawn('python3', [fixture, 'feed', db, String(SECONDS), String(RATE)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  w.stdout.on('data', (b) => (out += b));
  const done = new Promise<string>((resolve, reject) =>
    w.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`writer exited ${code}`)))),
  );
  const timer = setInterval(sample, 1000);
  try {
    const [added, first] = (await done).split(' ').map(Number);
    trims.push(() => spawnSync('python3', [fixture, 'trim', db, String(first)], { stdio: 'inherit' }));
    return added;
  } finally {
    clearInterval(timer);
  }
}

/** Deletions of what each feed added, run once its rows were measured. */
const trims: (() => void)[] = [];
const trimAll = () => trims.splice(0).forEach((t) => t());

interface RelayRun {
  sizeMb: number;
  catchUpS: number;
  catchUpHwmMb: number;
  cpuPct: number;
  rssMb: number;
  hwmMb: number;
  added: number;
  newRows: number;
  updated: number;
  latP50Ms: number;
  latP99Ms: number;
}

async function relayRun(name: string, mb: number): Promise<RelayRun> {
  const { dir, db } = jobDir(name, mb);
  const sizeMb = fs.statSync(db).size / 1048576;
  const have = rowCount(db);
  const relay = await startRelay(['--job-dir', dir, '--poll-interval', '1000'], { env: process.env, timeoutMs: 60_000 });
  const pid = relay.proc.pid!;
  const client = new RelayClient({ url: relay.url });
  let rows = 0;
  let updated = 0;
  let measuring = false;
  const lat: number[] = [];
  client.on('experiences', (m) => {
    const now = Date.now();
    for (const r of m.rows) {
      if (r.updated) updated++;
      else rows++;
      // The writer stamps rows with microseconds (sqlite_bench.py); the built buffer's rows are not timed.
      if (measuring && !r.updated && r.timestamp?.includes('.')) lat.push(now - Date.parse(`${r.timestamp.replace(' ', 'T')}Z`));
    }
  });
  client.start();
  try {
    const t0 = Date.now();
    while (rows < have) {
      if (Date.now() - t0 > 900_000) throw new Error(`catch-up stalled at ${rows} of ${have} rows`);
      await sleep(200);
    }
    const catchUpS = (Date.now() - t0) / 1000;
    const catchUpHwmMb = memMb(pid).hwm;
    console.log(`  ${name}: ${sizeMb.toFixed(0)} MB, ${have} rows caught up in ${catchUpS.toFixed(1)} s (peak RSS ${catchUpHwmMb.toFixed(0)} MB)`);
    await sleep(2000); // settle
    const before = { rows, updated };
    measuring = true;
    let peak = 0;
    const c0 = cpuSeconds(pid);
    const w0 = Date.now();
    const added = await feed(db, () => (peak = Math.max(peak, memMb(pid).rss)));
    const cpuPct = ((cpuSeconds(pid) - c0) / ((Date.now() - w0) / 1000)) * 100;
    const t1 = Date.now();
    while (rows - before.rows < added && Date.now() - t1 < 30_000) await sleep(200);
    lat.sort((a, b) => a - b);
    const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(lat.length * p))] ?? NaN;
    const r: RelayRun = {
      sizeMb,
      catchUpS,
      catchUpHwmMb,
      cpuPct,
      rssMb: peak,
      hwmMb: memMb(pid).hwm,
      added,
      newRows: rows - before.rows,
      updated: updated - before.updated,
      latP50Ms: q(0.5),
      latP99Ms: q(0.99),
    };
    console.log(
      `  ${name}: writer added ${added} rows in ${SECONDS} s → relay CPU ${cpuPct.toFixed(2)} % of a core, RSS peak ${peak.toFixed(0)} MB while following; client got ${r.newRows} new rows (latency p50 ${r.latP50Ms.toFixed(0)} ms, p99 ${r.latP99Ms.toFixed(0)} ms), ${r.updated} updated rows`,
    );
    return r;
  } finally {
    await client.close();
    await relay.stop();
    trimAll();
  }
}

interface PeerRun {
  cpuPct: number;
  rssMb: number;
  reloads: number;
  busy: number;
  meanLoadMs: number;
  latP50Ms: number;
  latP99Ms: number;
  error?: string;
}

async function peerRun(name: string, mb: number): Promise<PeerRun> {
  const { db } = jobDir(name, mb);
  const p = spawn(process.execPath, [path.join(__dirname, 'sqlite-wholefile.js'), db, String(SECONDS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.stdout.on('data', (b) => (out += b));
  const pid = p.pid!;
  let peak = 0;
  let c0 = 0;
  try {
    c0 = cpuSeconds(pid);
  } catch {
    /* exited already */
  }
  const w0 = Date.now();
  let c1 = c0;
  const sample = () => {
    try {
      peak = Math.max(peak, memMb(pid).hwm);
      c1 = cpuSeconds(pid);
    } catch {
      /* exited */
    }
  };
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  await Promise.all([feed(db, sample), exited]);
  trimAll();
  const res = JSON.parse(out.trim().split('\n').pop() || '{}') as {
    reloads: number;
    busy: number;
    meanLoadMs: number;
    latP50Ms: number;
    latP99Ms: number;
    error?: string;
  };
  const cpuPct = ((c1 - c0) / ((Date.now() - w0) / 1000)) * 100;
  console.log(
    `  peer (whole file, sql.js) on ${name}: ${res.error ? `cannot open: ${res.error}` : `${res.reloads} reloads of ${res.meanLoadMs.toFixed(0)} ms (${res.busy} polls found no consistent copy in 5 tries), row latency p50 ${res.latP50Ms.toFixed(0)} ms, p99 ${res.latP99Ms.toFixed(0)} ms`}, CPU ${cpuPct.toFixed(1)} % of a core, peak RSS ${peak.toFixed(0)} MB`,
  );
  return { cpuPct, rssMb: peak, ...res };
}

async function main(): Promise<void> {
  fs.mkdirSync(cacheDir, { recursive: true });
  jobDir('small', SMALL_MB);
  jobDir('big', BIG_MB);
  console.log(`relay (page reads, wa-sqlite) following a buffer while ${RATE} rows/s are written for ${SECONDS} s:`);
  const big = await relayRun('big', BIG_MB);
  const small = await relayRun('small', SMALL_MB);
  console.log('peer: the whole-file reader it replaced:');
  const peerSmall = await peerRun('small', SMALL_MB);
  const peerBig = await peerRun('big', BIG_MB);
  const ok = big.cpuPct <= 5 && big.rssMb <= small.rssMb * 1.5;
  console.log(
    `targets: CPU ≤ 5 % of a core (${big.cpuPct.toFixed(2)}), RSS independent of size (${big.rssMb.toFixed(0)} MB at ${big.sizeMb.toFixed(0)} MB vs ${small.rssMb.toFixed(0)} MB at ${small.sizeMb.toFixed(0)} MB): ${ok ? 'met' : 'NOT met'}`,
  );
  console.log(
    `\nBENCH sqlite cpu_pct=${big.cpuPct.toFixed(2)} rss_mb=${big.rssMb.toFixed(0)} rss_mb_small=${small.rssMb.toFixed(0)} rss_ratio=${(big.rssMb / small.rssMb).toFixed(2)} cpu_pct_small=${small.cpuPct.toFixed(2)} db_mb=${big.sizeMb.toFixed(0)} db_mb_small=${small.sizeMb.toFixed(0)} catchup_s=${big.catchUpS.toFixed(1)} catchup_rss_mb=${big.catchUpHwmMb.toFixed(0)} latency_p99_ms=${big.latP99Ms.toFixed(0)} rows_per_s=${(big.newRows / SECONDS).toFixed(0)} updated=${big.updated} peer_cpu_pct_small=${peerSmall.cpuPct.toFixed(1)} peer_rss_mb_small=${peerSmall.rssMb.toFixed(0)} peer_rss_ratio_small=${(peerSmall.rssMb / small.rssMb).toFixed(1)} peer_latency_p99_ms_small=${peerSmall.latP99Ms.toFixed(0)} peer_reloads_small=${peerSmall.reloads} peer_busy_polls_small=${peerSmall.busy} peer_big=${peerBig.error ? 'cannot_open' : `${peerBig.rssMb.toFixed(0)}mb`}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
