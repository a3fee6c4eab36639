// The config language server (bundled to dist/server.js): a thin LSP adapter over the pure
// engine (../engine). Documents are analysed on open/change (debounced by
// `agentrl.config.debounceMs`, 0 = at once), diagnostics published for RL configs only, and
// each document's kind is sent to the client for the status bar.
import * as fs from 'fs';
import { fileURLToPath, pathToFileURL } from 'url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import {
  createConnection,
  DidChangeConfigurationNotification,
  FileChangeType,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type InitializeParams,
  type InitializeResult,
} from 'vscode-languageserver/node';
import type { ConfigKind } from '../../feature-api/config-checker';
import { ConfigIndex } from '../engine/crossfile';
import { clearFsCache } from '../core/fscache';
import { Folders, type Folder } from './folders';
import { KindNotification, type ServerSettings } from './protocol';
import { analyze, type Analysis } from '../engine/engine';
import { complete } from './features/completion';
import { codeActions, toDiagnostics } from './features/diagnostics';
import { useLanguage, type Bundle } from '../core/l10n-bundle';
import { ENGLISH, type Lang } from '../core/l10n-text';
import { hover } from './features/hover';
import { definition, documentLinks } from './features/navigate';
import { documentSymbols } from './features/symbols';
import { TrinityProbe } from '../workspace/python-probe';
import { PythonIndex } from '../workspace/pyindex';
import { walkFiles } from '../workspace/walk';
import { ParseCache } from '../yaml/parse';
import { remembered } from '../core/remember';

interface DocState {
  cache: ParseCache;
  analysis?: Analysis;
  kind: ConfigKind | null;
  timer?: NodeJS.Timeout;
  published: boolean;
  notified: boolean;
  /** The Trinity version (and source) last sent with the kind. */
  versionKey?: string;
  /** Cross-file facts last seen, to re-check peers only when they change. */
  factsKey?: string;
}

// IPC from VS Code; `--stdio` for other editors and the benchmark. The library reads the
// transport from the command line, exits when stdin ends and sends console output to the client.
const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
const states = new Map<string, DocState>();
const python = new PythonIndex();
const configIndex = new ConfigIndex();
let locale = 'en';
/** How findings are rendered: the client's bundle, else the shipped one for a Chinese locale. */
let lang: Lang = ENGLISH;
let roots: string[] = [];
let hasConfigurationCapability = false;

// URI ↔ path conversions are asked for on every keystroke: remembered (bounded)
const files = new Map<string, string | undefined>();
const uris = new Map<string, string>();
const fileOf = (uri: string): string | undefined =>
  remembered(files, uri, () => {
    try {
      return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
    } catch {
      return undefined;
    }
  });
const uriOf = (file: string) => remembered(uris, file, () => pathToFileURL(file).toString());
const log = (m: string) => connection.console.log(m);

// one settings path: each folder's `agentrl.config` pulled with workspace/configuration
// (scopeUri), the client having applied Workspace Trust to the answer
const folders = new Folders({
  pull: async (root) => {
    if (!hasConfigurationCapability) return undefined;
    const [s] = (await connection.workspace.getConfiguration([
      { scopeUri: root ? uriOf(root) : undefined, section: 'agentrl.config' },
    ])) as (Partial<ServerSettings> | null)[];
    return s;
  },
  probe: new TrinityProbe(),
  log,
  changed: (f) => {
    log(`Trinity-RFT in force for ${f.root || '(no folder)'}: ${describe(f)}`);
    for (const d of documents.all())
      if (folders.rootOf(fileOf(d.uri)) === f.root) {
        stateOf(d.uri).notified = false;
        schedule(d, true);
      }
  },
});
const folderOf = (uri: string): Folder => folders.of(fileOf(uri));
const describe = (f: Folder) => `${f.trinity.version} → ${f.trinity.release} (${f.trinity.source}: ${f.trinity.from})`;
/** Pulled once at start and after each change; documents opened before wait for it. */
let settingsReady: Promise<void> = Promise.resolve();

connection.onInitialize((params: InitializeParams): InitializeResult => {
  const opts = (params.initializationOptions ?? {}) as { locale?: string; l10nBundle?: Bundle; settings?: Partial<ServerSettings> };
  locale = opts.locale ?? params.locale ?? 'en';
  lang = useLanguage(locale, opts.l10nBundle);
  roots = (params.workspaceFolders ?? []).map((f) => fileOf(f.uri)).filter((p): p is string => !!p);
  if (!roots.length && params.rootUri) {
    const r = fileOf(params.rootUri);
    if (r) roots.push(r);
  }
  hasConfigurationCapability = !!params.capabilities.workspace?.configuration;
  folders.setRoots(roots);
  // clients that cannot answer workspace/configuration may pass settings here instead
  if (!hasConfigurationCapability && opts.settings) folders.applyToAll(opts.settings);
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: [':', ' ', '-', '{'], resolveProvider: false },
      hoverProvider: true,
      definitionProvider: true,
      documentLinkProvider: { resolveProvider: false },
      documentSymbolProvider: true,
      codeActionProvider: { codeActionKinds: ['quickfix'] },
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
    serverInfo: { name: 'agentrl-config', version: typeof AGENTRL_VERSION === 'string' ? AGENTRL_VERSION : 'dev' },
  };
});

