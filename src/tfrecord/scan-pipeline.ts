// Reading ahead on a second core: while the main thread decodes one chunk of a large backlog,
// a worker thread (scan-worker.ts) reads the next ones and checks their framing and CRCs. The
// main thread then matches the records to its decoder's shapes (scan.wat's match(), the other
// half of a scan) and decodes them. The worker's wasm memory is shared: the main thread works
// on a slot in place, with its own instance of the module over the same memory.
//
// One worker per process, started on first use and unref'd (it never keeps the relay alive).
// It ends once it has had no job for a while: a relay reads a large backlog when it opens a run,
// then follows small appends for hours, which it reads in its own thread; the worker's isolate
// and the ring it reads into (tens of MB once used) go back, and the next backlog starts a new one.
// It serves one reader at a time (its owner); others read in their own thread meanwhile. The
// API is synchronous, like the reader's: the main thread waits with Atomics.wait, for at most
// the scan of a chunk. A worker that stops answering is given up on, and every reader goes on
// in its own thread.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PackedShapes } from './event-shapes';
import { ENTRY_INTS, ENTRY_VALUES, MAX_ENTRIES, MAX_RECORD_BYTES, NEXT_BASE, PAGE, SHAPES_BASE, SHAPE_TABLE_MAX, ScanResult, writeShapeTable } from './scan';
import { SCAN_WASM_SHARED_BASE64 } from './scan-wasm';
import { SCAN_WORKER_CODE } from './scan-worker-code';
import { CTL, WorkerData, WorkerLayout } from './scan-worker-protocol';

/** Slots in the ring: how far the worker may run ahead of the decoder (8 smooth out the chunks
 *  that take one side longer, e.g. the first of a new tag; 4 measured about 10% slower). */
const SLOTS = 8;
/** Largest chunk the pipeline reads (larger records take the reader's own path). */
export const PIPELINE_CHUNK_MAX = 4 * 1024 * 1024;
/** How long the main thread waits for one chunk before it gives up on the worker. */
const STALL_MS = 30_000;
/** How long the worker may have no job before it ends (setScanPipelineIdleMs: tests). */
let idleMs = 5_000;

declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  Memory: new (d: { initial: number; maximum: number; shared: boolean }) => { buffer: SharedArrayBuffer };
};

interface MatchExports {
  reset(): void;
  match(base: number, out: number, count: number, tab: number, nextTab: number, vals: number): void;
}

/** A scanned chunk, decodable in place until release(). */
export interface PipelineChunk {
  /** The chunk's bytes (entry offsets are relative to its start). */
  region: Buffer;
  /** Framing and CRC status of each record; shapes once match() ran. */
  scan: ScanResult;
  /** File offset the chunk was read at. */
  offset: number;
  /** Bytes read (below the chunk size at the end of the file). */
  got: number;
  /** The read failed (the reader retries in its own thread, which reports the error). */
  error: boolean;
}

// The main thread's shape table and its prediction array sit where scan.ts puts them
// (SHAPES_BASE, NEXT_BASE); the worker scans without a table.
function layoutFor(slots: number): { layout: WorkerLayout; pages: number } {
  let at = Math.ceil((NEXT_BASE + 4 * SHAPE_TABLE_MAX) / PAGE) * PAGE;
  const out: number[] = [];
  const vals: number[] = [];
  const input: number[] = [];
  for (let k = 0; k < slots; k++) {
    out.push(at);
    at += MAX_ENTRIES * ENTRY_INTS * 4;
    vals.push(at);
    at += MAX_ENTRIES * ENTRY_VALUES * 8;
    input.push(at);
    at = Math.ceil((at + PIPELINE_CHUNK_MAX + 8) / PAGE) * PAGE;
  }
  const layout = { slots, maxEntries: MAX_ENTRIES, maxRecordBytes: MAX_RECORD_BYTES, out, vals, input };
  return { layout, pages: at / PAGE };
}

/**
 * The scan worker: from its text embedded in the single-file CLI (esbuild.mjs), else from its
 * compiled file beside this one (tsc's out/). Throws when neither is there (a bundle built
 * without the embedding), so that every reader reads in its own thread.
 */
