// A minimal LSP client over stdio for tests and benches: spawns a language server process,
// speaks JSON-RPC with vscode-jsonrpc, answers the requests servers make of their client
// (configuration, capability registration, progress), and waits for published diagnostics.
import { spawn, type ChildProcess } from 'child_process';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';

export interface PublishedDiagnostics {
  uri: string;
  version?: number;
  diagnostics: {
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
    severity?: number;
    code?: string | number;
    message: string;
    source?: string;
  }[];
}

type Waiter = { uri: string; resolve: (p: PublishedDiagnostics) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

export class LspProcess {
  readonly connection: MessageConnection;
  private waiters: Waiter[] = [];
  /** Last diagnostics per uri. */
  readonly diagnostics = new Map<string, PublishedDiagnostics>();
  readonly notifications: { method: string; params: unknown }[] = [];
  stderr = '';
  /** Answers `workspace/configuration` items by section. */
  configuration: (section: string | undefined) => unknown = () => null;

  private constructor(readonly proc: ChildProcess) {
    this.connection = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    proc.stderr!.on('data', (b: Buffer) => {
      this.stderr += b.toString();
      if (this.stderr.length > 100_000) this.stderr = this.stderr.slice(-50_000);
    });
    this.connection.onNotification('textDocument/publishDiagnostics', (p: PublishedDiagnostics) => {
      this.diagnostics.set(p.uri, p);
      const w = this.waiters.findIndex((x) => x.uri === p.uri);
      if (w >= 0) {
        const [waiter] = this.waiters.splice(w, 1);
        clearTimeout(waiter.timer);
        waiter.resolve(p);
      }
    });
    this.connection.onNotification((method, params) => {
      this.notifications.push({ method, params });
    });
    this.connection.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => p.items.map((i) => this.configuration(i.section)));
    this.connection.onRequest('client/registerCapability', () => null);
    this.connection.onRequest('client/unregisterCapability', () => null);
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.onRequest('workspace/workspaceFolders', () => null);
    this.connection.listen();
  }

  static start(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): LspProcess {
    const proc = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    return new LspProcess(proc);
  }

  async initialize(rootUri: string, initializationOptions?: unknown): Promise<unknown> {
    const result = await this.connection.sendRequest('initialize', {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: 'bench' }],
      initializationOptions,
      capabilities: {
        workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, workspaceFolders: true },
        textDocument: {
          synchronization: { dynamicRegistration: false, didSave: false },
          publishDiagnostics: { relatedInformation: true, versionSupport: true, codeDescriptionSupport: true, dataSupport: true },
          completion: { completionItem: { snippetSupport: true, documentationFormat: ['markdown', 'plaintext'] } },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } },
        },
      },
    });
    await this.connection.sendNotification('initialized', {});
    return result;
  }

  /** Resolves with the next diagnostics published for `uri` (registered before the action). */
  nextDiagnostics(uri: string, timeoutMs = 30_000): Promise<PublishedDiagnostics> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        reject(new Error(`no diagnostics for ${uri} within ${timeoutMs} ms\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      this.waiters.push({ uri, resolve, reject, timer });
    });
  }

  /** Waits for diagnostics of `uri` at `version` (servers that send versions), skipping older ones. */
  async diagnosticsAt(uri: string, version: number, timeoutMs = 30_000): Promise<PublishedDiagnostics> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const p = await this.nextDiagnostics(uri, Math.max(1, deadline - Date.now()));
      if (p.version === undefined || p.version >= version) return p;
    }
  }

  open(uri: string, text: string, languageId = 'yaml', version = 1): Promise<void> {
    return this.connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
  }

  change(
    uri: string,
    version: number,
    changes: { range?: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string }[],
  ): Promise<void> {
    return this.connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: changes });
  }

  close(uri: string): Promise<void> {
    return this.connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  }

  request<R>(method: string, params: unknown): Promise<R> {
    return this.connection.sendRequest<R>(method, params);
  }

  /** shutdown + exit, then kill if it lingers; never leaves the process behind. */
  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.proc.exitCode !== null || this.proc.signalCode !== null) resolve();
      else this.proc.once('exit', () => resolve());
    });
    try {
      await Promise.race([this.connection.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 3000))]);
      await this.connection.sendNotification('exit');
    } catch {
      /* already gone */
    }
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
    this.connection.dispose();
  }
}
