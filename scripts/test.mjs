#!/usr/bin/env node
// `npm test` — every tier, time-boxed, one summary line at the end.
//   node scripts/test.mjs [lint] [unit] [component] [integration] [e2e] [--grep REGEX] [--no-setup] [--no-build]
//   node scripts/test.mjs --file test/<tier>/<path>.test.ts   one test file of any tier (`npm run test:file -- PATH`)
// Tiers: lint (scripts/lint.mjs: ESLint, knip, ruff and the repository checks, one result each;
//        `npm run lint`) · unit (node:test, in process: no child process, no socket) · component (node:test with
//        real processes and sockets: Python, the CLI bundle, model servers, Trinity, Ray in a
//        loopback-only network namespace) · integration (mocha in a real VS Code extension host)
//        · e2e (playwright-core drives the real workbench in Chromium, with the packaged VSIX).
// With unit, lint runs beside the compile and the unit tier (two single-process jobs, two cores).
// The unit tier alone (`npm run test:unit`) and a unit file need only tsc (incremental: out/*.tsbuildinfo),
// no esbuild: the tests that read dist/ are component tests.
// Two at a time where files do not share ports or processes: component files (each Ray file in a
// loopback-only namespace of its own; the few that start Chromium alone, after the others), e2e
// files (a workbench each). The integration suites against Ray run after the others (their own host).
// At the end: each tier's wall and CPU time and the slowest test files, then the last line
// `N passed, N failed[, N skipped]`; exit 1 on any failure, hang or crash.
// After each run, processes it left behind (Ray daemons outlive a killed run) are killed and named.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);
const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    grep: { type: 'string' },
    'no-setup': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    file: { type: 'string' },
  },
});
const ALL = ['lint', 'unit', 'component', 'integration', 'e2e'];
/** `--file test/<tier>/…`: that file's tier, and the file. */
const one = opts.file ? fileOfTier(opts.file) : undefined;
const tiers = one ? [one.tier] : positionals.length ? positionals : ALL;
for (const t of tiers)
  if (!ALL.includes(t)) {
    console.error(`unknown tier '${t}' (expected ${ALL.join(', ')})`);
    process.exit(2);
  }

function fileOfTier(file) {
  const rel = path.relative(root, path.resolve(file)).split(path.sep).join('/');
  const m = /^test\/(unit|component|integration|e2e)\/.+\.(test|e2e)\.ts$/.exec(rel);
  if (!m || !fs.existsSync(path.join(root, rel))) {
    console.error(`--file ${file}: expected an existing test/<unit|component|integration|e2e>/….test.ts (or ….e2e.ts)`);
    process.exit(2);
  }
  return { tier: m[1], rel, js: path.join(root, 'out', rel.replace(/\.ts$/, '.js')), netns: /\.netns\.(test|e2e)\.ts$/.test(rel) };
}

const MIN = 60_000;
// Hang guards, not targets: a run that takes this long on a 2-core machine has hung — a tier's
// run, or one file's where the files of a tier run as runs of their own (filePool). (The
// component tier took 15 min on a loaded 2-core machine when it was still part of unit.)
const LIMITS = { lint: 10 * MIN, unit: 5 * MIN, component: 25 * MIN, integration: 12 * MIN, e2e: 12 * MIN };

fs.mkdirSync(path.join(root, 'test-results'), { recursive: true });
const t0 = Date.now();
const say = (m) => console.log(`\n=== [${((Date.now() - t0) / 1000).toFixed(0)}s] ${m}`);

function must(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) mustFailed(cmd, args, r.status ?? r.signal);
}

/** `must` without blocking the event loop: a run in the background keeps being read and timed. */
function mustAsync(cmd, args) {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { stdio: 'inherit' });
    p.on('close', (code, signal) => (code === 0 ? resolve() : mustFailed(cmd, args, code ?? signal)));
  });
}

function mustFailed(cmd, args, why) {
  console.error(`\n${cmd} ${args.join(' ')} failed (${why})`);
  for (const stop of running) stop();
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const netnsOf = (pid) => {
  try {
    return fs.readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
};

/** Processes carrying `marker` in their environment, or living in the network namespace `netns`. */
function leftovers(marker, netns) {
  const out = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      const mine = fs.readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').includes(`AGENTRL_TEST_RUN=${marker}`);
      if (!mine && !(netns && netnsOf(d) === netns)) continue;
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      if (cmd) out.push({ pid: Number(d), cmd }); // no cmdline: a zombie, already dead
    } catch {
      /* gone, or another user's */
    }
  }
  return out;
}

/**
 * Kills what a run left behind: teardown does not run when the time box SIGKILLs a run, and Ray's
 * daemons (raylet, gcs_server, dashboard agents under /tmp/arl-ray-*) leave its process group.
 * Found by the run's marker in their environment or by the run's own network namespace, never
 * by name: other checkouts on this machine may be running Ray tests of their own.
 */
