#!/usr/bin/env node
// `npm test` — every tier, time-boxed, one summary line at the end.
//   node scripts/test.mjs [unit] [integration] [e2e] [--grep REGEX] [--no-setup] [--no-build]
// Tiers: unit (node:test, no VS Code) · integration (mocha in a real VS Code extension host)
//        · e2e (playwright-core drives the real workbench in Chromium, with the packaged VSIX).
// Last line: `N passed, N failed[, N skipped]`; exit 1 on any failure, hang or crash.
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
  },
});
const ALL = ['unit', 'integration', 'e2e'];
const tiers = positionals.length ? positionals : ALL;
for (const t of tiers) if (!ALL.includes(t)) { console.error(`unknown tier '${t}' (expected ${ALL.join(', ')})`); process.exit(2); }

const MIN = 60_000;
// Hang guards, not targets: a tier that takes this long on a 2-core machine has hung.
const LIMITS = { unit: 15 * MIN, integration: 12 * MIN, e2e: 12 * MIN };

fs.mkdirSync(path.join(root, 'test-results'), { recursive: true });
const t0 = Date.now();
const say = (m) => console.log(`\n=== [${((Date.now() - t0) / 1000).toFixed(0)}s] ${m}`);

function must(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) { console.error(`\n${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`); console.log('0 passed, 1 failed'); process.exit(1); }
}

/** Runs a command in its own process group, tees output, kills the group after `limit` ms. */
function run(cmd, args, { limit, env = {} }) {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, ...env } });
    let out = '';
    p.stdout.on('data', (b) => { out += b; process.stdout.write(b); });
    p.stderr.on('data', (b) => { out += b; process.stderr.write(b); });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      console.error(`\n!!! time box of ${limit / 1000} s exceeded: killing ${cmd} ${args.join(' ')}`);
      try { process.kill(-p.pid, 'SIGKILL'); } catch {}
    }, limit);
    const stop = () => { try { process.kill(-p.pid, 'SIGKILL'); } catch {} process.exit(130); };
    process.once('SIGINT', stop);
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      process.off('SIGINT', stop);
      resolve({ code: timedOut ? 'timeout' : code ?? signal, out });
    });
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
function tapCounts(tapFile) {
  const text = fs.existsSync(tapFile) ? fs.readFileSync(tapFile, 'utf8') : '';
  const n = (k) => Number((text.match(new RegExp(`^# ${k} (\\d+)$`, 'm')) ?? [])[1] ?? NaN);
  return { passed: n('pass'), failed: n('fail') + (n('cancelled') || 0), skipped: (n('skipped') || 0) + (n('todo') || 0) };
}

function nodeTest(files, tapFile, limit, env = {}) {
  const grep = opts.grep ? ['--test-name-pattern', opts.grep] : [];
  return run(process.execPath, [
    '--test', '--test-concurrency=1', ...grep,
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=tap', `--test-reporter-destination=${tapFile}`,
    ...files,
  ], { limit, env });
}

/** Whether `unshare -n` works here; otherwise why not (the netns tests then skip with it). */
function netnsProbe() {
  const r = spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
  if (r.error) return `unshare is not available (${r.error.code ?? r.error.message})`;
  return r.status === 0 ? undefined : `unshare -n is not permitted here: ${(r.stderr || '').trim() || `exit ${r.status}`}`;
}

/** node --test inside `unshare -n` (only `lo`, brought up); plain with a skip reason when not permitted. */
function netnsNodeTest(files, tapFile, limit, env = {}) {
  const why = netnsProbe();
  if (why) {
    console.log(`(netns) ${why}: these tests report skipped`);
    return nodeTest(files, tapFile, limit, { ...env, AGENTRL_NETNS_SKIP: why });
  }
  const grep = opts.grep ? ['--test-name-pattern', opts.grep] : [];
  const q = (a) => `'${a.replace(/'/g, `'\\''`)}'`;
  const inner = [process.execPath, '--test', '--test-concurrency=1', ...grep, '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tapFile}`, ...files].map(q).join(' ');
  return run('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec ${inner}`], { limit, env });
}

const totals = { passed: 0, failed: 0, skipped: 0 };
function add(tier, r, counts) {
  const ok = Number.isFinite(counts.passed) && Number.isFinite(counts.failed);
  if (!ok) { console.error(`!!! ${tier}: no result counts (exit ${r.code}); counted as 1 failure`); totals.failed += 1; return; }
  totals.passed += counts.passed; totals.failed += counts.failed; totals.skipped += counts.skipped || 0;
  if (r.code !== 0 && counts.failed === 0) { console.error(`!!! ${tier}: exited ${r.code} with no failing test; counted as 1 failure`); totals.failed += 1; }
  console.log(`--- ${tier}: ${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}`);
}

