// The tasks tables of a relay's experience sources, shared by every client: each source's rows
// are folded once into a table of tasks × model versions (src/tasks/task-table.ts) by one reader
// of its own, kept at the end of what it has read; a later ask folds only the rows that came or
// changed since, then sends the table (a few thousand cells, never the rows). Folds of one
// source are single-flight, and yield to the event loop every few milliseconds so that a first
// pass over a big buffer never holds up the other clients.
import type { TaskTableWire } from '../../relay-protocol/tasks';
import { TaskTable } from '../../tasks/task-table';
import type { Source, SourceReader } from '../sources/source';

/** Source bytes per read of the fold (the reader's batch budget). */
const FOLD_BATCH_BYTES = 4 * 1024 * 1024;
/** Work of one fold between two yields to the event loop (ms). */
const SLICE_MS = 20;

interface Entry {
  reader: SourceReader;
  table: TaskTable;
  folding?: Promise<void>;
}

export class TaskCache {
  private readonly entries = new Map<string, Entry>();
  private closed = false;

  /** The source's table, brought up to date (the first ask reads the whole buffer). */
  async table(source: Source): Promise<TaskTableWire> {
    if (source.info.kind !== 'sql' && source.info.kind !== 'jsonl') throw new Error(`'${source.info.id.slice(0, 200)}' is not an experience source`);
    if (this.closed) throw new Error('the relay is shutting down');
    let e = this.entries.get(source.info.id);
    if (!e) this.entries.set(source.info.id, (e = { reader: source.openForTasks?.() ?? source.open(undefined), table: new TaskTable() }));
    const entry = e;
    // A fold under way may have passed rows that came after it started: fold again after it.
    while (entry.folding) await entry.folding;
    entry.folding = this.fold(entry).finally(() => (entry.folding = undefined));
    await entry.folding;
    return entry.table.toWire();
  }

  private async fold(e: Entry): Promise<void> {
    let slice = performance.now();
    for (;;) {
      if (this.closed) throw new Error('the relay is shutting down');
      const batch = await e.reader.next(FOLD_BATCH_BYTES);
      if (!batch) return;
      if (batch.type === 'experiences') e.table.add(batch.rows);
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
  }

  /** Forgets a source that went away. */
  drop(id: string): void {
    this.entries.get(id)?.reader.close();
    this.entries.delete(id);
  }

  close(): void {
    this.closed = true;
    for (const e of this.entries.values()) e.reader.close();
    this.entries.clear();
  }
}