async function killLeftovers(label, marker, netns) {
  const killed = new Map();
  for (let i = 0; i < 50; i++) {
    const left = leftovers(marker, netns);
    if (!left.length) break;
    for (const p of left) {
      killed.set(p.pid, p.cmd);
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* exited meanwhile */
      }
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  if (killed.size) {
    console.log(`\n--- ${label}: killed ${killed.size} leftover process(es):`);
    for (const [pid, cmd] of killed) console.log(`    ${pid} ${cmd.slice(0, 160)}`);
  }
  const survivors = leftovers(marker, netns);
  if (survivors.length) console.error(`!!! ${label}: ${survivors.length} process(es) survive SIGKILL: ${survivors.map((p) => p.pid).join(' ')}`);
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
/** A test file's compiled path in a command line (node:test starts `node … out/test/<tier>/….js`). */
const TEST_FILE = /(?:^|\/)out\/(test\/(?:unit|component|integration|e2e)\/\S+?\.(?:test|e2e))\.js(?:\s|$)/;
/** CPU seconds of each test file's processes, summed over the run (read at the end; see cpuSampler). */
const fileCpu = new Map();
/**
 * The CPU time (user + system) of a run's processes — those carrying its marker, or living in
 * its network namespace — read from /proc every second: on a machine other checkouts load, the
 * wall time says little, the CPU time says what a tier costs. A process too short-lived to be
 * seen (a CLI call of a test) is counted in its parent's reaped-children time (cutime, cstime);
 * a seen child that its seen parent reaped is counted there once, not twice. Each process is
 * counted under the test file among its ancestors (when first seen). What a daemon left to
 * init spends after its last sample is missed: a floor, within a second a process.
 */
function cpuSampler(marker, netnsOfRun) {
  /** `${pid} ${starttime}` -> { own, kids, parent, file, last, gone } | null (not the run's) */
  const seen = new Map();
  /** pid -> key of the live process with that pid */
  const live = new Map();
  let tick = 0;
  const cmdOf = (pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    } catch {
      return '';
    }
  };
  const parentOf = (pid) => {
    try {
      const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return 0;
    }
  };
  const fileOf = (pid) => {
    for (let p = pid, i = 0; p > 1 && i < 40; p = parentOf(p), i++) {
      const cmd = cmdOf(p);
      const m = / --test /.test(cmd) ? null : TEST_FILE.exec(cmd); // not node:test's parent, which names every file
      if (m) return `${m[1]}.ts`;
    }
    return undefined;
  };
  const sample = () => {
    tick++;
    let pids;
    try {
      pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
    } catch {
      return;
    }
    const now = new Set();
    for (const d of pids) {
      let st;
      try {
        st = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      } catch {
        continue;
      }
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      const key = `${d} ${f[19]}`; // starttime: a reused pid is another process
      let entry = seen.get(key);
      if (entry === undefined) {
        let mine = false;
        try {
          mine = fs.readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').includes(`AGENTRL_TEST_RUN=${marker}`);
        } catch {
          /* another user's, or gone */
        }
        const ns = netnsOfRun();
        if (!mine && ns && netnsOf(d) === ns) mine = true;
        entry = mine ? { own: 0, kids: 0, parent: live.get(f[1]), file: fileOf(Number(d)), last: tick, gone: 0 } : null;
        seen.set(key, entry);
      }
      live.set(d, key);
      now.add(key);
      if (entry) {
        entry.own = Number(f[11]) + Number(f[12]);
        entry.kids = Number(f[13]) + Number(f[14]);
        entry.last = tick;
      }
    }
    for (const [k, e] of seen) if (e && !e.gone && !now.has(k)) e.gone = tick;
  };
  sample();
  const timer = setInterval(sample, 1000);
  return () => {
    clearInterval(timer);
    sample();
    const ticks = new Map();
    for (const [k, e] of seen) if (e) ticks.set(k, e.own + e.kids);
    // a child gone before its parent's last sample is in the parent's reaped time too: taken
    // out of the parent's, so the child's test file keeps it
    for (const e of seen.values()) {
      const p = e && e.parent && seen.get(e.parent);
      if (p && e.gone && p.last >= e.gone) ticks.set(e.parent, ticks.get(e.parent) - (e.own + e.kids));
    }
    let total = 0;
    for (const [k, t] of ticks) {
      const e = seen.get(k);
      total += t / CLK_TCK;
      if (e.file) fileCpu.set(e.file, (fileCpu.get(e.file) ?? 0) + t / CLK_TCK);
    }
    return total;
  };
}

let runs = 0;
/** Kills of the runs under way (two at once when lint runs beside the unit tier). */
const running = new Set();
process.on('SIGINT', () => {
  for (const stop of running) stop();
  process.exit(130);
});
/** Runs a command in its own process group, tees output (keeps it only, when `quiet`), kills the
 *  group after `limit` ms, then kills whatever of the run is left (see killLeftovers). */
function run(cmd, args, { limit, env = {}, label = cmd, quiet = false }) {
  const marker = `${process.pid}.${++runs}`;
  const started = Date.now();
  const ownNetns = netnsOf('self');
  let netns;
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, ...env, AGENTRL_TEST_RUN: marker } });
    // `unshare -n` gives the run a namespace of its own: note it as soon as the child is in it.
    const watchNetns = setInterval(() => {
      const ns = netnsOf(p.pid);
      if (ns && ns !== ownNetns) netns = ns;
      if (netns || p.exitCode !== null || p.signalCode !== null) clearInterval(watchNetns);
    }, 10);
    setTimeout(() => clearInterval(watchNetns), 5000).unref();
    const cpuDone = cpuSampler(marker, () => netns);
    let out = '';
    p.stdout.on('data', (b) => {
      out += b;
      if (!quiet) process.stdout.write(b);
    });
    p.stderr.on('data', (b) => {
      out += b;
      if (!quiet) process.stderr.write(b);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      console.error(`\n!!! time box of ${limit / 1000} s exceeded: killing ${cmd} ${args.join(' ')}`);
      try {
        process.kill(-p.pid, 'SIGKILL');
      } catch {
        /* the group exited meanwhile */
      }
    }, limit);
    const stop = () => {
      try {
        process.kill(-p.pid, 'SIGKILL');
      } catch {
        /* the group exited meanwhile */
      }
      for (const left of leftovers(marker, netns))
        try {
          process.kill(left.pid, 'SIGKILL');
        } catch {
          /* exited meanwhile */
        }
    };
    running.add(stop);
    p.on('close', async (code, signal) => {
      clearTimeout(timer);
      clearInterval(watchNetns);
      running.delete(stop);
      const cpu = cpuDone();
      await killLeftovers(label, marker, netns);
      resolve({ code: timedOut ? 'timeout' : (code ?? signal), out, secs: (Date.now() - started) / 1000, cpu });
    });
  });
}

