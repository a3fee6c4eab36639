// TFRecord framing and CRC-32C verification in WebAssembly (scan.wat), one call per chunk.
// One module instance serves every reader in the process: a scan is synchronous, so readers
// take turns on the shared input region, and the shape table of the reader scanning is loaded
// when it is not the one already there.
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
  scan(base: number, p: number, end: number, out: number, maxRecs: number, maxLen: number, tab: number, next: number, vals: number): number;
  stopPos(): number;
  reset(): void;
}

export const enum RecordStatus {
  Ok = 0,
  /** Skipped up to the next valid header (a torn record's length is not trusted). */
  DataCrcMismatch = 1,
  /** A valid header claiming more than MAX_RECORD_BYTES: skipped up to the next valid header. */
  Oversized = 3,
}

/**
 * Largest record we read (a scalar event is ~100 bytes; an image a few MB). A header claiming more
 * is skipped and reported, never waited for: the reader's memory and its progress stay bounded.
 */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;
// Memory layout (scan.wat): CRC tables and header memo below 10240, then these.
export const SHAPES_BASE = 16384;
/** Room for a packed shape table (event-shapes.ts keeps its tables within it). */
export const SHAPE_TABLE_BYTES = 512 * 1024;
/** Most shapes a packed table holds. */
export const SHAPE_TABLE_MAX = 1024;
/** The prediction array (one i32 per shape) after the table. */
export const NEXT_BASE = SHAPES_BASE + SHAPE_TABLE_BYTES;
const OUT_BASE = NEXT_BASE + 4 * SHAPE_TABLE_MAX;
/** Most entries one scan writes (it stops early, `full`, when there are more records). */
export const MAX_ENTRIES = 16384;
export const ENTRY_INTS = 4;
const VALUES_BASE = OUT_BASE + MAX_ENTRIES * ENTRY_INTS * 4;
export const PAGE = 65536;
/** f64 per entry in the values column (scan.wat: wall_time, value, raw step bytes). */
export const ENTRY_VALUES = 3;
const INPUT_BASE = Math.ceil((VALUES_BASE + MAX_ENTRIES * ENTRY_VALUES * 8) / PAGE) * PAGE;

/** Result of scanning one chunk: `count` entries of ENTRY_INTS ints each. */
export interface ScanResult {
  count: number;
  /**
   * Int32 view over the entries (valid until the next scan): offset, length, status, and the
   * index of the record's shape in the table passed to scanChunk (-1: none).
   */
  entries: Int32Array;
  /**
   * Float64 view: wall_time, value and the raw step bytes of entry k at [3k, 3k + 2], for
   * records the scan matched to a one-value shape (valid until the next scan).
   */
  values: Float64Array;
  /** Bytes of the chunk consumed (records + skipped garbage); the rest waits for more data. */
  consumed: number;
  /** True when the entry table filled up before the chunk was exhausted. */
  full: boolean;
}

let instance: ScanExports | undefined;
/** The shape table in wasm memory now (by identity: a changed table is a new array). */
let loadedTable: Int32Array | undefined;

function exportsOf(): ScanExports {
  if (!instance) {
    const mod = new WebAssembly.Module(Buffer.from(SCAN_WASM_BASE64, 'base64'));
    instance = new WebAssembly.Instance(mod, {}).exports as ScanExports;
    instance.init();
    const have = instance.memory.buffer.byteLength;
    if (INPUT_BASE > have) instance.memory.grow((INPUT_BASE - have) / PAGE);
  }
  return instance;
}

/** The shared input region: callers write a chunk here, then call scanChunk. */
export function inputRegion(bytes: number): Buffer {
  const e = exportsOf();
  const need = INPUT_BASE + bytes + 8; // the scan may load a few bytes past a record's end
  const have = e.memory.buffer.byteLength;
  if (need > have) e.memory.grow(Math.ceil((need - have) / PAGE));
  return Buffer.from(e.memory.buffer, INPUT_BASE, bytes);
}

/**
 * Scans `length` bytes previously written at the start of inputRegion(). With a packed shape
 * table (ShapeTable.packed()), records of those shapes are matched and CRC-checked by it.
 */
export function scanChunk(length: number, shapes?: Int32Array): ScanResult {
  const e = exportsOf();
  if (shapes !== undefined && shapes !== loadedTable) {
    writeShapeTable(e.memory.buffer, shapes);
    e.reset();
    loadedTable = shapes;
  }
  const tab = shapes === undefined ? 0 : SHAPES_BASE;
  const count = e.scan(INPUT_BASE, INPUT_BASE, INPUT_BASE + length, OUT_BASE, MAX_ENTRIES, MAX_RECORD_BYTES, tab, NEXT_BASE, VALUES_BASE);
  return {
    count,
    entries: new Int32Array(e.memory.buffer, OUT_BASE, count * ENTRY_INTS),
    values: new Float64Array(e.memory.buffer, VALUES_BASE, count * ENTRY_VALUES),
    consumed: e.stopPos() - INPUT_BASE,
    full: count === MAX_ENTRIES,
  };
}

/**
 * Writes a packed shape table at SHAPES_BASE of a scan module's memory, with an empty prediction
 * array (the instance must then be reset()).
 */
export function writeShapeTable(memory: ArrayBufferLike, words: Int32Array): void {
  if (words.byteLength > SHAPE_TABLE_BYTES || words[0] > SHAPE_TABLE_MAX) throw new RangeError('shape table too large');
  new Int32Array(memory, SHAPES_BASE, words.length).set(words);
  new Int32Array(memory, NEXT_BASE, words[0]).fill(-1);
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
