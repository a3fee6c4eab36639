// Starts a real VS Code server (the one inside code-server 4.100.3) on loopback, in its own
// process group so that stop() also reaps the extension host, pty host and file watchers.
import { spawn, ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { codeServerBin, serverMainOf } from './paths';
import { sleep } from './wait';

export interface ServerOptions {
  /** 'vscode' runs code-server's server-main.js with the smoke-test driver (test payloads honoured);
   *  'code-server' runs code-server's own CLI (what users run; `npm start`). */
  mode?: 'vscode' | 'code-server';
  /** Folder holding installed extensions (e.g. a VSIX installed with installVsix()). */
  extensionsDir?: string;
  /** User settings written to settings.json before start. */
  settings?: Record<string, unknown>;
  port?: number;
  host?: string;
  env?: NodeJS.ProcessEnv;
  verbose?: boolean;
  /** Keep the temp dir (logs) after stop(). */
  keep?: boolean;
  /** Persistent state folder (user data, logs) instead of a temp dir; never deleted. */
  dataDir?: string;
  /** Turn Workspace Trust on: the folder then opens untrusted (Restricted Mode), no prompt. */
  workspaceTrust?: boolean;
}

export interface RunningServer {
  readonly base: string;
  readonly port: number;
  readonly tmp: string;
  readonly logFile: string;
  readonly extensionsDir: string;
  readonly userDataDir: string;
  /** The remote authority the workbench uses for vscode-remote:// URIs. */
  authority(folder: string): Promise<string>;
  stop(): Promise<void>;
}

export const DEFAULT_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'telemetry.telemetryLevel': 'off',
  'security.workspace.trust.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'git.enabled': false,
  'typescript.tsserver.enabled': false,
};

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Kills a whole process group (the server was spawned detached), TERM then KILL. */
export async function killTree(proc: ChildProcess, graceMs = 5000): Promise<void> {
  if (proc.pid === undefined) return;
  const alive = () => {
    try {
      process.kill(-proc.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(-proc.pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let waited = 0; waited < graceMs && alive(); waited += 100) await sleep(100);
  if (alive()) {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

export async function startServer(opts: ServerOptions = {}): Promise<RunningServer> {
  const mode = opts.mode ?? 'vscode';
  const host = opts.host ?? '127.0.0.1';
  const tmp = opts.dataDir ? path.resolve(opts.dataDir) : fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-vsc-'));
  fs.mkdirSync(tmp, { recursive: true });
  const userDataDir = path.join(tmp, 'user-data');
  const extensionsDir = opts.extensionsDir ?? path.join(tmp, 'extensions');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  const trust = opts.workspaceTrust
    ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.emptyWindow': false }
    : {};
  fs.writeFileSync(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, ...(opts.settings ?? {}), ...trust }, null, 2));
  const noTrust = opts.workspaceTrust ? [] : ['--disable-workspace-trust'];
  const port = opts.port ?? (await freePort(host));
  const base = `http://${host}:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...(opts.env ?? {}),
    XDG_CONFIG_HOME: path.join(tmp, 'xdg-config'),
    XDG_DATA_HOME: path.join(tmp, 'xdg-data'),
    XDG_CACHE_HOME: path.join(tmp, 'xdg-cache'),
    TMPDIR: path.join(tmp, 't'), // VS Code drops IPC and git sockets in $TMPDIR
  };
  fs.mkdirSync(env.TMPDIR!, { recursive: true });

  let proc: ChildProcess;
  if (mode === 'vscode') {
    const serverMain = serverMainOf(codeServerBin);
    if (!fs.existsSync(serverMain)) throw new Error(`VS Code server not found at ${serverMain}; run: npm run setup`);
    proc = spawn(
      process.execPath,
      [
        serverMain,
        '--host',
        host,
        '--port',
        String(port),
        '--without-connection-token',
        '--accept-server-license-terms',
        '--enable-smoke-test-driver',
        '--user-data-dir',
        userDataDir,
        '--server-data-dir',
        path.join(tmp, 'server-data'),
        '--extensions-dir',
        extensionsDir,
        '--disable-telemetry',
        '--telemetry-level',
        'off',
        ...noTrust,
        '--skip-welcome',
        '--skip-release-notes',
        '--disable-experiments',
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
  } else {
    const configFile = path.join(tmp, 'config.yaml');
    fs.writeFileSync(configFile, 'auth: none\ncert: false\n');
    proc = spawn(
      codeServerBin,
      [
        '--config',
        configFile,
        '--auth',
        'none',
        '--bind-addr',
        `${host}:${port}`,
        '--user-data-dir',
        userDataDir,
        '--extensions-dir',
        extensionsDir,
        '--disable-telemetry',
        '--disable-update-check',
        ...noTrust,
        '--disable-getting-started-override',
        '--ignore-last-opened',
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
  }
  const logFile = path.join(tmp, 'server.log');
  const logStream = fs.createWriteStream(logFile);
  const onOut = (b: Buffer) => {
    logStream.write(b);
    if (opts.verbose) process.stdout.write(`[server] ${b.toString()}`);
  };
  proc.stdout!.on('data', onOut);
  proc.stderr!.on('data', onOut);

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await killTree(proc);
    logStream.end();
    if (!opts.keep && !opts.dataDir) fs.rmSync(tmp, { recursive: true, force: true });
  };

  for (let i = 0; ; i++) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : '';
      await stop();
      throw new Error(`VS Code server exited early (${proc.exitCode ?? proc.signalCode}):\n${log}`);
    }
    try {
      const r = await fetch(`${base}/healthz`, { redirect: 'manual' });
      if (r.status > 0) break;
    } catch {
      /* not up yet */
    }
    if (i > 600) {
      await stop();
      throw new Error('VS Code server did not come up within 60 s');
    }
    await sleep(100);
  }

  return {
    base,
    port,
    tmp,
    logFile,
    extensionsDir,
    userDataDir,
    async authority(folder: string) {
      const html = await (await fetch(`${base}/?folder=${encodeURIComponent(folder)}`)).text();
      const m = html.match(/&quot;remoteAuthority&quot;:&quot;([^&]*)&quot;/);
      return m ? m[1] : `${host}:${port}`;
    },
    stop,
  };
}

/** `code-server --install-extension <vsix>` into extensionsDir (the path users take). */
export async function installVsix(vsix: string, extensionsDir: string): Promise<string> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-vsix-'));
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const p = spawn(codeServerBin, ['--user-data-dir', path.join(tmp, 'ud'), '--extensions-dir', extensionsDir, '--install-extension', vsix, '--force'], {
        env: { ...process.env, XDG_CONFIG_HOME: tmp, XDG_DATA_HOME: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let text = '';
      p.stdout.on('data', (b) => (text += b));
      p.stderr.on('data', (b) => (text += b));
      p.on('error', reject);
      p.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`install-extension failed (${code}): ${text}`))));
    });
    if (!/successfully installed/i.test(out)) throw new Error(`install-extension did not confirm: ${out}`);
    return out;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