/** Compiled test files of a tier (out/test/<tier>) whose TypeScript source still exists: out/
 *  keeps the JavaScript of tests that were moved to another tier or deleted. */
function tierFiles(tier, suffix) {
  return findFiles(path.join(root, 'out', 'test', tier), suffix).filter((f) => {
    const rel = path.relative(path.join(root, 'out'), f);
    return fs.existsSync(path.join(root, rel.replace(/\.js$/, '.ts')));
  });
}

function findFiles(dir, suffix) {
  if (!fs.existsSync(dir)) return [];
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(p, suffix));
    else if (e.name.endsWith(suffix)) out.push(p);
  }
  return out.sort();
}

/** node:test TAP summary (`# pass N` …). */
/** The names of the tests that failed, per file or tier, printed again at the end (a long log's failure is easy to miss). */
const failedTests = new Map();
function tapCounts(tapFile) {
  const text = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, 'utf8') : '';
  const failed = [...text.matchAll(/^\s*not ok \d+ - (.+)$/gm)].map((m) => m[1].trim());
  if (failed.length) failedTests.set(path.relative(root, tapFile), failed);
  const n = (k) => Number((text.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) ?? [])[1] ?? NaN);
  return { passed: n('pass'), failed: n('fail') + (n('cancelled') || 0), skipped: (n('skipped') || 0) + (n('todo') || 0) };
}

/** node:test's TAP into `tapFile`, with each file's time (scripts/test-times-reporter.mjs; read by tapFileTimes). */
const tapReporter = (tapFile) => [`--test-reporter=${path.join(root, 'scripts', 'test-times-reporter.mjs')}`, `--test-reporter-destination=${tapFile}`];

function nodeTest(files, tapFile, limit, env = {}, label, nodeArgs = [], concurrency = 1, quiet = false) {
  const grep = opts.grep ? ['--test-name-pattern', opts.grep] : [];
  return run(
    process.execPath,
    [
      ...nodeArgs,
      '--test',
      `--test-concurrency=${concurrency}`,
      ...grep,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      ...tapReporter(tapFile),
      ...files,
    ],
    { limit, env, label, quiet },
  );
}

/** Whether `unshare -n` works here; otherwise why not (the netns tests then skip with it). */
function netnsProbe() {
  const r = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
  if (r.error) return `unshare is not available (${r.error.code ?? r.error.message})`;
  return r.status === 0 ? undefined : `unshare -n is not permitted here: ${(r.stderr || '').trim() || `exit ${r.status}`}`;
}

/** node --test inside `unshare -n` (only `lo`, brought up); plain with a skip reason when not permitted. */
function netnsNodeTest(files, tapFile, limit, env = {}, label, quiet = false) {
  const why = netnsProbe();
  if (why) {
    console.log(`(netns) ${why}: these tests report skipped`);
    return nodeTest(files, tapFile, limit, { ...env, AGENTRL_NETNS_SKIP: why }, label, [], 1, quiet);
  }
  const grep = opts.grep ? ['--test-name-pattern', opts.grep] : [];
  const q = (a) => `'${a.replace(/'/g, `'\\''`)}'`;
  const inner = [
    process.execPath,
    '--test',
    '--test-concurrency=1',
    ...grep,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    ...tapReporter(tapFile),
    ...files,
  ]
    .map(q)
    .join(' ');
  return run('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec ${inner}`], { limit, env, label, quiet });
}

