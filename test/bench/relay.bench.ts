// `npm run bench -- relay`: ingest of a 5 M-scalar tensorboardX event file vs a raw read of
// the same bytes and vs TensorBoard's rustboard data server; append→receipt latency at
// 10 000 scalars/s with 10 clients; relay RSS; relay CPU with 4 viewers vs 1 (the shared
// decode, serve/decode-cache.ts); 10 000-case parser fuzz. Then the Python relay
// (dist/agentrl_relay.py, for nodes without Node) on the current python3: its ingest of the same
// file as a client's stream (batches, binary frames) against the Node reader's, its append→receipt
// latency under the same load, and the open-run bench through it (5 M scalars, all tags drawn in
// the real webview).
// Ends with: BENCH relay scalars_per_s=… raw_ratio=… latency_p99_ms=… rss_mb=… viewers_4_cpu_ratio=…
//   py_scalars_per_s=… py_scalars_per_cpu_s=… py_node_ratio=… py_latency_p99_ms=… py_open_run_ms=…
// AGENTRL_BENCH_CACHE=DIR keeps the generated files there instead of .cache/bench.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PointBatch } from '../../src/relay/sources/source';
import { FileReaderOptions, TfRecordFileReader } from '../../src/tfrecord/file-reader';
import { RelayClient } from '../../src/relay-protocol/client';
import { repoRoot, venvPython } from '../harness/paths';
import { RelayRuntime, pythonRelayBundle, relayInterpreter, relaySkipReason, startRelay } from '../harness/relay';
import { sleep } from '../harness/wait';
import { pointCount } from '../../src/relay-protocol/points-frame';

const benchCache = process.env.AGENTRL_BENCH_CACHE ?? path.join(repoRoot, '.cache', 'bench');
const cacheDir = path.join(benchCache, 'relay');
const writers = path.join(repoRoot, 'test', 'fixtures', 'relay', 'writers.py');
const STEPS = Number(process.env.RELAY_BENCH_STEPS ?? 100_000); // × 50 tags
const TRIALS = 7; // this shared 2-core machine is noisy: medians of 7 pairs

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