function startWorker(data: WorkerData): Worker {
  if (SCAN_WORKER_CODE !== undefined) return new Worker(SCAN_WORKER_CODE, { eval: true, workerData: data });
  const file = path.join(__dirname, 'scan-worker.js');
  if (!fs.existsSync(file)) throw new Error(`no scan worker at ${file}`);
  return new Worker(file, { workerData: data });
}

export class ScanPipeline {
  private readonly ctl: Int32Array;
  private readonly ctlF: Float64Array;
  private readonly worker: Worker;
  private readonly memory: { buffer: SharedArrayBuffer };
  private readonly layout: WorkerLayout;
  /** The main thread's instance over the same memory: match() only. */
  private readonly matcher: MatchExports;
  /** The shape table in the memory now (by identity: a changed table is a new array). */
  private loadedTable: Int32Array | undefined;
  private owner: object | undefined;
  private job = 0;
  private head = 0;
  private chunk = 0;
  /** Set when the worker exited or stopped answering: nobody uses it again. */
  private broken = false;
  /** Ends the worker once it has had no job for idleMs. */
  private idleTimer: NodeJS.Timeout | undefined;

  constructor() {
    if (SLOTS > CTL.MAX_SLOTS) throw new RangeError('more slots than control words');
    const { layout, pages } = layoutFor(SLOTS);
    this.layout = layout;
    this.memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
    const control = new SharedArrayBuffer(CTL.BYTES);
    this.ctl = new Int32Array(control);
    this.ctlF = new Float64Array(control);
    const module = new WebAssembly.Module(Buffer.from(SCAN_WASM_SHARED_BASE64, 'base64'));
    this.matcher = new WebAssembly.Instance(module, { env: { memory: this.memory } }).exports as MatchExports;
    this.worker = startWorker({ module, memory: this.memory, control, layout });
    this.worker.unref();
    // Without a listener an error in the worker would be thrown in the main thread.
    this.worker.on('error', () => (this.broken = true));
    this.worker.on('exit', () => (this.broken = true));
  }

  /** True while `owner` has a job running. */
  owns(owner: object): boolean {
    return this.owner === owner && !this.broken;
  }

  /** True when nobody has the worker (and it works). */
  get available(): boolean {
    return this.owner === undefined && !this.broken;
  }

  /**
   * Starts reading fd ahead from offset in chunks of `chunk` bytes for owner. False when
   * another reader has the worker or it is broken.
   */
  start(owner: object, fd: number, offset: number, chunk: number): boolean {
    if (!this.available || chunk > PIPELINE_CHUNK_MAX) return false;
    const ctl = this.ctl;
    this.owner = owner;
    this.chunk = chunk;
    this.head = 0;
    this.loadedTable = undefined; // another reader's table, or none
    ctl[CTL.FD] = fd;
    ctl[CTL.CHUNK] = chunk;
    this.ctlF[CTL.F_START] = offset;
    this.job = this.job >= 0x3fffffff ? 1 : this.job + 1;
    Atomics.store(ctl, CTL.RUN, this.job);
    this.wake();
    return true;
  }

  /**
   * The next chunk of owner's job, waiting for the worker if it is not scanned yet. Undefined
   * when the worker is broken (it is then given up on: read in your own thread).
   */
  take(owner: object): PipelineChunk | undefined {
    if (!this.owns(owner)) return undefined;
    const ctl = this.ctl;
    const k = this.head;
    const header = CTL.SLOTS + k * CTL.SLOT_WORDS;
    const deadline = Date.now() + STALL_MS;
    while (Atomics.load(ctl, header + CTL.SLOT_STATE) !== CTL.READY) {
      if (this.failed || Date.now() > deadline) {
        this.giveUp();
        return undefined;
      }
      Atomics.wait(ctl, header + CTL.SLOT_STATE, CTL.FREE, 1000);
    }
    const count = ctl[header + CTL.SLOT_COUNT];
    const got = ctl[header + CTL.SLOT_GOT];
    const buf = this.memory.buffer;
    const L = this.layout;
    return {
      region: Buffer.from(buf, L.input[k], got),
      scan: {
        count,
        entries: new Int32Array(buf, L.out[k], count * ENTRY_INTS),
        values: new Float64Array(buf, L.vals[k], count * ENTRY_VALUES),
        consumed: ctl[header + CTL.SLOT_CONSUMED],
        full: ctl[header + CTL.SLOT_FULL] === 1,
      },
      offset: this.ctlF[CTL.F_SLOT_OFFSET + k],
      got,
      error: ctl[header + CTL.SLOT_ERROR] !== 0,
    };
  }