/**
 * Test files as separate runs (one `node --test` each, in a network namespace of its own for a
 * netns file), `slots` at a time: a file of weight 2 (it starts what takes every core) waits
 * until it can run alone. Each run's output is held and printed whole when it ends; its TAP
 * goes to test-results/files/<tier>/…; each keeps its own time box and leftover sweep. Longest
 * first (by the last run's times in test-results/file-times.json; else Ray files, then larger sources):
 * the last file to start should be a short one. One result line per group.
 */
async function filePool(group, jobs, slots) {
  say(`${group}: ${jobs.length} files, up to ${slots} at a time`);
  const last = lastFileTimes();
  // without a last time: a Ray file first (a cluster to start), then the larger source first
  const guess = (j) => last[j.rel] ?? (j.netns ? 1e6 : 0) + fs.statSync(path.join(root, j.rel)).size / 1e3;
  const order = [...jobs].sort((a, b) => guess(b) - guess(a));
  const started = Date.now();
  let cpu = 0;
  const sum = { passed: 0, failed: 0, skipped: 0 };
  let failedRuns = 0;
  let free = slots;
  const waiting = [];
  const release = (w) => {
    free += w;
    while (waiting.length && free >= waiting[0].w) {
      const next = waiting.shift();
      free -= next.w;
      next.go();
    }
  };
  // first: a Ray file whose turn came (the previous one ended) takes the next free slot
  const acquire = (w, first = false) =>
    free >= w && !waiting.length ? ((free -= w), Promise.resolve()) : new Promise((go) => (first ? waiting.unshift({ w, go }) : waiting.push({ w, go })));
  // One Ray cluster at a time: two (four Ray nodes, each a dozen processes) beside each other on
  // two cores let a job supervisor die ("The actor died unexpectedly", CI, 2026-12-07).
  let rayFree = Promise.resolve();
  await Promise.all(
    order.map(async (job) => {
      const w = Math.min(job.weight ?? 1, slots);
      let rayDone = () => {};
      if (job.netns) {
        const before = rayFree;
        rayFree = new Promise((done) => (rayDone = done));
        await before;
      }
      await acquire(w, job.netns);
      try {
        const tap = path.join(root, 'test-results', 'files', job.rel.replace(/\.ts$/, '.tap'));
        fs.mkdirSync(path.dirname(tap), { recursive: true });
        fs.rmSync(tap, { force: true });
        const r = await job.start(tap);
        cpu += r.cpu ?? 0;
        runTimes[job.rel] = r.secs;
        const c = tapCounts(tap);
        console.log(`\n--- ${job.rel} (${r.secs.toFixed(0)} s${r.cpu === undefined ? '' : `, ${r.cpu.toFixed(0)} CPU s`})`);
        process.stdout.write(r.out);
        tapFileTimes(tap);
        if (!Number.isFinite(c.passed) || !Number.isFinite(c.failed)) {
          console.error(`!!! ${job.rel}: no result counts (exit ${r.code}); counted as 1 failure`);
          failedTests.set(job.rel, [`no result counts (exit ${r.code})`]);
          failedRuns += 1;
        } else {
          sum.passed += c.passed;
          sum.failed += c.failed;
          sum.skipped += c.skipped || 0;
          if (r.code !== 0 && c.failed === 0) {
            console.error(`!!! ${job.rel}: exited ${r.code} with no failing test; counted as 1 failure`);
            failedTests.set(job.rel, [`exited ${r.code} with no failing test`]);
            failedRuns += 1;
          }
        }
      } finally {
        release(w);
        rayDone();
      }
    }),
  );
  const r = { code: failedRuns ? 1 : 0, secs: (Date.now() - started) / 1000, cpu };
  add(group, r, { ...sum, failed: sum.failed + failedRuns }, undefined, true); // each file's failures already named
}

/** Seconds per test file (`test/<tier>/….ts`) of the last run that printed them (see finish). */
const FILE_TIMES = path.join(root, 'test-results', 'file-times.json');
/** This run's seconds per file of filePool, merged into FILE_TIMES at the end. */
const runTimes = {};
function lastFileTimes() {
  try {
    return JSON.parse(fs.readFileSync(FILE_TIMES, 'utf8'));
  } catch {
    return {};
  }
}

/** A file of a node:test tier as a job of filePool: plain, or alone in a namespace of its own. */
function fileJob(tier, js, { env = {}, nodeArgs = [], weight = 1 } = {}) {
  const rel = path.relative(path.join(root, 'out'), js).replace(/\.js$/, '.ts');
  const netns = /\.netns\.(test|e2e)\.js$/.test(js);
  return {
    rel,
    netns,
    weight,
    start: (tap) => (netns ? netnsNodeTest([js], tap, LIMITS[tier], env, rel, true) : nodeTest([js], tap, LIMITS[tier], env, rel, nodeArgs, 1, true)),
  };
}

/** Component files run this many at a time (AGENTRL_COMPONENT_CONCURRENCY=1: one by one, as before). */
const COMPONENT_CONCURRENCY = Math.max(1, Number(process.env.AGENTRL_COMPONENT_CONCURRENCY ?? 2) || 1);
/** E2e files run this many at a time: each has a workbench of its own (code-server on a free port,
 *  its own user data and workspace copy, its own Chromium) and waits on the UI most of its time.
 *  AGENTRL_E2E_CONCURRENCY=1: one by one. */
