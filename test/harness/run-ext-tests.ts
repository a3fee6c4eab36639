// Runs the mocha suites of test/integration inside a REAL VS Code extension host (the VS
// Code server bundled in code-server 4.100.3), with nothing downloaded at test time:
// headless Debian Chromium loads the web workbench with the standard
// extensionDevelopmentPath / extensionTestsPath payload, and the workbench reports the
// exit code through window.codeAutomationExit (the hook @vscode/test-web uses).
//
//   node out/test/harness/run-ext-tests.js [--ext DIR] [--tests out/test/integration/index.js]
//        [--workspace DIR] [--grep REGEX] [--timeout MS] [--screenshot PNG] [--keep] [--verbose]
//
// Prints a last line `N passed, N failed[, N skipped]`. Exit: 0 all passed, 1 failures,
// 2 harness error or timeout.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as util from 'util';
import { parseArgs } from 'util';
import { launchChromium } from './browser';
import { repoRoot } from './paths';
import { startServer, RunningServer } from './vscode-server';

interface Stats {
  passes: number;
  failures: number;
  pending: number;
}

const t0 = Date.now();
/** Workbench log lines that are expected offline and say nothing about our tests. */
const NOISE = /open-vsx\.org|\[Service Worker\]|Creating a socket|connection token|ChatSessionStore|builtin extensions cache|^\s+at /;
const stamp = () => `[${((Date.now() - t0) / 1000).toFixed(1)}s]`;
const log = (...m: unknown[]) => console.log(stamp(), '[harness]', ...m);

/** Copies the sample workspace so tests may write into it freely. */
function makeWorkspace(tmp: string): string {
  const ws = path.join(tmp, 'workspace');
  fs.cpSync(path.join(repoRoot, 'sample-workspace'), ws, { recursive: true });
  return ws;
}

/** A `.code-workspace` file (multi-root) is copied with its folder; a folder is used as is. */
function prepareWorkspace(given: string, tmp: string): string {
  if (!given.endsWith('.code-workspace')) return given;
  const dir = path.join(tmp, 'multi-root');
  fs.cpSync(path.dirname(given), dir, { recursive: true });
  return path.join(dir, path.basename(given));
}

async function main(): Promise<number> {
  const { values: args } = parseArgs({
    options: {
      ext: { type: 'string', default: repoRoot },
      // Extensions installed beside ours (test stand-ins in test/fixtures): the server
      // honours one extensionDevelopmentPath, so these are copied into its extensions dir.
      'extra-ext': { type: 'string', multiple: true, default: [path.join(repoRoot, 'test', 'fixtures', 'debugpy-standin')] },
      tests: { type: 'string', default: path.join(repoRoot, 'out', 'test', 'integration', 'index.js') },
      workspace: { type: 'string' },
      grep: { type: 'string' },
      timeout: { type: 'string', default: '600000' },
      screenshot: { type: 'string' },
      keep: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      'results-file': { type: 'string' },
    },
  });
  const extDir = path.resolve(args.ext);
  const testsPath = path.resolve(args.tests);
  for (const [what, p] of [
    ['extension dir', extDir],
    ['tests entry', testsPath],
  ] as const) {
    if (!fs.existsSync(p)) throw new Error(`${what} not found: ${p}`);
  }
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-it-'));
  const resultsFile = args['results-file'] ?? path.join(scratch, 'results.json');
  const workspace = args.workspace ? prepareWorkspace(path.resolve(args.workspace), scratch) : makeWorkspace(scratch);
  const isWorkspaceFile = workspace.endsWith('.code-workspace');
  let server: RunningServer | undefined;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let mochaSummary: Stats | undefined;
  try {
    const extensionsDir = path.join(scratch, 'extensions');
    for (const dir of args['extra-ext'] ?? []) {
      if (!fs.existsSync(path.join(dir, 'package.json'))) continue;
      const m = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { publisher: string; name: string; version: string };
      fs.cpSync(dir, path.join(extensionsDir, `${m.publisher}.${m.name}-${m.version}`), { recursive: true });
    }
    server = await startServer({
      extensionsDir,
      keep: args.keep,
      verbose: args.verbose,
      env: {
        VSCODE_EXT_TEST_RESULTS: resultsFile,
        ...(args.grep ? { AGENTRL_TEST_GREP: args.grep } : {}),
        AGENTRL_TEST_WORKSPACE: workspace,
      },
    });
    log('VS Code server up on', server.base);
    const authority = await server.authority(isWorkspaceFile ? path.dirname(workspace) : workspace);
    const remote = (p: string) => `vscode-remote://${authority}${p}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(extDir)],
      ['extensionTestsPath', remote(testsPath)],
      ['skipWelcome', 'true'],
    ]);
    const url = `${server.base}/?${isWorkspaceFile ? 'workspace' : 'folder'}=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`;
    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    let resolveExit!: (code: number) => void;
    const exited = new Promise<number>((r) => (resolveExit = r));
    await page.exposeFunction('codeAutomationLog', (type: string, logArgs: unknown) => {
      const text = Array.isArray(logArgs) ? util.format(...(logArgs as unknown[])) : String(logArgs);
      const pm = text.match(/^\s*(\d+) passing/);
      if (pm) mochaSummary = { ...(mochaSummary ?? { failures: 0, pending: 0 }), passes: Number(pm[1]) };
      const fm = text.match(/^\s*(\d+) failing/);
      if (fm) mochaSummary = { ...(mochaSummary ?? { passes: 0, pending: 0 }), failures: Number(fm[1]) };
      if (args.verbose || !NOISE.test(text)) console.log(stamp(), `[exthost ${type}]`, text);
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => resolveExit(code));
    page.on('pageerror', (err) => console.log(stamp(), '[browser pageerror]', err.message));
    if (args.verbose) page.on('console', (m) => console.log(stamp(), `[browser ${m.type()}]`, m.text()));
    log('opening workbench on', workspace);
    await page.goto(url);
    const timeoutMs = Number(args.timeout);
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)))]);
    clearTimeout(timer);
    if (args.screenshot) await page.screenshot({ path: path.resolve(args.screenshot) }).catch(() => undefined);
    if (code === 'timeout') {
      log(`TIMEOUT after ${timeoutMs} ms; server log kept in ${server.logFile}`);
      args.keep = true;
      return 2;
    }
    log(`extension tests finished with exit code ${code}`);
    return code;
  } finally {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    let stats: Stats | undefined;
    try {
      stats = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as Stats;
    } catch {
      stats = mochaSummary;
    }
    if (!args.keep) fs.rmSync(scratch, { recursive: true, force: true });
    if (stats) {
      console.log(`${stats.passes ?? 0} passed, ${stats.failures ?? 0} failed${stats.pending ? `, ${stats.pending} skipped` : ''}`);
    }
  }
}

main().then(
  (rc) => process.exit(rc),
  (e: unknown) => {
    console.error(stamp(), '[harness] error:', e);
    process.exit(2);
  },
);
