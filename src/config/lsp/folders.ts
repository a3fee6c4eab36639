// Settings and the Trinity-RFT version in force, per workspace folder: the server pulls each
// folder's `agentrl.config` (resource scope, so multi-root folders differ) and resolves the
// version from the folder's interpreter, pins and setting. Answers are synchronous from the
// cache (typing never waits); the interpreter probe refreshes them and says when they change.
import * as fs from 'fs';
import * as path from 'path';
import { DEFAULT_SETTINGS, type ServerSettings } from './protocol';
import { TRINITY_VERSIONS } from '../schema/schemas';
import { detectInstalledPackage, detectInstalledTrinity } from '../workspace/installed-trinity';
import type { TrinityProbe } from '../workspace/python-probe';
import { findPin, resolveTrinityVersion, type PackageInForce, type TrinityVersionInForce } from '../workspace/trinity-version';

export interface Folder {
  /** Absolute path of the workspace folder ('' for files outside every folder). */
  root: string;
  settings: ServerSettings;
  trinity: TrinityVersionInForce;
  /** The verl the folder installs or pins (undefined: it does not say). */
  verl?: PackageInForce;
  /** Whether settings have been pulled for it yet. */
  loaded: boolean;
}

export interface FolderDeps {
  /** Pulls `agentrl.config` for a folder (undefined root: no scope). */
  pull(root: string | undefined): Promise<Partial<ServerSettings> | null | undefined>;
  probe?: TrinityProbe;
  log(m: string): void;
  /** Called when a folder's version changed after the probe answered. */
  changed(folder: Folder): void;
}

const read = (f: string) => {
  try {
    return fs.readFileSync(f, 'utf8');
  } catch {
    return undefined;
  }
};
const list = (d: string) => {
  try {
    return fs.readdirSync(d);
  } catch {
    return [];
  }
};

function normalizeSettings(s: Partial<ServerSettings> | null | undefined): ServerSettings {
  const merged = { ...DEFAULT_SETTINGS, ...(s ?? {}) };
  merged.debounceMs = Math.max(0, Number(merged.debounceMs) || 0);
  if (!merged.files || typeof merged.files !== 'object') merged.files = {};
  if (!merged.env || typeof merged.env !== 'object') merged.env = {};
  return merged;
}

export class Folders {
  private readonly folders = new Map<string, Folder>();
  private roots: string[] = [];
  private installed = new Map<string, { version: string; from: string } | undefined>();

  constructor(private readonly deps: FolderDeps) {}

  setRoots(roots: readonly string[]): void {
    this.roots = [...roots].sort((a, b) => b.length - a.length);
    for (const r of [...this.folders.keys()]) if (r && !roots.includes(r)) this.folders.delete(r);
    for (const r of [...roots, '']) if (!this.folders.has(r)) this.folders.set(r, this.fresh(r, DEFAULT_SETTINGS));
  }

  all(): Folder[] {
    return [...this.folders.values()];
  }

  /** The folder holding a file (longest root first); '' when outside all. */
  rootOf(file: string | undefined): string {
    if (!file) return '';
    return this.roots.find((r) => file === r || file.startsWith(r.endsWith(path.sep) ? r : r + path.sep)) ?? '';
  }

  of(file: string | undefined): Folder {
    const r = this.rootOf(file);
    let f = this.folders.get(r);
    if (!f) {
      f = this.fresh(r, DEFAULT_SETTINGS);
      this.folders.set(r, f);
    }
    return f;
  }

  /** Pulls settings of every folder (or one) and re-resolves versions; the probe runs after. */
  async reload(only?: string): Promise<void> {
    const targets = this.all().filter((f) => only === undefined || f.root === only);
    await Promise.all(
      targets.map(async (f) => {
        let s: Partial<ServerSettings> | null | undefined;
        try {
          s = await this.deps.pull(f.root || undefined);
        } catch (err) {
          this.deps.log(`settings for ${f.root || '(no folder)'}: ${(err as Error).message}`);
        }
        f.settings = normalizeSettings(s);
        f.loaded = true;
        this.resolve(f);
        this.startProbe(f);
      }),
    );
  }

  /** Settings pushed without a folder (clients without workspace/configuration). */
  applyToAll(s: Partial<ServerSettings>): void {
    for (const f of this.all()) {
      f.settings = normalizeSettings({ ...f.settings, ...s });
      f.loaded = true;
      this.resolve(f);
    }
  }

  /** A pin file or the environment changed: re-read pins (and ask the interpreter again). */
  refreshVersions(reprobe: boolean): void {
    if (reprobe) {
      this.deps.probe?.forget();
      this.installed.clear();
    }
    for (const f of this.all()) {
      const before = stateKey(f);
      this.resolve(f);
      if (stateKey(f) !== before) this.deps.changed(f);
      if (reprobe) this.startProbe(f);
    }
  }

  private fresh(root: string, settings: ServerSettings): Folder {
    const f: Folder = { root, settings: { ...settings }, trinity: resolveTrinityVersion({ known: TRINITY_VERSIONS }), loaded: false };
    this.resolve(f);
    return f;
  }

  /** The synchronous best answer: probe result if known, else a venv on disk, pins, setting. */
  private resolve(f: Folder): void {
    const probed = this.installed.get(this.probeKey(f));
    let installed = probed;
    if (!this.installed.has(this.probeKey(f)) && f.root) {
      const disk = detectInstalledTrinity([f.root]);
      if (disk) installed = { version: disk.version, from: path.relative(f.root, disk.where) || disk.where };
    }
    const pin = f.root ? findPin(f.root, read, list) : undefined;
    f.trinity = resolveTrinityVersion({ installed, pin, setting: f.settings.trinityVersion, known: TRINITY_VERSIONS });
    f.verl = f.root ? verlOf(f.root) : undefined;
  }

  private probeKey(f: Folder): string {
    return `${f.settings.pythonPath || 'python3'}\0${f.root}`;
  }

  private startProbe(f: Folder): void {
    const probe = this.deps.probe;
    if (!probe || !f.settings.probePython || !f.root) return;
    const python = f.settings.pythonPath || 'python3';
    const k = this.probeKey(f);
    if (this.installed.has(k)) return;
    void probe.probe(python, f.root).then((r) => {
      const label = f.settings.pythonPath ? shortPath(f.settings.pythonPath, f.root) : 'python3';
      this.installed.set(k, r.version ? { version: r.version, from: label } : undefined);
      if (!r.version) this.deps.log(`trinity-rft in ${label}: ${r.error ?? 'not installed'}`);
      if (this.probeKey(f) !== k) return; // settings moved on meanwhile
      const before = key(f.trinity);
      this.resolve(f);
      if (key(f.trinity) !== before) this.deps.changed(f);
    });
  }
}

const key = (t: TrinityVersionInForce) => `${t.version}|${t.source}|${t.from}`;
/** What analyses depend on: the Trinity release and the verl in force. */
const stateKey = (f: Folder) => `${key(f.trinity)}|${f.verl ? `${f.verl.version}|${f.verl.from}` : ''}`;

/** The verl of a folder: installed in one of its venvs, else pinned in its project files. */
function verlOf(root: string): PackageInForce | undefined {
  const disk = detectInstalledPackage([root], 'verl');
  if (disk) return { version: disk.version, source: 'installed', from: path.relative(root, disk.where) || disk.where };
  const pin = findPin(root, read, list, 'verl');
  return pin ? { version: pin.version, source: 'pin', from: pin.from } : undefined;
}

function shortPath(p: string, root: string): string {
  const rel = path.relative(root, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}