const E2E_CONCURRENCY = Math.max(1, Number(process.env.AGENTRL_E2E_CONCURRENCY ?? 2) || 1);
/** Harness modules that start what takes every core: Chromium (and VS Code), Ray. (The model
 *  server's llama.cpp runs one thread in tests: a file with one runs two at a time.) */
const EVERY_CORE = /\/harness\/(browser|webview-page|token-view-page|ray-cluster|vscode-server)$/;

/** Whether a compiled test file imports, through the test/ files it imports, one of EVERY_CORE. */
function usesEveryCore(jsFile) {
  const seen = new Set();
  const visit = (ts) => {
    if (seen.has(ts) || !fs.existsSync(ts)) return false;
    seen.add(ts);
    const text = fs.readFileSync(ts, 'utf8');
    for (const m of text.matchAll(/(?:from|import|require\()\s*['"](\.[^'"]+)['"]/g)) {
      const target = path.resolve(path.dirname(ts), m[1]);
      if (EVERY_CORE.test(target)) return true;
      if (target.startsWith(path.join(root, 'test') + path.sep) && visit(`${target.replace(/\.js$/, '')}.ts`)) return true;
    }
    return false;
  };
  const ts = path.join(root, path.relative(path.join(root, 'out'), jsFile)).replace(/\.js$/, '.ts');
  return ALONE_MARK.test(fs.existsSync(ts) ? fs.readFileSync(ts, 'utf8') : '') || visit(ts);
}
/** A test file's own line asking to run alone: limits of a second or so, in real time (say which). */
const ALONE_MARK = /^\/\/ Runs alone \(scripts\/test\.mjs\): /m;

/** A node:test tier: its files, then its `*.netns.test.js` files in a loopback-only namespace. */
async function nodeTier(tier, title, nodeArgs = []) {
  say(title);
  const tap = path.join(root, 'test-results', `${tier}.tap`);
  fs.rmSync(tap, { force: true });
  const all = tierFiles(tier, '.test.js');
  const files = all.filter((f) => !f.endsWith('.netns.test.js'));
  const netnsFiles = all.filter((f) => f.endsWith('.netns.test.js'));
  if (tier === 'component' && COMPONENT_CONCURRENCY > 1) {
    // Two files at a time where a file holds one core at most (Python, the relay, Trinity's
    // code): their ports are ephemeral and their folders temporary. A file against a real Ray
    // cluster runs among them in a loopback-only network namespace of its own (Ray's fixed
    // ports are then its own). So does a file with a model server: its llama.cpp runs one thread
    // (test/harness/model-server.ts). A file that starts Chromium, or says `// Runs alone
    // (scripts/test.mjs): <why>` (real-time limits of a second), runs alone afterwards.
    const alone = files.filter(usesEveryCore);
    const together = files.filter((f) => !alone.includes(f));
    await filePool(
      `${tier} (${COMPONENT_CONCURRENCY} at a time)`,
      [...together, ...netnsFiles].map((f) => fileJob(tier, f, { nodeArgs })),
      COMPONENT_CONCURRENCY,
    );
    await filePool(
      `${tier} (alone)`,
      alone.map((f) => fileJob(tier, f, { nodeArgs, weight: COMPONENT_CONCURRENCY })),
      COMPONENT_CONCURRENCY,
    );
    return;
  }
  const r = await nodeTest(files, tap, LIMITS[tier], {}, tier, nodeArgs);
  add(tier, r, tapCounts(tap), tap);
  // Tests against a real Ray cluster run in a loopback-only network namespace of their own.
  if (netnsFiles.length) {
    say(`${tier} tests in a loopback-only network namespace (real Ray cluster)`);
    const ntap = path.join(root, 'test-results', `${tier}-netns.tap`);
    fs.rmSync(ntap, { force: true });
    const rn = await netnsNodeTest(netnsFiles, ntap, LIMITS[tier], {}, `${tier} (netns)`);
    add(`${tier} (netns)`, rn, tapCounts(ntap), ntap);
  }
}

const totals = { passed: 0, failed: 0, skipped: 0 };
/** [tier, seconds] in the order run; { file, secs } of every node:test file (from its TAP). */
const tierTimes = [];
const fileTimes = [];
/** The `# time <seconds> <file>` comments of a TAP file (scripts/test-times-reporter.mjs), summed per file. */
function tapFileTimes(tapFile) {
  const text = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, 'utf8') : '';
  const secs = new Map();
  for (const m of text.matchAll(/^# time ([\d.]+) (.+)$/gm)) secs.set(m[2], (secs.get(m[2]) ?? 0) + Number(m[1]));
  for (const [file, s] of secs) fileTimes.push({ file: path.relative(path.join(root, 'out'), file).replace(/\.js$/, '.ts'), secs: s });
}
function add(tier, r, counts, tapFile, named = false) {
  if (Number.isFinite(r.secs)) tierTimes.push([tier, r.secs, r.cpu]);
  if (tapFile) tapFileTimes(tapFile);
  const ok = Number.isFinite(counts.passed) && Number.isFinite(counts.failed);
  if (!ok) {
    console.error(`!!! ${tier}: no result counts (exit ${r.code}); counted as 1 failure`);
    failedTests.set(tier, [`no result counts (exit ${r.code})`]);
    totals.failed += 1;
    return;
  }
  if (counts.failed > 0 && !tapFile && !named) failedTests.set(tier, [`${counts.failed} failed: the ${tier} output above names them`]);
  totals.passed += counts.passed;
  totals.failed += counts.failed;
  totals.skipped += counts.skipped || 0;
  if (r.code !== 0 && counts.failed === 0) {
    console.error(`!!! ${tier}: exited ${r.code} with no failing test; counted as 1 failure`);
    failedTests.set(tier, [`exited ${r.code} with no failing test`]);
    totals.failed += 1;
  }
  console.log(`--- ${tier}: ${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}`);
}

const needsHost = tiers.some((t) => t === 'integration' || t === 'e2e');
// The unit tier needs nothing installed; the lint tier the pinned ruff alone (a venv of its own,
// not the test venv with torch and TensorFlow); the component tier the Python venv, the model
// server, Trinity and Ray; the integration and e2e tiers everything (code-server, apt packages too).
const setupParts = needsHost ? [] : tiers.includes('component') ? ['python', 'model', 'trinity', 'ray'] : tiers.includes('lint') ? ['ruff'] : undefined;
/** Setup still under way, and whether a tier must wait for it (see awaitSetup). */
let setupJob;
if (!opts['no-setup'] && setupParts) {
  const what = setupParts.length ? setupParts.join(', ') : 'apt packages, code-server, python venv, ruff, model server, Trinity, Ray';
  const laterTiers = tiers.some((t) => t !== 'lint' && t !== 'unit');
  if (laterTiers && !one) {
    // On a fresh machine the venvs, code-server and llama.cpp take minutes, mostly downloads and
    // unpacking: they go on in the background while the build, the compile, the unit tier and lint
    // (which needs ruff alone, installed first) use the cores; the first tier that needs them waits.
    if (tiers.includes('lint')) {
      say('setup (idempotent): ruff, for lint');
      must('bash', ['scripts/setup.sh', 'ruff']);
    }
    say(`setup (idempotent): ${what} — in the background until the first tier that needs it`);
    const started = Date.now();
    setupJob = run('bash', ['scripts/setup.sh', ...setupParts], { limit: 30 * MIN, label: 'setup', quiet: true }).then((r) => ({
      ...r,
      secs: (Date.now() - started) / 1000,
    }));
  } else {
    say(`setup (idempotent): ${what}`);
    must('bash', ['scripts/setup.sh', ...setupParts]);
  }
}
/** Waits for the background setup; its output is printed whole; a failed setup ends the run. */
async function awaitSetup() {
  if (!setupJob) return;
  const r = await setupJob;
  setupJob = undefined;
  say(`setup: ran ${r.secs.toFixed(0)} s in the background`);
  process.stdout.write(r.out);
  tierTimes.push(['setup (background)', r.secs, r.cpu]);
  if (r.code !== 0) mustFailed('bash', ['scripts/setup.sh', ...setupParts], r.code);
}
const LINT_TITLE = 'lint (ESLint, knip, ruff, comment paths, test mirroring, test hygiene, glossary, format)';
/** Lint and the unit tier are one process each, and lint needs only dist/ (ruff checks the
 *  templates as the CLI renders them): with both asked for, lint runs beside the compile and the
 *  unit tier, on the other core, its output held and printed whole after the unit tier. */
const lintBeside = tiers.includes('lint') && tiers.includes('unit');
let lintJob;
function startLint() {
  const grep = opts.grep ? ['--grep', opts.grep] : [];
  const started = Date.now();
  say(`${LINT_TITLE}: started beside the compile and the unit tier; its output follows the unit (or the component) tier`);
  lintJob = run(process.execPath, ['scripts/lint.mjs', ...grep], { limit: LIMITS.lint, label: 'lint', quiet: true }).then((r) => ({
    ...r,
    secs: (Date.now() - started) / 1000,
  }));
}
async function finishLint() {
  if (!lintJob) return;
  const r = await lintJob;
  lintJob = undefined;
  say(`${LINT_TITLE}: ran ${r.secs.toFixed(0)} s beside the compile and the unit (and component) tier`);
  process.stdout.write(r.out);
  add('lint', r, closingCounts(r.out));
}

/** tsc, incremental: its build info lives in out/, so a removed out/ compiles everything again. */
async function compile() {
  await mustAsync('npx', ['tsc', '-p', '.', '--incremental', '--tsBuildInfoFile', 'out/.tsbuildinfo']);
  // browser code: type-checked with the DOM lib, bundled by esbuild
  await mustAsync('npx', ['tsc', '-p', 'tsconfig.webview.json', '--incremental', '--tsBuildInfoFile', 'out/webview.tsbuildinfo']);
}

const built = Date.now();
const lintOnly = tiers.every((t) => t === 'lint');
// The unit tier reads no dist/ (test/unit/test-tiers.test.ts keeps it so): tsc alone.
const unitOnly = tiers.every((t) => t === 'unit');
if (!opts['no-build'] && lintOnly) {
  say('build (esbuild: the CLI renders the templates ruff checks)');
  must('npm', ['run', '--silent', 'build']);
} else if (!opts['no-build'] && (unitOnly || one)) {
  // out/ kept: tierFiles() skips the JavaScript of tests whose source is gone
  if (!unitOnly) {
    say('build (esbuild)');
    must('npm', ['run', '--silent', 'build']);
  }
  say('compile (tsc, incremental)');
  await compile();
} else if (!opts['no-build']) {
  say('build (esbuild) and compile (tsc)');
  must('npm', ['run', '--silent', 'build']);
  if (lintBeside) startLint();
  // a clean out/: a test file moved or deleted in src must not keep running from a stale copy
  fs.rmSync(path.join(root, 'out'), { recursive: true, force: true });
  await compile();
} else if (lintBeside) {
  startLint();
}
if (!opts['no-build']) tierTimes.push(['build and compile', (Date.now() - built) / 1000]);

if (one) await runOneFile();

/** The closing `N passed, N failed[, N skipped]` line of a run's output. */
function closingCounts(out) {
  const m = [...out.matchAll(/^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm)].pop();
  return m ? { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3] ?? 0) } : { passed: NaN, failed: NaN };
}

