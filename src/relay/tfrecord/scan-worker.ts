// The scan worker's side of scan-pipeline.ts: a thread that reads a file ahead of the reader,
// frames each chunk and checks both CRCs of every record (scan.wat) into a ring of slots in its
// shared wasm memory, while the main thread matches and decodes the slot before.
//
// The body runs in a `new Worker(source, { eval: true })`, so that the single-file CLI needs no
// second file: it is self-contained (no closure, no import; everything arrives in workerData).
// Protocol, over the Int32 control words (indexes in CTL), all through Atomics:
//   main → worker: RUN (a job id; 0 idle; -1 quit) with FD, CHUNK and the start offset; WAKE
//   bumped after any change; a slot's state set back to FREE once decoded.
//   worker → main: a slot's header, then its state READY; BUSY while it uses the fd or a slot.

/** Indexes of the Int32 control words (and of Float64 words over the same buffer: F_*). */
export const CTL = {
  WAKE: 0,
  RUN: 1,
  BUSY: 2,
  FD: 3,
  CHUNK: 4,
  /** 1 once the worker runs; -1 once it failed (main then gives up on it). */
  ALIVE: 5,
  /** Slot k's header: SLOTS + k * SLOT_WORDS + SLOT_*. */
  SLOTS: 16,
  SLOT_WORDS: 8,
  SLOT_STATE: 0,
  SLOT_ERROR: 1,
  SLOT_GOT: 2,
  SLOT_COUNT: 3,
  SLOT_CONSUMED: 4,
  SLOT_FULL: 5,
  /** Most slots the control words have room for. */
  MAX_SLOTS: 12,
  /** Float64 index of the job's start offset; F_SLOT_OFFSET + k: where slot k was read. */
  F_START: 64,
  F_SLOT_OFFSET: 65,
  /** Bytes of the control buffer. */
  BYTES: 1024,
  /** A slot's states. */
  FREE: 0,
  READY: 1,
} as const;

/** Addresses in the worker's wasm memory. */
export interface WorkerLayout {
  slots: number;
  maxEntries: number;
  maxRecordBytes: number;
  /** Per slot k: entries at out[k], values at vals[k], input at input[k] (chunk + 8 bytes). */
  out: number[];
  vals: number[];
  input: number[];
}

export interface WorkerData {
  module: object;
  memory: object;
  control: SharedArrayBuffer;
  ctl: typeof CTL;
  layout: WorkerLayout;
}

interface WorkerScanExports {
  init(): void;
  stopPos(): number;
  scan(base: number, p: number, end: number, out: number, maxRecs: number, maxLen: number, tab: number, next: number, vals: number): number;
}

/**
 * The worker's main loop. `req` is the worker's require, `data` its workerData. Never returns
 * until RUN is -1; I/O errors are reported in the slot (main then retries in its own thread).
 * It refers to nothing outside itself: it runs from its source text.
 */
export function scanWorkerBody(req: (id: string) => unknown, data: WorkerData): void {
  try {
    scanLoop();
  } catch (e) {
    // Wake the main thread wherever it waits: it sees ALIVE -1 and reads in its own thread.
    const ctl = new Int32Array(data.control);
    Atomics.store(ctl, data.ctl.ALIVE, -1);
    Atomics.store(ctl, data.ctl.BUSY, 0);
    for (let i = 0; i < data.ctl.BYTES / 4; i++) Atomics.notify(ctl, i);
    throw e;
  }

  function scanLoop(): void {
    const fs = req('node:fs') as typeof import('node:fs');
    const C = data.ctl;
    const L = data.layout;
    const ctl = new Int32Array(data.control);
    const ctlF = new Float64Array(data.control);
    const wasm = (globalThis as unknown as { WebAssembly: { Instance: new (m: object, i: object) => { exports: unknown } } }).WebAssembly;
    const ex = new wasm.Instance(data.module, { env: { memory: data.memory } }).exports as WorkerScanExports;
    const memory = data.memory as { buffer: SharedArrayBuffer };
    ex.init();
    let job = 0;
    let ended = true;
    let offset = 0;
    let slot = 0;
    Atomics.store(ctl, C.ALIVE, 1);
    for (;;) {
      const wake = Atomics.load(ctl, C.WAKE);
      const run = Atomics.load(ctl, C.RUN);
      if (run < 0) return;
      if (run !== job) {
        job = run;
        ended = run === 0;
        offset = ctlF[C.F_START];
        slot = 0;
        continue;
      }
      const header = C.SLOTS + slot * C.SLOT_WORDS;
      if (ended || Atomics.load(ctl, header + C.SLOT_STATE) !== C.FREE) {
        Atomics.wait(ctl, C.WAKE, wake);
        continue;
      }
      // BUSY before the second look at RUN: main sets RUN, then waits for BUSY to clear.
      Atomics.store(ctl, C.BUSY, 1);
      if (Atomics.load(ctl, C.RUN) !== job) {
        Atomics.store(ctl, C.BUSY, 0);
        Atomics.notify(ctl, C.BUSY);
        continue;
      }
      const chunk = ctl[C.CHUNK];
      const input = L.input[slot];
      let got = 0;
      let error = 0;
      try {
        got = fs.readSync(ctl[C.FD], new Uint8Array(memory.buffer, input, chunk), 0, chunk, offset);
      } catch {
        error = 1;
      }
      let count = 0;
      let consumed = 0;
      if (got > 0) {
        // No shape table: the main thread matches the records (the work is split evenly so).
        count = ex.scan(input, input, input + got, L.out[slot], L.maxEntries, L.maxRecordBytes, 0, 0, 0);
        consumed = ex.stopPos() - input;
      }
      const full = count === L.maxEntries ? 1 : 0;
      ctl[header + C.SLOT_ERROR] = error;
      ctl[header + C.SLOT_GOT] = got;
      ctl[header + C.SLOT_COUNT] = count;
      ctl[header + C.SLOT_CONSUMED] = consumed;
      ctl[header + C.SLOT_FULL] = full;
      ctlF[C.F_SLOT_OFFSET + slot] = offset;
      // The end of this job's data: an error, a record too long for a chunk, or the end of file.
      if (error || consumed === 0 || (got < chunk && !full)) ended = true;
      offset += consumed;
      Atomics.store(ctl, header + C.SLOT_STATE, C.READY);
      Atomics.notify(ctl, header + C.SLOT_STATE);
      slot = (slot + 1) % L.slots;
      Atomics.store(ctl, C.BUSY, 0);
      Atomics.notify(ctl, C.BUSY);
    }
  }
}

/** The source a `new Worker(…, { eval: true, workerData })` runs. */
export function scanWorkerSource(): string {
  return `(${scanWorkerBody.toString()})(require, require('node:worker_threads').workerData);`;
}
