// The relay's sources: what discovery found under its root, kept open for every client, and
// the directories it watches (fs.watch, with the relay's poll timer as the fallback for network
// filesystems) so that new event files, logs and databases appear while it runs.
import * as fs from 'node:fs';
import type { Logger } from '../../base/log';
import type { SourceInfo } from '../../relay-protocol/messages';
import { RelayRoot, SourceSpec, discover } from './discovery';
import { JobRoot } from './job-root';
import { JsonlExperienceSource } from './jsonl-experience-source';
import { StepLogSource } from './log-source';
import { ServeMetricsSource } from './serve-source';
import { fileId, readSmallText, type Source } from './source';
import { SqlDatabaseSnapshot, SqlTableSource, isSqliteFile } from './sql-source';
import { TfEventsSource } from './tfevents-source';
import { OpenFiles } from './open-files';

export interface CatalogOptions {
  root: RelayRoot;
  /** The relay process's id (the cursor fid of its live /metrics sources). */
  instance: string;
  pollMs: number;
  log: Logger;
  /** Open source files the relay keeps at most (open-files.ts). */
  maxOpenFiles?: number;
}

export interface CatalogListener {
  /** Sources discovery found since the last rescan. */
  added(sources: Source[]): void;
  /** Something on disk (or a live source) changed: readers may have more to read. */
  changed(): void;
}

export class SourceCatalog {
  private readonly sources = new Map<string, Source>();
  private readonly sqlFiles = new Map<string, SqlDatabaseSnapshot>();
  /** Databases whose tables could not be listed (damaged): said once each. */
  private readonly unreadable = new Set<string>();
  /** Watched directories, and the identity each had when its watch began (a recreated one is watched anew). */
  private readonly watchers = new Map<string, { w: fs.FSWatcher; id: string }>();
  /** The boundary of every path, and the open files of every reader. */
  readonly root: JobRoot;
  readonly files: OpenFiles;
  private rescanTimer: NodeJS.Timeout | undefined;
  private rescanning: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly opts: CatalogOptions,
    private readonly listener: CatalogListener,
  ) {
    this.root = new JobRoot(opts.root.dir);
    this.files = new OpenFiles(this.root, opts.maxOpenFiles);
  }

  list(): Source[] {
    return [...this.sources.values()];
  }

  /** Re-runs discovery; new sources are reported to the listener and watched. */
  rescan(): Promise<void> {
    this.rescanning ??= this.doRescan().finally(() => (this.rescanning = undefined));
    return this.rescanning;
  }

  /** A rescan after `delay` ms, unless one is already scheduled. */
  scheduleRescan(delay: number): void {
    if (this.rescanTimer || this.closed) return;
    this.rescanTimer = setTimeout(() => {
      this.rescanTimer = undefined;
      void this.rescan();
    }, delay);
  }

  close(): void {
    this.closed = true;
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    for (const { w } of this.watchers.values()) w.close();
    this.watchers.clear();
    for (const s of this.sources.values()) s.close?.();
    for (const s of this.sqlFiles.values()) s.close();
  }

  private async doRescan(): Promise<void> {
    const found = discover(this.opts.root, { root: this.root, report: (m) => this.opts.log.warn(m) });
    const added: Source[] = [];
    for (const spec of found.specs) {
      if (spec.kind === 'sql') {
        added.push(...(await this.addSqlTables(spec)));
        continue;
      }
      if (this.sources.has(spec.id)) continue;
      const src = this.makeSource(spec);
      this.sources.set(spec.id, src);
      added.push(src);
    }
    for (const d of found.dirs) this.watch(d);
    for (const s of added) for (const d of s.watchPaths) this.watch(d);
    if (added.length > 0) {
      this.opts.log.info(`relay: ${added.length} new source(s): ${added.map((s) => s.info.id).join(', ')}`);
      this.listener.added(added);
    }
  }

  private makeSource(spec: SourceSpec): Source {
    const info: SourceInfo = { id: spec.id, kind: spec.kind, run: spec.run, role: spec.role, path: spec.rel };
    if (spec.kind === 'serve') {
      const url = explorerUrlIn(spec.abs, this.root);
      if (url) info.endpoint = url;
    }
    const { log } = this.opts;
    switch (spec.kind) {
      case 'tfevents':
        return new TfEventsSource(info, spec.abs, this.files, log);
      case 'log':
        return new StepLogSource(info, spec.abs, this.files, log);
      case 'jsonl':
        return new JsonlExperienceSource(info, spec.abs, this.files, log);
      default:
        return new ServeMetricsSource(info, spec.abs, this.opts.instance, Math.max(this.opts.pollMs, 1000), () => this.listener.changed(), log, this.root);
    }
  }

  private async addSqlTables(spec: SourceSpec): Promise<Source[]> {
    if (!isSqliteFile(spec.abs)) return [];
    let snap = this.sqlFiles.get(spec.abs);
    if (!snap) {
      snap = new SqlDatabaseSnapshot(spec.abs, this.opts.log, undefined, this.root);
      this.sqlFiles.set(spec.abs, snap);
    }
    let tables: string[];
    try {
      tables = await snap.experienceTables();
    } catch (e) {
      // A damaged database costs its own experiences, not the relay: the next rescan asks again
      // (said once until it reads again).
      if (!this.unreadable.has(spec.abs))
        this.opts.log.warn(`relay: ${spec.rel}: cannot list its tables (${(e as Error).message}); its experiences are not served`);
      this.unreadable.add(spec.abs);
      return [];
    }
    this.unreadable.delete(spec.abs);
    const out: Source[] = [];
    for (const table of tables) {
      const id = `${spec.id}#${table}`;
      if (this.sources.has(id)) continue;
      const src = new SqlTableSource({ id, kind: 'sql', run: spec.run, role: table, path: spec.rel }, snap, table);
      this.sources.set(id, src);
      out.push(src);
    }
    return out;
  }

  private watch(dir: string): void {
    if (this.closed) return;
    let id: string;
    try {
      id = fileId(fs.statSync(dir));
    } catch {
      return; // gone: the poll timer covers it until it comes back
    }
    const had = this.watchers.get(dir);
    if (had?.id === id) return;
    // A directory deleted and created again under the same name is another one: watch that.
    had?.w.close();
    this.watchers.delete(dir);
    try {
      const w = fs.watch(dir, { persistent: false }, () => {
        this.listener.changed();
        this.scheduleRescan(200);
      });
      w.on('error', () => {
        w.close();
        if (this.watchers.get(dir)?.w === w) this.watchers.delete(dir);
      });
      this.watchers.set(dir, { w, id });
    } catch {
      // No inotify (or the dir vanished): the poll timer still covers it.
    }
  }
}

/** The explorer URL Trinity wrote into `<explorer>_server_url.txt`, if it is one yet. */
function explorerUrlIn(file: string, root: JobRoot): string | undefined {
  try {
    const text = readSmallText(root, file).trim().split(/\s+/)[0] ?? '';
    return /^https?:\/\/\S+$/.test(text) ? text.replace(/\/+$/, '') : undefined;
  } catch {
    return undefined;
  }
}