for (const tier of tiers) {
  if (tier === 'lint' && lintBeside) {
    continue; // under way since the build; reported after the unit tier
  } else if (tier === 'lint') {
    say(LINT_TITLE);
    const grep = opts.grep ? ['--grep', opts.grep] : [];
    const r = await run(process.execPath, ['scripts/lint.mjs', ...grep], { limit: LIMITS.lint, label: 'lint' });
    add('lint', r, closingCounts(r.out));
  } else if (tier === 'unit') {
    // A process or a socket in a unit test throws (test/harness/unit-tripwire.ts).
    await nodeTier('unit', 'unit tests (node:test, in process)', ['--require', path.join(root, 'out', 'test', 'harness', 'unit-tripwire.js')]);
    // with the component tier next, lint (ESLint outlasts the unit tier) goes on beside its start
    if (!tiers.includes('component')) await finishLint();
  } else if (tier === 'component') {
    await awaitSetup();
    await nodeTier('component', 'component tests (node:test; real processes and sockets)');
    await finishLint();
  } else if (tier === 'integration') {
    await awaitSetup();
    say('integration tests (real VS Code extension host)');
    const grep = opts.grep ? ['--grep', opts.grep] : [];
    const r = await run(process.execPath, ['out/test/harness/run-ext-tests.js', ...grep, '--timeout', String(LIMITS.integration - MIN)], {
      limit: LIMITS.integration,
      label: 'integration',
    });
    add('integration', r, closingCounts(r.out));
    // a second window on a two-folder (multi-root) workspace, for per-folder settings
    if (!opts.grep || /folder/i.test(opts.grep)) {
      const mr = await run(
        process.execPath,
        [
          'out/test/harness/run-ext-tests.js',
          '--workspace',
          'test/fixtures/multi-root/multi-root.code-workspace',
          '--grep',
          'per workspace folder',
          '--timeout',
          String(LIMITS.integration - MIN),
        ],
        { limit: LIMITS.integration, label: 'integration (multi-root)' },
      );
      add('integration (multi-root)', mr, closingCounts(mr.out));
    }
    // Suites against a real Ray cluster: a second host (code-server + Chromium) in a loopback-only
    // namespace, after the first. Not beside it: two Ray clusters, two workbenches and a model
    // server on two cores left an extension host unresponsive for minutes (CI, 2026-12-07: a
    // debug session that never stopped, an attach suite that hung to its time box).
    let netnsRun;
    if (tierFiles('integration', '.netns.test.js').length) {
      say('integration tests in a loopback-only network namespace (real Ray cluster): after the others');
      const why = netnsProbe();
      const ext = [process.execPath, 'out/test/harness/run-ext-tests.js', ...grep, '--timeout', String(LIMITS.integration - MIN)];
      netnsRun = why
        ? run(ext[0], ext.slice(1), {
            limit: LIMITS.integration,
            env: { AGENTRL_TEST_NETNS: 'only', AGENTRL_NETNS_SKIP: why },
            label: 'integration (netns)',
          })
        : run('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec ${ext.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`], {
            limit: LIMITS.integration,
            env: { AGENTRL_TEST_NETNS: 'only' },
            label: 'integration (netns)',
          });
    }
    if (netnsRun) {
      const rn = await netnsRun;
      add('integration (netns)', rn, closingCounts(rn.out));
    }
  } else if (tier === 'e2e') {
    await awaitSetup();
    say('e2e tests (workbench UI in Chromium, packaged VSIX)');
    if (!opts['no-build']) must('node', ['scripts/package.mjs', '--out', '.vscode-test/agent-rl-studio-test.vsix']);
    const tap = path.join(root, 'test-results', 'e2e.tap');
    fs.rmSync(tap, { force: true });
    const all = tierFiles('e2e', '.e2e.js');
    const files = all.filter((f) => !f.endsWith('.netns.e2e.js'));
    const vsixEnv = { AGENTRL_E2E_VSIX: path.join(root, '.vscode-test', 'agent-rl-studio-test.vsix') };
    const netnsFiles = all.filter((f) => f.endsWith('.netns.e2e.js'));
    if (E2E_CONCURRENCY > 1) {
      // each file in a workbench of its own; a Ray file in a loopback-only namespace of its own
      await filePool(
        `e2e (${E2E_CONCURRENCY} at a time)`,
        all.map((f) => fileJob('e2e', f, { env: vsixEnv })),
        E2E_CONCURRENCY,
      );
    } else {
      const r = await nodeTest(files, tap, LIMITS.e2e, vsixEnv, 'e2e');
      add('e2e', r, tapCounts(tap), tap);
    }
    if (netnsFiles.length && E2E_CONCURRENCY === 1) {
      say('e2e tests in a loopback-only network namespace (real Ray cluster)');
      const ntap = path.join(root, 'test-results', 'e2e-netns.tap');
      fs.rmSync(ntap, { force: true });
      const rn = await netnsNodeTest(netnsFiles, ntap, LIMITS.e2e, vsixEnv, 'e2e (netns)');
      add('e2e (netns)', rn, tapCounts(ntap), ntap);
    }
  }
}

