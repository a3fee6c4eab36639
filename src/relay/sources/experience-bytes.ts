// Decodes one row's experience_bytes from Trinity-RFT's SQL buffer (trinity.md §7) into JSON:
// b"TRXP" + version byte + uint64 LE metadata length + uint64 LE tensor length + metadata (a
// pickle of {version, num_items, items: [...]}) + tensors (safetensors, not sent); legacy rows
// are a plain pickle of an Experience or a list of them. The pickle is read by pickleparser,
// which builds plain data and never runs code (class references become inert objects).
import { Parser } from 'pickleparser';
import type { ExperienceDetail } from '../../relay-protocol/messages';
import { toWireNumber } from '../../relay-protocol/messages';

const MAGIC = 'TRXP';
const HEADER = 4 + 1 + 8 + 8;
const MAX_STRING = 64 * 1024;
const MAX_ITEMS = 2000;
const MAX_DEPTH = 12;

export function decodeExperienceBytes(bytes: Uint8Array): ExperienceDetail {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let value: unknown;
  if (buf.length >= HEADER && buf.toString('latin1', 0, 4) === MAGIC) {
    const metaLen = buf.readBigUInt64LE(5);
    if (metaLen > BigInt(buf.length - HEADER)) throw new Error(`experience bytes truncated (${buf.length} bytes, metadata ${metaLen})`);
    const meta = unpickle(buf.subarray(HEADER, HEADER + Number(metaLen)));
    const items = (meta as { items?: unknown }).items;
    value = Array.isArray(items) ? items[0] : meta;
  } else {
    value = unpickle(buf);
    if (Array.isArray(value)) value = value[0];
  }
  const out = jsonSafe(value, 0);
  return typeof out === 'object' && out !== null && !Array.isArray(out) ? (out as ExperienceDetail) : { value: out };
}

function unpickle(b: Buffer): unknown {
  try {
    return new Parser().parse(b);
  } catch (e) {
    throw new Error(`cannot unpickle the experience: ${(e as Error).message}`);
  }
}

function jsonSafe(v: unknown, depth: number): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isFinite(v) ? v : toWireNumber(v);
  if (typeof v === 'string') return v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}… (${v.length} chars)` : v;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return v.toString();
  if (depth > MAX_DEPTH) return '…';
  if (v instanceof Uint8Array) return `<${v.length} bytes>`;
  if (Array.isArray(v) || v instanceof Set) {
    const a = [...v];
    const out = a.slice(0, MAX_ITEMS).map((x) => jsonSafe(x, depth + 1));
    if (a.length > MAX_ITEMS) out.push(`… (${a.length} items)`);
    return out;
  }
  if (v instanceof Map) return Object.fromEntries([...v].slice(0, MAX_ITEMS).map(([k, x]) => [String(k), jsonSafe(x, depth + 1)]));
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>).slice(0, MAX_ITEMS)) out[k] = jsonSafe(x, depth + 1);
    return out;
  }
  return String(v);
}