function bigFile(): string {
  const dir = path.join(cacheDir, `big-${STEPS}`);
  const file = path.join(dir, 'events.out.tfevents.1.bench');
  if (!fs.existsSync(file)) {
    console.log(`generating ${STEPS * 50} scalars with tensorboardX (cached in ${path.relative(repoRoot, dir)}) …`);
    const t0 = Date.now();
    const r = spawnSync(venvPython, [writers, 'big', file, String(STEPS)], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('generator failed');
    console.log(`  done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  return file;
}

/** One relay-style ingest: 256 KiB reads into one reused batch, every point materialised (as a session reads). */
function ingest(file: string, opts: FileReaderOptions = {}): { seconds: number; cpu: number; scalars: number; crcErrors: number; ahead: boolean } {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  let ahead = false;
  const r = new TfRecordFileReader(file, 0, { ...opts, onPipeline: (e) => (ahead ||= e === 'start') });
  let scalars = 0;
  const batch = new PointBatch(); // reused between reads, as the relay's reader does
  for (;;) {
    batch.clear();
    const res = r.read(batch, 256 * 1024);
    scalars += batch.size;
    if (!res.more && res.consumed === 0) break;
  }
  r.close();
  const cu = process.cpuUsage(c0);
  return {
    seconds: Number(process.hrtime.bigint() - t0) / 1e9,
    cpu: (cu.user + cu.system) / 1e6,
    scalars,
    crcErrors: r.stats.crcErrors + r.stats.badHeaders,
    ahead,
  };
}

function rawRead(file: string): number {
  const t0 = process.hrtime.bigint();
  const b = fs.readFileSync(file);
  if (b.length === 0) throw new Error('empty');
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** Rustboard (TensorBoard's data server) loading the same logdir once; its own load-cycle time. */
async function rustboard(dir: string, extra: string[]): Promise<{ seconds: number; rssMb: number } | undefined> {
  const server = path.join(path.dirname(path.dirname(venvPython)), 'lib', 'python3.11', 'site-packages', 'tensorboard_data_server', 'bin', 'server');
  if (!fs.existsSync(server)) return undefined;
  const proc = spawn(server, ['--logdir', dir, '--reload', 'once', '--port', '0', '--die-after-stdin', '--verbose', ...extra], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let log = '';
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(proc.pid!).hwm);
    } catch {
      /* exited */
    }
  }, 100);
  const seconds = await new Promise<number | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 180_000);
    const onData = (b: Buffer) => {
      log += b.toString();
      const m = /Finished load cycle \(([\d.]+)(ms|s)\)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]) / (m[2] === 'ms' ? 1000 : 1));
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', () => resolve(undefined));
  });
  try {
    peak = Math.max(peak, rssMb(proc.pid!).hwm);
  } catch {
    /* exited */
  }
  clearInterval(sampler);
  const exited = new Promise((r) => proc.once('exit', r));
  proc.stdin.end();
  proc.kill('SIGTERM');
  await exited; // it must not compete with the next measurement
  if (seconds === undefined) console.log(`  rustboard did not report a load cycle: ${log.slice(-300)}`);
  return seconds === undefined ? undefined : { seconds, rssMb: peak };
}

function rssMb(pid: number): { rss: number; hwm: number } {
  const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

async function latency(runtime: RelayRuntime = 'node'): Promise<{ p50: number; p99: number; received: number; written: number; rss: number; hwm: number }> {
  const dir = fs.mkdtempSync(path.join(cacheDir, 'live-'));
  const file = path.join(dir, 'events.out.tfevents.2.live');
  fs.writeFileSync(file, '');
  const relay = await startRelay(['--logdir', dir, '--poll-interval', '1000'], { env: process.env, runtime });
  // The measuring client here; the 9 others in a child process (their decoding is not our latency).
  const client = new RelayClient({ url: relay.url });
  const lat: number[] = [];
  let received = 0;
  let othersReceived = 0;
  client.on('points', (b) => {
    const now = Date.now() / 1000;
    for (const s of b.series) for (const w of s.wallTime) lat.push((now - w) * 1000);
    received += pointCount(b);
  });
  client.start();
  const others = spawn(process.execPath, [path.join(__dirname, 'relay-clients.js'), relay.url, '9'], { stdio: ['ignore', 'pipe', 'inherit'] });
  others.stdout.on('data', (b: Buffer) => (othersReceived = Number(String(b).trim().split('\n').pop())));
  await sleep(1000);
  const writer = spawn(process.execPath, [path.join(__dirname, 'relay-writer.js'), file, '10000', '10'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let written = 0;
  writer.stdout.on('data', (b) => (written = Number(String(b).trim())));
  let peak = { rss: 0, hwm: 0 };
  const sampler = setInterval(() => {
    const r = rssMb(relay.proc.pid!);
    peak = { rss: Math.max(peak.rss, r.rss), hwm: r.hwm };
  }, 200);
  await new Promise((r) => writer.once('exit', r));
  const deadline = Date.now() + 10_000;
  while ((received < written || othersReceived < written * 9) && Date.now() < deadline) await sleep(50);
  clearInterval(sampler);
  const final = rssMb(relay.proc.pid!);
  await client.close();
  others.kill('SIGTERM');
  received += othersReceived;
  relay.proc.kill('SIGTERM');
  await new Promise((r) => relay.proc.once('exit', r));
  fs.rmSync(dir, { recursive: true, force: true });
  return { p50: pct(lat, 50), p99: pct(lat, 99), received, written, rss: peak.rss, hwm: final.hwm };
}

/** User + system CPU seconds of a process so far (/proc/<pid>/stat, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // fields 14 (utime) and 15 (stime)
}

async function catchUp(file: string, clients: number): Promise<{ seconds: number; points: number; hwm: number; cpu: number }> {
  const dir = fs.mkdtempSync(path.join(cacheDir, 'catchup-'));
  fs.linkSync(file, path.join(dir, path.basename(file)));
  const relay = await startRelay(['--logdir', dir], { env: process.env });
  const want = ingest(file).scalars;
  const t0 = Date.now();
  const cpu0 = cpuSeconds(relay.proc.pid!);
  const cs = Array.from({ length: clients }, () => new RelayClient({ url: relay.url }));
  let got = 0;
  for (const c of cs) {
    c.on('points', (b) => (got += pointCount(b)));
    c.start();
  }
  while (got < want * clients) await sleep(50);
  const seconds = (Date.now() - t0) / 1000;
  const cpu = cpuSeconds(relay.proc.pid!) - cpu0;
  const hwm = rssMb(relay.proc.pid!).hwm;
  for (const c of cs) await c.close();
  relay.proc.kill('SIGTERM');
  await new Promise((r) => relay.proc.once('exit', r));
  fs.rmSync(dir, { recursive: true, force: true });
  return { seconds, points: got, hwm, cpu };
}

/** Relay CPU while 4 clients read a file from the start at once ÷ while 1 does (medians of 3). */
async function viewers(file: string): Promise<number> {
  console.log('\n== shared decode: relay CPU while 4 clients vs 1 client read the 0.5 M-scalar file from the start');
  const cpu1: number[] = [];
  const cpu4: number[] = [];
  for (let t = 0; t < 3; t++) {
    cpu1.push((await catchUp(file, 1)).cpu);
    cpu4.push((await catchUp(file, 4)).cpu);
  }
  const ratio = median(cpu4) / median(cpu1);
  console.log(
    `  relay CPU: 1 viewer ${cpu1.map((x) => x.toFixed(2)).join(', ')} s; 4 viewers ${cpu4.map((x) => x.toFixed(2)).join(', ')} s → viewers_4_cpu_ratio ${ratio.toFixed(2)} (target ≤ 1.3)`,
  );
  return ratio;
}

function fuzz(cases: number): { cases: number; seconds: number; throws: number; maxMs: number } {
  const dir = fs.mkdtempSync(path.join(cacheDir, 'fuzz-'));
  const src = bigFile();
  const fd = fs.openSync(src, 'r');
  const good = Buffer.alloc(64 * 1024);
  fs.readSync(fd, good, 0, good.length, 0);
  fs.closeSync(fd);
  let a = 12345;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const target = path.join(dir, 'events.out.tfevents.fuzz');
  let throws = 0;
  let maxMs = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < cases; i++) {
    let bytes: Buffer;
    if (i % 3 === 0) bytes = good.subarray(0, Math.floor(rand() * good.length));
    else if (i % 3 === 1) {
      bytes = Buffer.from(good);
      for (let k = 1 + Math.floor(rand() * 16); k > 0; k--) bytes[Math.floor(rand() * bytes.length)] ^= 1 << Math.floor(rand() * 8);
    } else {
      bytes = Buffer.alloc(Math.floor(rand() * 65536));
      for (let k = 0; k < bytes.length; k++) bytes[k] = Math.floor(rand() * 256);
    }
    fs.writeFileSync(target, bytes);
    const c0 = process.hrtime.bigint();
    try {
      const r = new TfRecordFileReader(target);
      r.read({ add: () => undefined });
      r.close();
    } catch {
      throws++;
    }
    maxMs = Math.max(maxMs, Number(process.hrtime.bigint() - c0) / 1e6);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return { cases, seconds: Number(process.hrtime.bigint() - t0) / 1e9, throws, maxMs };
}

/** The Python relay's stream of the file (its reader and frames, in a process of its own), `trials` times. */
function pythonIngest(file: string, trials: number): { scalars: number; seconds: number[]; cpu: number[] } {
  const probe = path.join(repoRoot, 'test', 'fixtures', 'relay', 'python_relay_probe.py');
  const input = Array.from({ length: trials + 1 }, () => JSON.stringify({ op: 'ingest', file })).join('\n') + '\n';
  const r = spawnSync(relayInterpreter('python3')!, [probe, pythonRelayBundle], { input, encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`python ingest failed: ${r.stderr.slice(-1000)}`);
  // The first run is a warm-up (page cache, the interpreter's first allocations).
  const runs = r.stdout
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as { scalars: number; seconds: number; cpu: number });
  return { scalars: runs[0].scalars, seconds: runs.map((x) => x.seconds), cpu: runs.map((x) => x.cpu) };
}

/** The open-run bench with the Python relay (its own process; Chromium and the real webview). */
function pythonOpenRun(): number {
  const r = spawnSync(process.execPath, ['--expose-gc', path.join(__dirname, 'open-run.bench.js'), '--runtime', 'python3', '--skip-tb', '--trials', '1'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 24,
  });
  process.stdout.write(
    r.stdout
      .split('\n')
      .filter((l) => !l.startsWith('BENCH '))
      .map((l) => `  ${l}`)
      .join('\n'),
  );
  const m = /BENCH open-run all_tags_ms=(\d+)/.exec(r.stdout);
  if (r.status !== 0 || !m) throw new Error(`the open-run bench with the Python relay failed (exit ${r.status})`);
  return Number(m[1]);
}

async function python(file: string, nodeScalarsPerS: number): Promise<string> {
  const why = relaySkipReason('python3');
  if (why) {
    console.log(`\n== the Python relay: skipped (${why})`);
    return '';
  }
  console.log(`\n== the Python relay (${relayInterpreter('python3')}): a client's stream of the same file, ${TRIALS} trials`);
  const ing = pythonIngest(file, TRIALS);
  const sps = ing.scalars / median(ing.seconds);
  const cps = ing.scalars / median(ing.cpu);
  console.log(
    `  ${fmt(ing.scalars)} scalars: median ${median(ing.seconds).toFixed(3)} s = ${fmt(sps)} scalars/s (${fmt(cps)} per CPU-second; trials ${ing.seconds.map((x) => x.toFixed(2)).join(', ')} s) → ${(sps / nodeScalarsPerS).toFixed(3)} of the Node reader (target ≥ 1 M/s)`,
  );
  (global as { gc?: () => void }).gc?.();
  await sleep(1000);
  console.log('\n== the Python relay: append → receipt latency, a writer at 10 000 scalars/s for 10 s, 10 clients');
  const lat = await latency('python3');
  console.log(
    `  p50 ${lat.p50.toFixed(1)} ms, p99 ${lat.p99.toFixed(1)} ms (${fmt(lat.written)} written; ${fmt(lat.received)} received over 10 clients); relay RSS peak ${lat.rss.toFixed(0)} MB (target p99 ≤ 100 ms)`,
  );
  console.log('\n== the Python relay: opening the 5 M-scalar run, all tags drawn in the real webview (open-run bench)');
  const open = pythonOpenRun();
  console.log(`\n  all tags drawn ${open} ms after connect (target ≤ 5 000 ms)`);
  return ` py_scalars_per_s=${Math.round(sps)} py_scalars_per_cpu_s=${Math.round(cps)} py_node_ratio=${(sps / nodeScalarsPerS).toFixed(3)} py_latency_p99_ms=${lat.p99.toFixed(1)} py_open_run_ms=${open}`;
}

async function main(): Promise<void> {
  fs.mkdirSync(cacheDir, { recursive: true });
  if (process.env.RELAY_BENCH_ONLY === 'python') {
    const file = bigFile();
    const node = ingest(file);
    console.log(`BENCH relay${await python(file, node.scalars / node.seconds)}`);
    return;
  }
  if (process.env.RELAY_BENCH_ONLY === 'viewers') {
    await viewers(path.join(cacheDir, 'small', 'events.out.tfevents.1.small'));
    return;
  }
  if (process.env.RELAY_BENCH_ONLY === 'latency') {
    console.log(await latency());
    return;
  }
  const file = bigFile();
  const bytes = fs.statSync(file).size;
  console.log(`\n== ingest: ${path.relative(repoRoot, file)} (${fmt(bytes)} bytes), warm page cache, ${TRIALS} trials`);
  rawRead(file);
  // The relay is a long-running process: time it warm (JIT-compiled, scan worker started), after
  // untimed warm-up ingests of each kind; the cold first one is shown apart.
  const cold = ingest(file).seconds;
  ingest(file);
  ingest(file, { pipelineMinBytes: Infinity });
  const raws: number[] = [];
  const ours: number[] = [];
  const alone: number[] = [];
  const cpus: number[] = [];
  let scalars = 0;
  let ahead = true;
  const gc = (global as { gc?: () => void }).gc;
  for (let t = 0; t < TRIALS; t++) {
    // Each measurement starts from a collected heap: the raw read's 260 MB buffer must not be
    // collected on the ingest's time, nor the ingest's garbage on the raw read's.
    gc?.();
    raws.push(rawRead(file));
    gc?.();
    const r = ingest(file);
    ours.push(r.seconds);
    cpus.push(r.cpu);
    scalars = r.scalars;
    ahead &&= r.ahead;
    if (r.crcErrors) throw new Error(`${r.crcErrors} CRC errors in a clean file`);
    gc?.();
    alone.push(ingest(file, { pipelineMinBytes: Infinity }).seconds);
  }
  const raw = median(raws);
  const ing = median(ours);
  const sps = scalars / ing;
  console.log(`  raw fs.readFileSync        ${raw.toFixed(3)} s  ${fmt(bytes / raw / 1e6)} MB/s  (= ${fmt(scalars / raw)} scalars/s of bytes)`);
  console.log(`  relay reader (both CRCs verified, every point materialised in 256 KiB batches, as the relay reads;`);
  console.log(`  ${ahead ? 'a worker thread reads and checks ahead while the main thread decodes' : 'NO read-ahead: the scan worker did not start'})`);
  console.log(`                             ${ing.toFixed(3)} s  ${fmt(bytes / ing / 1e6)} MB/s  ${fmt(sps)} scalars/s  (${fmt(scalars)} scalars)`);
  const one = median(alone);
  console.log(
    `  the same reader in one thread ${one.toFixed(3)} s  (read-ahead speed-up ${(one / ing).toFixed(2)}x; raw_ratio alone ${(raw / one).toFixed(3)})`,
  );
  console.log(
    `  raw_ratio (relay / raw throughput) = ${(raw / ing).toFixed(3)}   trials: relay ${ours.map((x) => x.toFixed(3)).join(', ')} s; raw ${raws.map((x) => x.toFixed(3)).join(', ')} s`,
  );
  console.log(`  cold first ingest of the process (worker start, JIT): ${cold.toFixed(3)} s`);
  console.log(
    `  CPU time of the relay reader: median ${median(cpus).toFixed(3)} s = ${fmt(scalars / median(cpus))} scalars per CPU-second (load average now ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]} on ${os.cpus().length} cores)`,
  );
  if (process.env.RELAY_BENCH_ONLY === 'ingest') return;
  const rbDir = path.dirname(file);
  const rbDefault = await rustboard(rbDir, []);
  const rbAll = await rustboard(rbDir, ['--checksum', '--samples-per-plugin=scalars=all']);
  if (rbDefault)
    console.log(
      `  peer rustboard (default: no CRC, 1000-point reservoir)      ${rbDefault.seconds.toFixed(3)} s  ${fmt(scalars / rbDefault.seconds)} scalars/s  RSS ${rbDefault.rssMb.toFixed(0)} MB  → relay/peer ${(rbDefault.seconds / ing).toFixed(2)}×`,
    );
  if (rbAll)
    console.log(
      `  peer rustboard (--checksum, every point kept)               ${rbAll.seconds.toFixed(3)} s  ${fmt(scalars / rbAll.seconds)} scalars/s  RSS ${rbAll.rssMb.toFixed(0)} MB  → relay/peer ${(rbAll.seconds / ing).toFixed(2)}×`,
    );
  if (!rbDefault) console.log('  peer rustboard: not installed (pip tensorboard-data-server); skipped');

  (global as { gc?: () => void }).gc?.(); // the ingest trials' garbage must not pause the clients
  await sleep(2000);
  console.log('\n== end-to-end latency: a writer appends 10 000 scalars/s for 10 s; 10 clients connected');
  const lat = await latency();
  console.log(
    `  append → client receipt: p50 ${lat.p50.toFixed(1)} ms, p99 ${lat.p99.toFixed(1)} ms (${fmt(lat.written)} written; ${fmt(lat.received)} received over 10 clients)`,
  );
  console.log(`  relay RSS with 10 clients: peak ${lat.rss.toFixed(0)} MB (VmHWM ${lat.hwm.toFixed(0)} MB)`);

  const small = path.join(cacheDir, 'small', 'events.out.tfevents.1.small');
  if (!fs.existsSync(small)) {
    fs.mkdirSync(path.dirname(small), { recursive: true });
    const fd = fs.openSync(file, 'r');
    const head = Buffer.alloc(Math.min(bytes, 28 * 1024 * 1024));
    fs.readSync(fd, head, 0, head.length, 0);
    fs.closeSync(fd);
    fs.writeFileSync(small, head); // ≈ 0.5 M scalars; the partial last record is simply left unread
  }
  console.log('\n== catch-up: 10 clients read a 0.5 M-scalar file from the start at once');
  const cu = await catchUp(small, 10);
  console.log(
    `  ${fmt(cu.points)} points delivered in ${cu.seconds.toFixed(2)} s (${fmt(cu.points / cu.seconds)} points/s); relay VmHWM ${cu.hwm.toFixed(0)} MB`,
  );

  const viewersRatio = await viewers(small);
  const py = await python(file, sps);

  console.log('\n== parser fuzz: truncated / bit-flipped / random 64 KiB files');
  const fz = fuzz(10_000);
  console.log(`  ${fz.cases} cases in ${fz.seconds.toFixed(1)} s: ${fz.throws} crashes, slowest case ${fz.maxMs.toFixed(1)} ms (no hang)`);

  console.log(
    `\nBENCH relay scalars_per_s=${Math.round(sps)} raw_ratio=${(raw / ing).toFixed(3)} latency_p99_ms=${lat.p99.toFixed(1)} rss_mb=${Math.max(lat.rss, cu.hwm).toFixed(0)} viewers_4_cpu_ratio=${viewersRatio.toFixed(2)}${py}`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