finish();

/** `--file`: the one file, run as its tier runs its files. */
async function runOneFile() {
  const { tier, rel, js, netns } = one;
  say(`${rel} (${tier} tier)`);
  // the file's own TAP (as in filePool): two `--file` runs at once do not share one
  const tap = path.join(root, 'test-results', 'files', rel.replace(/\.ts$/, '.tap'));
  fs.mkdirSync(path.dirname(tap), { recursive: true });
  fs.rmSync(tap, { force: true });
  const label = `${tier}: ${rel}`;
  let r;
  let counts;
  if (tier === 'unit') {
    r = await nodeTest([js], tap, LIMITS.unit, {}, label, ['--require', path.join(root, 'out', 'test', 'harness', 'unit-tripwire.js')]);
  } else if (tier === 'component') {
    r = await (netns ? netnsNodeTest : nodeTest)([js], tap, LIMITS.component, {}, label);
  } else if (tier === 'e2e') {
    if (!opts['no-build']) must('node', ['scripts/package.mjs', '--out', '.vscode-test/agent-rl-studio-test.vsix']);
    const vsixEnv = { AGENTRL_E2E_VSIX: path.join(root, '.vscode-test', 'agent-rl-studio-test.vsix') };
    r = await (netns ? netnsNodeTest : nodeTest)([js], tap, LIMITS.e2e, vsixEnv, label);
  } else {
    const grep = opts.grep ? ['--grep', opts.grep] : [];
    const ext = [process.execPath, 'out/test/harness/run-ext-tests.js', ...grep, '--timeout', String(LIMITS.integration - MIN)];
    const env = { AGENTRL_TEST_FILE: js, ...(netns ? { AGENTRL_TEST_NETNS: 'only' } : {}) };
    const why = netns ? netnsProbe() : 'not a netns file';
    r =
      netns && !why
        ? await run('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec ${ext.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`], {
            limit: LIMITS.integration,
            env,
            label,
          })
        : await run(ext[0], ext.slice(1), { limit: LIMITS.integration, env: netns ? { ...env, AGENTRL_NETNS_SKIP: why } : env, label });
    counts = closingCounts(r.out);
  }
  add(tier, r, counts ?? tapCounts(tap), counts ? undefined : tap);
  finish();
}