const needsHost = tiers.some((t) => t !== 'unit');
if (!opts['no-setup']) {
  say('setup (idempotent: apt packages, code-server, python venv)');
  must('bash', ['scripts/setup.sh', ...(needsHost ? [] : ['python'])]);
}
if (!opts['no-build']) {
  say('build (esbuild) and compile (tsc)');
  must('npm', ['run', '--silent', 'build']);
  // a clean out/: a test file moved or deleted in src must not keep running from a stale copy
  fs.rmSync(path.join(root, 'out'), { recursive: true, force: true });
  must('npx', ['tsc', '-p', '.']);
  must('npx', ['tsc', '-p', 'tsconfig.webview.json']); // browser code: type-checked with the DOM lib, bundled by esbuild
}

for (const tier of tiers) {
  if (tier === 'unit') {
    say('unit tests (node:test)');
    const tap = path.join(root, 'test-results', 'unit.tap');
    fs.rmSync(tap, { force: true });
    const all = findFiles(path.join(root, 'out', 'test', 'unit'), '.test.js');
    const files = all.filter((f) => !f.endsWith('.netns.test.js'));
    const r = await nodeTest(files, tap, LIMITS.unit);
    add('unit', r, tapCounts(tap));
    // Tests against a real Ray cluster run in a loopback-only network namespace of their own.
    const netnsFiles = all.filter((f) => f.endsWith('.netns.test.js'));
    if (netnsFiles.length) {
      say('unit tests in a loopback-only network namespace (real Ray cluster)');
      const ntap = path.join(root, 'test-results', 'unit-netns.tap');
      fs.rmSync(ntap, { force: true });
      const rn = await netnsNodeTest(netnsFiles, ntap, LIMITS.unit);
      add('unit (netns)', rn, tapCounts(ntap));
    }
  } else if (tier === 'integration') {
    say('integration tests (real VS Code extension host)');
    const grep = opts.grep ? ['--grep', opts.grep] : [];
    const r = await run(process.execPath, ['out/test/harness/run-ext-tests.js', ...grep, '--timeout', String(LIMITS.integration - MIN)], { limit: LIMITS.integration });
    const m = [...r.out.matchAll(/^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm)].pop();
    add('integration', r, m ? { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3] ?? 0) } : { passed: NaN, failed: NaN });
    // a second window on a two-folder (multi-root) workspace, for per-folder settings
    if (!opts.grep || /folder/i.test(opts.grep)) {
      const mr = await run(process.execPath, ['out/test/harness/run-ext-tests.js', '--workspace', 'test/fixtures/multi-root/multi-root.code-workspace', '--grep', 'per workspace folder', '--timeout', String(LIMITS.integration - MIN)], { limit: LIMITS.integration });
      const mm = [...mr.out.matchAll(/^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm)].pop();
      add('integration (multi-root)', mr, mm ? { passed: Number(mm[1]), failed: Number(mm[2]), skipped: Number(mm[3] ?? 0) } : { passed: NaN, failed: NaN });
    }
    // Suites against a real Ray cluster: a second host (code-server + Chromium) in a loopback-only namespace.
    if (findFiles(path.join(root, 'out', 'test', 'integration'), '.netns.test.js').length) {
      say('integration tests in a loopback-only network namespace (real Ray cluster)');
      const why = netnsProbe();
      const ext = [process.execPath, 'out/test/harness/run-ext-tests.js', ...grep, '--timeout', String(LIMITS.integration - MIN)];
      const rn = why
        ? await run(ext[0], ext.slice(1), { limit: LIMITS.integration, env: { AGENTRL_TEST_NETNS: 'only', AGENTRL_NETNS_SKIP: why } })
        : await run('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec ${ext.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}`], { limit: LIMITS.integration, env: { AGENTRL_TEST_NETNS: 'only' } });
      const mn = [...rn.out.matchAll(/^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$/gm)].pop();
      add('integration (netns)', rn, mn ? { passed: Number(mn[1]), failed: Number(mn[2]), skipped: Number(mn[3] ?? 0) } : { passed: NaN, failed: NaN });
    }
  } else if (tier === 'e2e') {
    say('e2e tests (workbench UI in Chromium, packaged VSIX)');
    if (!opts['no-build']) must('node', ['scripts/package.mjs', '--out', '.vscode-test/agent-rl-studio-test.vsix']);
    const tap = path.join(root, 'test-results', 'e2e.tap');
    fs.rmSync(tap, { force: true });
    const all = findFiles(path.join(root, 'out', 'test', 'e2e'), '.e2e.js');
    const files = all.filter((f) => !f.endsWith('.netns.e2e.js'));
    const vsixEnv = { AGENTRL_E2E_VSIX: path.join(root, '.vscode-test', 'agent-rl-studio-test.vsix') };
    const r = await nodeTest(files, tap, LIMITS.e2e, vsixEnv);
    add('e2e', r, tapCounts(tap));
    const netnsFiles = all.filter((f) => f.endsWith('.netns.e2e.js'));
    if (netnsFiles.length) {
      say('e2e tests in a loopback-only network namespace (real Ray cluster)');
      const ntap = path.join(root, 'test-results', 'e2e-netns.tap');
      fs.rmSync(ntap, { force: true });
      const rn = await netnsNodeTest(netnsFiles, ntap, LIMITS.e2e, vsixEnv);
      add('e2e (netns)', rn, tapCounts(ntap));
    }
  }
}

say(`done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
console.log(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(totals.failed > 0 ? 1 : 0);
