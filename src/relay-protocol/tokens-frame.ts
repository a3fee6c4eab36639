// One experience's tokens as the relay sends them on request (`tokens`): the tensors of an SQL
// row as typed arrays in one binary frame — a 32 k-token experience is ~700 KB of columns, which
// as JSON number lists would be several MB to stringify and parse number by number — and the
// texts a view needs beside them (response text when no tokenizer is found, messages and tools
// for the chat template). A file-buffer / queue-backup line keeps no tensors: its frame has no
// arrays, only the texts to re-tokenize. Pure (no node modules): the relay and the client both
// use it.
//
// Binary tokens frame (a WebSocket binary message; all numbers little-endian):
//
//   offset 0   4 bytes   magic "ART1" (agentrl relay tokens, layout 1)
//   offset 4   uint32    H, the byte length of the header
//   offset 8   H bytes   header, UTF-8 JSON: TokensHeader (arrays: [{name, dtype, length}])
//   …          0–7 zero bytes, so that the arrays start at a multiple of 8
//   then each array in header order: length elements of its dtype (i32: int32, f32: float32,
//   u8: uint8), followed by 0–7 zero bytes so that the next one starts at a multiple of 8.
//
// The arrays keep Trinity's lengths: `tokens` the whole sequence, the others (logprobs,
// action_mask, advantages, returns, token_level_reward) the response part as stored. A failed
// request is answered by the JSON message TokensErrorMessage (messages.ts), never a frame.
import { hasFields, isInt, isStr, nullable, oneOf, optional, arrayOf, isObj } from '../base/validate';
import { frameMagic, littleEndianHost, readFrameHead } from './binary-frame';
import { ProtocolError } from './messages';
import { type WireNumber, isWireNumber } from './wire-values';

/** The arrays a tokens frame may carry, with the type each travels as. */
export const TOKEN_ARRAYS = {
  tokens: 'i32',
  logprobs: 'f32',
  action_mask: 'u8',
  advantages: 'f32',
  returns: 'f32',
  token_level_reward: 'f32',
} as const;
export type TokenArrayName = keyof typeof TOKEN_ARRAYS;
type WireDtype = (typeof TOKEN_ARRAYS)[TokenArrayName];

/** The most elements one array of a frame may have (both ends refuse more). */
export const MAX_FRAME_TOKENS = 1 << 19;

export interface TokensHeader {
  type: 'tokens';
  /** The `request` of the client's `tokens` message. */
  request: number;
  source: string;
  id: number;
  /** 'tensors': an SQL row's own tensors; 'texts': a line that keeps only texts (re-tokenize it). */
  kind: 'tensors' | 'texts';
  prompt_length: number | null;
  /** Texts rows only: the response's token count when it was written (Experience.to_dict). */
  response_length?: number | null;
  truncate_status: string | null;
  reward: WireNumber | null;
  response_text?: string | null;
  prompt_text?: string | null;
  /** The messages and tools as stored, as JSON (held to the relay's decode budget). */
  messages?: unknown[] | null;
  tools?: unknown[] | null;
  /** The bytes the tensors took in the row (safetensors data, before conversion): what the wire is measured against. */
  stored_bytes?: number;
  arrays: { name: TokenArrayName; dtype: WireDtype; length: number }[];
}

/** A tokens frame as both ends hold it. */
export interface TokensReply extends Omit<TokensHeader, 'arrays'> {
  arrays: Partial<{
    tokens: Int32Array;
    logprobs: Float32Array;
    action_mask: Uint8Array;
    advantages: Float32Array;
    returns: Float32Array;
    token_level_reward: Float32Array;
  }>;
}

/** "ART1" as a little-endian uint32. */
const TOKENS_MAGIC = 0x31545241;

const SIZE: Record<WireDtype, number> = { i32: 4, f32: 4, u8: 1 };
const pad8 = (n: number) => (n + 7) & ~7;

/** Whether a binary frame is a tokens frame. */
export function isTokensFrame(data: Uint8Array): boolean {
  return frameMagic(data) === TOKENS_MAGIC;
}

export function encodeTokensFrame(r: TokensReply): Uint8Array {
  return new TokensFrameTemplate(r).frame(r.request);
}

/** Characters the request number takes in a template's header (JSON blanks pad it). */
const REQUEST_WIDTH = 24;
const REQUEST_KEY = '{"request":';

/**
 * One row's tokens frame laid out once, for any request: the header starts with the request
 * number padded to a fixed width, so the frame of each request is a copy of the same bytes with
 * the number written in. A client that asks for the same row again and again (or many clients)
 * costs one copy an answer, not a JSON text of the messages, its encoding and two frame copies.
 */
export class TokensFrameTemplate {
  private readonly base: Uint8Array;