declare const AGENTRL_VERSION: string | undefined;

connection.onInitialized(() => {
  if (hasConfigurationCapability) void connection.client.register(DidChangeConfigurationNotification.type, undefined);
  watchFolders();
  settingsReady = folders.reload();
  void settingsReady.then(() => {
    log(
      `Agent RL config server: roots ${roots.join(', ') || '(none)'}; Trinity-RFT in force: ${
        folders
          .all()
          .filter((f) => f.root)
          .map((f) => `${f.root}: ${describe(f)}`)
          .join('; ') || describe(folders.of(undefined))
      }`,
    );
    revalidateAll();
    if (folders.all().some((f) => f.root && f.settings.scanWorkspace)) setTimeout(scanWorkspace, 0);
  });
});

/** Folders added or removed (multi-root): their settings and versions are pulled. */
function watchFolders(): void {
  connection.workspace.onDidChangeWorkspaceFolders((e) => {
    const removed = new Set(e.removed.map((f) => fileOf(f.uri)));
    roots = roots.filter((r) => !removed.has(r));
    for (const f of e.added) {
      const r = fileOf(f.uri);
      if (r && !roots.includes(r)) roots.push(r);
    }
    folders.setRoots(roots);
    settingsReady = folders.reload();
    void settingsReady.then(revalidateAll);
  });
}

connection.onDidChangeConfiguration((change) => {
  if (hasConfigurationCapability) settingsReady = folders.reload();
  else {
    const s = (change.settings as { agentrl?: { config?: Partial<ServerSettings> } } | undefined)?.agentrl?.config;
    if (s) folders.applyToAll(s);
  }
  void settingsReady.then(revalidateAll);
});

/** Settings a document is checked with: its folder's. */
const settingsOf = (uri: string): ServerSettings => folderOf(uri).settings;

/** Python registrations and the Trinity configs of the workspace (bounded, in the background). */
function scanWorkspace(): void {
  const t0 = Date.now();
  const scanned = roots.filter((r) => folders.of(r).settings.scanWorkspace);
  try {
    python.scan(scanned);
  } catch (err) {
    log(`python scan failed: ${(err as Error).message}`);
  }
  const yamls: string[] = [];
  for (const r of scanned) yamls.push(...walkFiles(r, { accept: (_rel, name) => /\.ya?ml$/.test(name), maxDepth: 8, maxFiles: 2000 - yamls.length }).files);
  for (const f of yamls) indexConfigFile(f);
  log(
    `workspace scan: ${python.fileCount} Python files, ${yamls.length} YAML files, ${configIndex.files().length} decoupled-job configs in ${Date.now() - t0} ms${python.truncated ? ' (Python scan truncated)' : ''}`,
  );
  revalidateAll();
}

function indexConfigFile(file: string): void {
  if (documents.get(uriOf(file))) return; // open documents index themselves
  try {
    const st = fs.statSync(file);
    if (st.size > 512 * 1024) return;
    const text = fs.readFileSync(file, 'utf8');
    if (!/^(mode|project|name)\s*:/m.test(text)) return; // only mode/name-bearing Trinity configs pair up
    const f = folders.of(file);
    const a = analyze(text, file, { roots, env: f.settings.env, globs: f.settings.files, trinity: f.trinity, verl: f.verl, checkPaths: false });
    configIndex.set(file, a.docs[0]?.facts);
  } catch {
    configIndex.delete(file);
  }
}

connection.onDidChangeWatchedFiles((params) => {
  clearFsCache();
  let touched = false;
  let pins = false;
  for (const c of params.changes) {
    const file = fileOf(c.uri);
    if (!file) continue;
    if (/(^|[\\/])(requirements[\w.-]*\.txt|pyproject\.toml|setup\.cfg|uv\.lock|environment\.ya?ml)$/i.test(file)) {
      pins = true;
      continue;
    }
    if (file.endsWith('.py')) {
      if (c.type === FileChangeType.Deleted) python.removeFile(file);
      else python.updateFile(file);
      touched = true;
    } else if (/\.ya?ml$/.test(file)) {
      if (c.type === FileChangeType.Deleted) configIndex.delete(file);
      else indexConfigFile(file);
      touched = true;
    }
  }
  if (pins) folders.refreshVersions(false);
  if (touched) revalidateAll();
});

function stateOf(uri: string): DocState {
  let s = states.get(uri);
  if (!s) {
    s = { cache: new ParseCache(), kind: null, published: false, notified: false };
    states.set(uri, s);
  }
  return s;
}

