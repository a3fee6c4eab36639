// What the scan pipeline (scan-pipeline.ts, main thread) and the scan worker (scan-worker.ts)
// share: the layout of the control words and of the worker's wasm memory, and the workerData.
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

/** What the pipeline starts the worker with. */
export interface WorkerData {
  /** The shared-memory scan module (scan-wasm.ts), compiled once by the main thread. */
  module: object;
  /** Its memory (a shared WebAssembly.Memory): the slots the main thread decodes in place. */
  memory: { buffer: SharedArrayBuffer };
  /** The control words (CTL). */
  control: SharedArrayBuffer;
  layout: WorkerLayout;
}
