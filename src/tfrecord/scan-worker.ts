// The scan worker (scan-pipeline.ts starts it): a thread that reads a file ahead of the
// reader, frames each chunk and checks both CRCs of every record (scan.wat) into a ring of
// slots in its shared wasm memory, while the main thread matches and decodes the slot before.
// The protocol is in scan-worker-protocol.ts.
//
// An entry of its own: esbuild.mjs bundles it and embeds the text in the single-file CLI
// (scan-worker-code.ts), which starts it with `new Worker(code, { eval: true })`; under tsc
// the pipeline starts this file's out/ output.
import * as fs from 'node:fs';
import { isMainThread, workerData } from 'node:worker_threads';
import { CTL, WorkerData } from './scan-worker-protocol';

declare const WebAssembly: {
  Instance: new (module: object, imports: object) => { exports: unknown };
};

interface WorkerScanExports {
  init(): void;
  stopPos(): number;
  scan(base: number, p: number, end: number, out: number, maxRecs: number, maxLen: number, tab: number, next: number, vals: number): number;
}

/**
 * The worker's main loop over `data` (its workerData). Never returns until RUN is -1; I/O
 * errors are reported in the slot (main then retries in its own thread).
 */
function runScanWorker(data: WorkerData): void {
  try {
    scanLoop(data);
  } catch (e) {
    // Wake the main thread wherever it waits: it sees ALIVE -1 and reads in its own thread.
    const ctl = new Int32Array(data.control);
    Atomics.store(ctl, CTL.ALIVE, -1);
    Atomics.store(ctl, CTL.BUSY, 0);
    for (let i = 0; i < CTL.BYTES / 4; i++) Atomics.notify(ctl, i);
    throw e;
  }
}

function scanLoop(data: WorkerData): void {
  const C = CTL;
  const L = data.layout;
  const ctl = new Int32Array(data.control);
  const ctlF = new Float64Array(data.control);
  const ex = new WebAssembly.Instance(data.module, { env: { memory: data.memory } }).exports as WorkerScanExports;
  const memory = data.memory;
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

if (!isMainThread) runScanWorker(workerData as WorkerData);