  /**
   * Matches the records of the chunk take() just returned to table (the decoder's
   * shapesForScan()), as scanChunk() does with a table.
   */
  match(chunk: PipelineChunk, table: PackedShapes | undefined): void {
    if (table === undefined || chunk.scan.count === 0) return;
    const m = this.matcher;
    const words = table.words;
    if (words !== this.loadedTable) {
      writeShapeTable(this.memory.buffer, words);
      m.reset();
      this.loadedTable = words;
    }
    const k = this.head;
    const L = this.layout;
    m.match(L.input[k], L.out[k], chunk.scan.count, SHAPES_BASE, NEXT_BASE, L.vals[k]);
  }

  /** Hands the chunk take() returned back to the worker (its views are invalid after this). */
  release(owner: object): void {
    if (!this.owns(owner)) return;
    const header = CTL.SLOTS + this.head * CTL.SLOT_WORDS;
    Atomics.store(this.ctl, header + CTL.SLOT_STATE, CTL.FREE);
    this.head = (this.head + 1) % SLOTS;
    this.wake();
  }

  /** Ends owner's job: waits until the worker no longer touches the fd or a slot. */
  stop(owner: object): void {
    if (this.owner !== owner) return;
    const ctl = this.ctl;
    Atomics.store(ctl, CTL.RUN, 0);
    this.wake();
    const deadline = Date.now() + STALL_MS;
    while (Atomics.load(ctl, CTL.BUSY) === 1) {
      if (this.failed || Date.now() > deadline) {
        this.giveUp();
        break;
      }
      Atomics.wait(ctl, CTL.BUSY, 1, 1000);
    }
    for (let k = 0; k < SLOTS; k++) Atomics.store(ctl, CTL.SLOTS + k * CTL.SLOT_WORDS + CTL.SLOT_STATE, CTL.FREE);
    this.owner = undefined;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => retire(this), idleMs);
    this.idleTimer.unref();
  }

  /** Ends the worker (tests; the process's exit ends it anyway). */
  async dispose(): Promise<void> {
    clearTimeout(this.idleTimer);
    Atomics.store(this.ctl, CTL.RUN, -1);
    this.wake();
    this.broken = true;
    await this.worker.terminate();
  }

  /** The chunk size of the running job. */
  get chunkSize(): number {
    return this.chunk;
  }

  /** The worker failed or exited (its events cannot arrive while the main thread waits). */
  private get failed(): boolean {
    return this.broken || Atomics.load(this.ctl, CTL.ALIVE) < 0;
  }

  private wake(): void {
    Atomics.add(this.ctl, CTL.WAKE, 1);
    Atomics.notify(this.ctl, CTL.WAKE);
  }

  private giveUp(): void {
    this.broken = true;
    this.owner = undefined;
    void this.worker.terminate();
  }
}

let shared: ScanPipeline | undefined;
let failed = false;

/** The process's pipeline (created on first call); undefined when a worker cannot start here. */
export function scanPipeline(): ScanPipeline | undefined {
  if (shared === undefined && !failed) {
    try {
      shared = new ScanPipeline();
    } catch {
      failed = true; // e.g. no worker threads: every reader reads in its own thread
    }
  }
  return shared;
}

/** Ends an idle pipeline and forgets it (its memory is freed once collected). */
function retire(p: ScanPipeline): void {
  if (shared !== p || !p.available) return;
  shared = undefined;
  void p.dispose();
}

/** True while the process has a pipeline (a worker started and not yet retired). */
export function scanPipelineRunning(): boolean {
  return shared !== undefined;
}

/** Sets how long an idle worker lives (tests; default 5 s). */
export function setScanPipelineIdleMs(ms: number): void {
  idleMs = ms;
}

/** Ends the process's pipeline (tests that check for leftovers). */
export async function disposeScanPipeline(): Promise<void> {
  const p = shared;
  shared = undefined;
  failed = false;
  await p?.dispose();
}
