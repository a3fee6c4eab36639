// Which rows of an experience table changed between two views of its database, read at a
// bounded cost per change (pages through sqlite-pages.ts, never a whole image). Trinity changes a written row only together with its `consumed`
// column (the trainer's read: consumed + 1; serve mode's /feedback: reward, task, run and
// consumed + 1 — trinity/explorer/proxy/recorder.py), and `consumed` is indexed: the index
// pages that differ between the two views hold exactly the entries that moved, each naming
// its row id (btree-index.ts). A table without such an index falls back to comparing a trailing
// window of recent rows.
import { randomBytes } from 'node:crypto';
import { indexEntries, indexTreePages } from './btree-index';
import type { PageSource } from './sqlite-pages';

/** The query surface a tracker and a reader use (sqlite-db.ts). */
export interface SqlExec {
  exec(sql: string, params?: unknown[]): { columns: string[]; values: unknown[][] }[];
  /** Rows one at a time (sqlite-db.ts); without it, exec. */
  each?(sql: string, params: unknown[], row: (values: unknown[]) => void): string[];
}

/** Index pages held for comparison (the consumed index of 10⁶ rows is ~3,000 pages); a larger
 *  index falls back to the window, so what a tracker holds stays bounded. */
const MAX_INDEX_PAGES = 8_192;
/** Rows compared when a table has no consumed index. */
export const WINDOW_ROWS = 500;
/** Changed row ids remembered per table for readers that have not caught up. */
const LOG_IDS = 100_000;

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Compares the pages of one index b-tree across views; yields the row ids of new entries. */
export class IndexDiff {
  private pages = new Map<number, Buffer>();
  private primed = false;
  /** The last view's tree was not readable within MAX_INDEX_PAGES. */
  unreadable = false;

  /** Row ids whose index entry is new since the last view (undefined the first time, or when unreadable). */
  update(src: PageSource, root: number): number[] | undefined {
    const now = indexTreePages(src, root, MAX_INDEX_PAGES);
    this.unreadable = !now;
    if (!now) {
      this.pages.clear();
      this.primed = false;
      return undefined;
    }
    const before = new Set<string>();
    const added: { key: string; rowid: number }[] = [];
    const next = new Map<number, Buffer>();
    for (const [pgno, p] of now) {
      const prev = this.pages.get(pgno);
      if (prev?.equals(p)) {
        next.set(pgno, prev);
        continue;
      }
      next.set(pgno, Buffer.from(p)); // a copy: the page may be a view into a larger buffer
      if (!this.primed) continue;
      added.push(...indexEntries(p, pgno, src.usable));
      if (prev) for (const e of indexEntries(prev, pgno, src.usable)) before.add(e.key);
    }
    for (const [pgno, prev] of this.pages) if (!now.has(pgno)) for (const e of indexEntries(prev, pgno, src.usable)) before.add(e.key);
    this.pages = next;
    if (!this.primed) {
      this.primed = true;
      return undefined;
    }
    // An entry that only moved to another page (a split) is in both sets: not a change.
    return [...new Set(added.filter((e) => !before.has(e.key)).map((e) => e.rowid))];
  }
}

/** Compares reward and consumed of the last WINDOW_ROWS rows across views. */
export class WindowDiff {
  private last = new Map<number, string>();

  constructor(private readonly hasConsumed: boolean) {}

  update(db: SqlExec, table: string): number[] {
    const res = db.exec(`SELECT id, reward${this.hasConsumed ? ', consumed' : ''} FROM ${quoteIdent(table)} ORDER BY id DESC LIMIT ${WINDOW_ROWS}`)[0];
    const next = new Map<number, string>();
    const changed: number[] = [];
    for (const v of res?.values ?? []) {
      const id = Number(v[0]);
      const sig = `${String(v[1])}|${String(v[2])}`;
      next.set(id, sig);
      const was = this.last.get(id);
      if (was !== undefined && was !== sig) changed.push(id);
    }
    this.last = next;
    return changed;
  }
}

interface TableLog {
  index?: { diff: IndexDiff; name: string };
  window?: WindowDiff;
  /** (generation, changed ids) of the last changes, oldest first. */
  log: { gen: number; ids: number[] }[];
  ids: number;
  /** Changes of generations ≤ this were dropped from the log. */
  lostUpTo: number;
}

/** Changed rows per table of one database, numbered by snapshot generation. */
export class RowChangeTracker {
  /** Bumped by every snapshot observed. */
  generation = 0;
  /** Random: generations of another tracker (another relay process, another database file) mean nothing here. */
  id = randomBytes(4).toString('hex');
  private readonly tables = new Map<string, TableLog>();

  /** Forgets every change: the database file was replaced (its rows are other rows). */
  reset(): void {
    this.id = randomBytes(4).toString('hex');
    this.tables.clear();
  }

  /** Records what changed in `tables` between the previous view and this one. */
  observe(src: PageSource, db: SqlExec, tables: string[]): void {
    const gen = ++this.generation;
    for (const table of tables) {
      let t = this.tables.get(table);
      if (!t) this.tables.set(table, (t = this.setUp(db, table)));
      let ids: number[] | undefined;
      if (t.index) {
        const root = db.exec('SELECT rootpage FROM sqlite_master WHERE type = ? AND name = ?', ['index', t.index.name])[0]?.values[0]?.[0];
        ids = typeof root === 'number' ? t.index.diff.update(src, root) : undefined;
        if (typeof root !== 'number' || t.index.diff.unreadable) {
          // The index outgrew MAX_INDEX_PAGES (or is unreadable): compare the window instead.
          t.index = undefined;
          t.window = new WindowDiff(true);
        }
      }
      if (t.window) {
        ids = t.window.update(db, table);
      }
      if (ids?.length) this.append(t, gen, ids);
    }
  }

  private setUp(db: SqlExec, table: string): TableLog {
    const t: TableLog = { log: [], ids: 0, lostUpTo: 0 };
    const cols = db.exec(`PRAGMA table_info(${quoteIdent(table)})`)[0]?.values.map((r) => String(r[1])) ?? [];
    for (const [, name] of db.exec(`PRAGMA index_list(${quoteIdent(table)})`)[0]?.values ?? []) {
      const first = db.exec(`PRAGMA index_info(${quoteIdent(String(name))})`)[0]?.values[0]?.[2];
      if (first === 'consumed') t.index = { diff: new IndexDiff(), name: String(name) };
    }
    if (!t.index) t.window = new WindowDiff(cols.includes('consumed'));
    return t;
  }

  private append(t: TableLog, gen: number, ids: number[]): void {
    t.log.push({ gen, ids });
    t.ids += ids.length;
    while (t.ids > LOG_IDS && t.log.length > 1) {
      const dropped = t.log.shift()!;
      t.ids -= dropped.ids.length;
      t.lostUpTo = dropped.gen;
    }
  }

  /**
   * Row ids of `table` changed after generation `gen` (oldest first, may repeat), or undefined
   * when some of those changes were already dropped from the log.
   */
  since(table: string, gen: number): number[] | undefined {
    const t = this.tables.get(table);
    if (!t) return [];
    if (gen < t.lostUpTo) return undefined;
    const out: number[] = [];
    for (const e of t.log) if (e.gen > gen) out.push(...e.ids);
    return out;
  }
}