/** Each tier's time and the slowest test files, then the last line (nothing may print after it). */
function finish() {
  if (tierTimes.length) {
    console.log('\n=== time per tier (wall; CPU of its processes)');
    for (const [tier, secs, cpu] of tierTimes)
      console.log(`    ${tier.padEnd(26)} ${secs.toFixed(0).padStart(5)} s${cpu === undefined ? '' : `  ${cpu.toFixed(0).padStart(5)} CPU s`}`);
  }
  const slow = fileTimes.sort((a, b) => b.secs - a.secs).slice(0, 15);
  if (slow.length) {
    console.log('=== slowest test files (wall; CPU of the processes it started)');
    for (const f of slow) {
      const cpu = fileCpu.get(f.file);
      console.log(`    ${f.secs.toFixed(1).padStart(7)} s ${cpu === undefined ? ' '.repeat(11) : `${cpu.toFixed(1).padStart(7)} CPU`}  ${f.file}`);
    }
  }
  if (failedTests.size) {
    console.log('=== failed');
    for (const [where, names] of failedTests) for (const n of names.slice(0, 20)) console.log(`    ${where}: ${n}`);
  }
  if (Object.keys(runTimes).length) fs.writeFileSync(FILE_TIMES, `${JSON.stringify({ ...lastFileTimes(), ...runTimes }, null, 1)}\n`);
  say(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  console.log(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
  process.exit(totals.failed > 0 ? 1 : 0);
}