  constructor(r: Omit<TokensReply, 'request'>) {
    const arrays: TokensHeader['arrays'] = [];
    for (const name of Object.keys(TOKEN_ARRAYS) as TokenArrayName[]) {
      const a = r.arrays[name];
      if (a) arrays.push({ name, dtype: TOKEN_ARRAYS[name], length: a.length });
    }
    const { request: _request, ...rest } = r as TokensReply;
    const header = JSON.stringify({ ...rest, arrays });
    const text = new TextEncoder().encode(`${REQUEST_KEY}${'0'.padEnd(REQUEST_WIDTH)},${header.slice(1)}`);
    let at = pad8(8 + text.length);
    const starts = arrays.map((a) => {
      const s = at;
      at = pad8(at + a.length * SIZE[a.dtype]);
      return s;
    });
    const out = new Uint8Array(at);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, TOKENS_MAGIC, true);
    dv.setUint32(4, text.length, true);
    out.set(text, 8);
    arrays.forEach((a, i) => {
      const src = r.arrays[a.name]!;
      if (littleEndianHost || a.dtype === 'u8') out.set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), starts[i]);
      else
        for (let k = 0; k < src.length; k++) {
          if (a.dtype === 'i32') dv.setInt32(starts[i] + 4 * k, src[k], true);
          else dv.setFloat32(starts[i] + 4 * k, src[k], true);
        }
    });
    this.base = out;
  }

  /** The bytes of one frame. */
  get byteLength(): number {
    return this.base.length;
  }

  /** The frame answering request `request` (a new copy: frames in flight are never shared). */
  frame(request: number): Uint8Array {
    const [head, body] = this.fragments(request);
    const out = new Uint8Array(this.base.length);
    out.set(head);
    out.set(body, head.length);
    return out;
  }

  /**
   * The frame answering request `request` in two parts: a copy of its first bytes with the request
   * number written in, and the rest, the template's own bytes (shared by every answer, read-only),
   * sent as fragments of one WebSocket message — an answer costs its head, not a copy of the frame.
   */
  fragments(request: number): [Uint8Array, Uint8Array] {
    const digits = String(request);
    if (digits.length > REQUEST_WIDTH) throw new ProtocolError(`request ${digits.slice(0, 40)} does not fit a tokens frame`);
    const at = 8 + REQUEST_KEY.length;
    const head = this.base.slice(0, at + REQUEST_WIDTH);
    for (let i = 0; i < REQUEST_WIDTH; i++) head[at + i] = i < digits.length ? digits.charCodeAt(i) : 0x20;
    return [head, this.base.subarray(at + REQUEST_WIDTH)];
  }
}

const isArrayEntry = (v: unknown): v is TokensHeader['arrays'][number] =>
  hasFields(v, { name: oneOf(Object.keys(TOKEN_ARRAYS) as TokenArrayName[]), dtype: oneOf(['i32', 'f32', 'u8'] as WireDtype[]), length: isInt }) &&
  TOKEN_ARRAYS[v.name] === v.dtype &&
  v.length >= 0 &&
  v.length <= MAX_FRAME_TOKENS;

const isHeader = (v: unknown): v is TokensHeader =>
  hasFields(v, {
    type: oneOf(['tokens']),
    request: isInt,
    source: isStr,
    id: isInt,
    kind: oneOf(['tensors', 'texts']),
    prompt_length: nullable(isInt),
    response_length: optional(nullable(isInt)),
    truncate_status: nullable(isStr),
    reward: nullable(isWireNumber),
    response_text: optional(nullable(isStr)),
    prompt_text: optional(nullable(isStr)),
    messages: optional(nullable(arrayOf((_v: unknown): _v is unknown => true))),
    tools: optional(nullable(arrayOf((_v: unknown): _v is unknown => true))),
    stored_bytes: optional(isInt),
    arrays: arrayOf(isArrayEntry),
  });

/**
 * Reads a binary tokens frame; throws ProtocolError when it is malformed (a bad header, an
 * array past the end, a name twice). Each array is its own aligned copy.
 */
export function decodeTokensFrame(data: Uint8Array): TokensReply {
  const { header, dv, colsAt } = readFrameHead(data, TOKENS_MAGIC, 'tokens');
  if (!isObj(header) || !isHeader(header)) throw new ProtocolError('tokens frame: bad header');
  const { arrays: entries, ...rest } = header;
  const arrays: TokensReply['arrays'] = {};
  let at = colsAt;
  for (const a of entries) {
    if (arrays[a.name]) throw new ProtocolError(`tokens frame: ${a.name} twice`);
    const bytes = a.length * SIZE[a.dtype];
    if (at + bytes > data.length) throw new ProtocolError(`tokens frame: ${a.name} past the end`);
    const raw = new Uint8Array(data.subarray(at, at + bytes)); // a copy: a Buffer's slice is a view of a pooled buffer
    if (a.dtype === 'u8') arrays.action_mask = raw;
    else if (littleEndianHost)
      (arrays as Record<string, Int32Array | Float32Array>)[a.name] = a.dtype === 'i32' ? new Int32Array(raw.buffer) : new Float32Array(raw.buffer);
    else {
      const out = a.dtype === 'i32' ? new Int32Array(a.length) : new Float32Array(a.length);
      for (let k = 0; k < a.length; k++) out[k] = a.dtype === 'i32' ? dv.getInt32(at + 4 * k, true) : dv.getFloat32(at + 4 * k, true);
      (arrays as Record<string, Int32Array | Float32Array>)[a.name] = out;
    }
    at = pad8(at + bytes);
  }
  if (at < data.length - 7) throw new ProtocolError('tokens frame: bytes after the last array');
  return { ...rest, arrays };
}