function validate(doc: TextDocument): Analysis | undefined {
  const s = stateOf(doc.uri);
  const folder = folderOf(doc.uri);
  const settings = folder.settings;
  if (!settings.enable) {
    // notifications: sent in order, nothing to wait for (a closed connection ends the server)
    if (s.published) void connection.sendDiagnostics({ uri: doc.uri, diagnostics: [] });
    s.published = false;
    return undefined;
  }
  const file = fileOf(doc.uri) ?? doc.uri;
  let a: Analysis;
  try {
    a = analyze(doc.getText(), file, {
      roots,
      env: settings.env,
      globs: settings.files,
      stickyKind: s.kind,
      trinity: folder.trinity,
      verl: folder.verl,
      python,
      peers: configIndex,
      checkPaths: settings.checkPaths,
      cache: s.cache,
    });
  } catch (err) {
    log(`analysis failed for ${doc.uri}: ${err instanceof Error ? (err.stack ?? err.message) : JSON.stringify(err)}`);
    return undefined;
  }
  const kindChanged = s.kind !== a.kind;
  const versionKey = `${a.trinity.version}|${a.trinity.source}|${a.trinity.from}`;
  const versionChanged = versionKey !== s.versionKey;
  s.versionKey = versionKey;
  s.analysis = a;
  s.kind = a.kind;
  if (kindChanged || versionChanged || !s.notified) {
    s.notified = true;
    void connection.sendNotification(KindNotification, {
      uri: doc.uri,
      kind: a.kind,
      by: a.detection.by,
      trinityVersion: a.trinityVersion,
      trinity: a.trinity,
    });
  }
  if (a.kind || a.findings.length) {
    void connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics: toDiagnostics(a, lang, uriOf) });
    s.published = true;
  } else if (s.published) {
    void connection.sendDiagnostics({ uri: doc.uri, diagnostics: [] });
    s.published = false;
  }
  // peers of a decoupled job see this file's facts: re-check them when they are open
  const facts = a.docs[0]?.facts;
  const factsKey = facts ? JSON.stringify([facts.job, facts.mode, [...facts.facts].map(([k, f]) => [k, f.value])]) : undefined;
  const factsChanged = factsKey !== s.factsKey;
  s.factsKey = factsKey;
  if (facts && a.file && factsChanged) {
    for (const p of configIndex.peersOf(facts)) {
      const peer = documents.get(uriOf(p.file));
      if (peer && peer.uri !== doc.uri) schedule(peer, true);
    }
  }
  return a;
}

function schedule(doc: TextDocument, quiet = false): void {
  const s = stateOf(doc.uri);
  if (s.timer) clearTimeout(s.timer);
  s.timer = undefined;
  const settings = settingsOf(doc.uri);
  if (settings.debounceMs <= 0 && !quiet) {
    validate(doc);
    return;
  }
  s.timer = setTimeout(
    () => {
      s.timer = undefined;
      const current = documents.get(doc.uri);
      if (current) validate(current);
    },
    Math.max(settings.debounceMs, quiet ? 50 : 0),
  );
}

function revalidateAll(): void {
  for (const d of documents.all()) schedule(d, true);
}

documents.onDidOpen((e) => {
  // the kind is sent at once so the status bar does not wait for the debounce; a document
  // opened before its folder's settings arrived waits for them (one round trip, at start)
  if (folderOf(e.document.uri).loaded || !hasConfigurationCapability) validate(e.document);
  else
    void settingsReady.then(() => {
      const d = documents.get(e.document.uri);
      if (d) validate(d);
    });
});
documents.onDidChangeContent((e) => schedule(e.document));
documents.onDidClose((e) => {
  const s = states.get(e.document.uri);
  if (s?.timer) clearTimeout(s.timer);
  if (s?.published) void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
  states.delete(e.document.uri);
});

/** The latest analysis of a document (fresh if its text changed since). */
function current(uri: string): Analysis | undefined {
  const doc = documents.get(uri);
  if (!doc) return undefined;
  const s = stateOf(uri);
  if (!s.analysis || s.analysis.text !== doc.getText()) return validate(doc);
  return s.analysis;
}

connection.onCompletion((p) => {
  const doc = documents.get(p.textDocument.uri);
  const a = current(p.textDocument.uri);
  if (!doc || !a) return [];
  const kind = a.kind;
  if (!kind) return [];
  try {
    return complete(doc.getText(), p.position.line, p.position.character, { kind, lang, python, trinityVersion: a.trinityVersion });
  } catch (err) {
    log(`completion failed: ${(err as Error).message}`);
    return [];
  }
});

connection.onHover((p) => {
  const a = current(p.textDocument.uri);
  if (!a?.kind) return null;
  return hover(a, a.lines.offset(p.position), lang, python) ?? null;
});

connection.onDefinition((p) => {
  const a = current(p.textDocument.uri);
  if (!a?.kind) return [];
  return definition(a, a.lines.offset(p.position), { python, roots });
});

connection.onDocumentLinks((p) => {
  const a = current(p.textDocument.uri);
  if (!a?.kind) return [];
  return documentLinks(a, { python, roots });
});

connection.onDocumentSymbol((p) => {
  const a = current(p.textDocument.uri);
  return a?.kind ? documentSymbols(a) : [];
});

connection.onCodeAction((p) => {
  const a = current(p.textDocument.uri);
  if (!a?.kind) return [];
  return codeActions(a, p.textDocument.uri, p.range, lang, uriOf, p.context.only);
});

process.on('uncaughtException', (err) => log(`uncaught: ${err.stack ?? err}`));
documents.listen(connection);
connection.listen();
