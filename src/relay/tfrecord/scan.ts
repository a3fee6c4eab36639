// TFRecord framing and CRC-32C verification in WebAssembly (scan.wat), one call per chunk.
// One module instance serves every reader in the process: a scan is synchronous, so readers
// take turns on the shared input region.
import { SCAN_WASM_BASE64 } from './scan-wasm';

// The WebAssembly global of Node (tsconfig has no DOM lib, so declare the part we use).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
};

interface ScanExports {
  memory: WasmMemory;
  init(): void;
  crc(p: number, len: number): number;
  scan(base: number, p: number, end: number, out: number, maxRecs: number, maxLen: number): number;
  stopPos(): number;
}

export const enum RecordStatus {
  Ok = 0,
  DataCrcMismatch = 1,
  BadHeader = 2,
}

/** Largest record we accept (a length above this is treated as a corrupt header). */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;
const OUT_BASE = 16384;
const MAX_ENTRIES = 16384;
const INPUT_BASE = 262144;
const PAGE = 65536;

/** Result of scanning one chunk: entries in `entries` (offset, length, status) triples. */
export interface ScanResult {
  count: number;
  /** Int32 view over the entry triples (valid until the next scan). */
  entries: Int32Array;
  /** Bytes of the chunk consumed (records + skipped garbage); the rest waits for more data. */
  consumed: number;
  /** True when the entry table filled up before the chunk was exhausted. */
  full: boolean;
}

let instance: ScanExports | undefined;

function exportsOf(): ScanExports {
  if (!instance) {
    const mod = new WebAssembly.Module(Buffer.from(SCAN_WASM_BASE64, 'base64'));
    instance = new WebAssembly.Instance(mod, {}).exports as unknown as ScanExports;
    instance.init();
  }
  return instance;
}

/** The shared input region: callers write a chunk here, then call scanChunk. */
export function inputRegion(bytes: number): Buffer {
  const e = exportsOf();
  const need = INPUT_BASE + bytes;
  const have = e.memory.buffer.byteLength;
  if (need > have) e.memory.grow(Math.ceil((need - have) / PAGE));
  return Buffer.from(e.memory.buffer, INPUT_BASE, bytes);
}

/** Scans `length` bytes previously written at the start of inputRegion(). */
export function scanChunk(length: number): ScanResult {
  const e = exportsOf();
  const count = e.scan(INPUT_BASE, INPUT_BASE, INPUT_BASE + length, OUT_BASE, MAX_ENTRIES, MAX_RECORD_BYTES);
  return {
    count,
    entries: new Int32Array(e.memory.buffer, OUT_BASE, count * 3),
    consumed: e.stopPos() - INPUT_BASE,
    full: count === MAX_ENTRIES,
  };
}

/** CRC-32C of a buffer (for tests and writers; the reader uses scanChunk). */
export function crc32c(data: Uint8Array): number {
  const region = inputRegion(data.length);
  region.set(data);
  return exportsOf().crc(INPUT_BASE, data.length) >>> 0;
}

/** The TFRecord mask of a CRC-32C. */
export function maskCrc(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** Frames one record (for test writers and the bench's appender). */
export function frameRecord(data: Uint8Array): Buffer {
  const out = Buffer.alloc(16 + data.length);
  out.writeUInt32LE(data.length, 0);
  out.writeUInt32LE(0, 4);
  out.writeUInt32LE(maskCrc(crc32c(out.subarray(0, 8))), 8);
  out.set(data, 12);
  out.writeUInt32LE(maskCrc(crc32c(data)), 12 + data.length);
  return out;
}
