// One TRXP row's tokens for a `tokens` request: item 0's tensors (tokens, logprobs, action_mask,
// advantages, returns, token_level_reward) converted to the wire's types, and its prompt length,
// truncation, reward and texts from the pickled metadata. Only the byte ranges needed are read —
// the fixed header, the metadata, the tensors header, then each wanted tensor — so a row with
// large other tensors (multimodal inputs) costs no more, and every length is checked before it is
// read: a crafted row costs bounded time and memory and gives a clear RowDecodeError.
import type { TokensReply } from '../../relay-protocol/tokens-frame';
import { MAX_FRAME_TOKENS, TOKEN_ARRAYS, type TokenArrayName } from '../../relay-protocol/tokens-frame';
import { toWireNumber } from '../../relay-protocol/wire-values';
import { PickleError, type PyValue, unpickleSliced } from './pickle';
import { MAX_TENSOR_HEADER, TensorError, asFloat32, asInt32, asMask, tensorEntries } from './safetensors';
import { RowDecodeError, TRXP_HEAD_BYTES, boundedJsonOf, field, firstItem, numberOf, trxpLayout } from './trxp';

/** Larger metadata is not read for tokens (as for the detail). */
const MAX_META = 16 * 1024 * 1024;

/** The undecoded parts of one row's tokens, read on a consistent view of the database. */
export interface RowTokenParts {
  meta: Uint8Array;
  tensors: Partial<Record<TokenArrayName, { dtype: string; bytes: Uint8Array }>>;
  storedBytes: number;
}

/** Reads `len` bytes at `start` (0-based) of the row's experience_bytes; undefined when it cannot. */
export type RowRange = (start: number, len: number) => Uint8Array | undefined;

function need(cond: unknown, why: string): asserts cond {
  if (!cond) throw new RowDecodeError(why);
}

function le64(b: Uint8Array, at: number): number {
  return Number(new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(at, true));
}

/**
 * The byte ranges of item 0's tokens within a row of `total` bytes (synchronous: run it inside one
 * read transaction). Throws RowDecodeError for a row that is not TRXP, truncated or over a limit.
 */
export function readTokenParts(read: RowRange, total: number): RowTokenParts {
  const head = read(0, Math.min(TRXP_HEAD_BYTES, total));
  const layout = head && trxpLayout(head);
  need(layout, 'not a TRXP experience (a legacy pickle keeps no tensors to read)');
  const { metaLen, tensorLen } = layout;
  need(metaLen <= MAX_META, `experience metadata of ${metaLen} bytes is over the ${MAX_META}-byte limit`);
  need(TRXP_HEAD_BYTES + metaLen + tensorLen <= total, `experience bytes truncated (${total} bytes, metadata ${metaLen}, tensors ${tensorLen})`);
  const meta = read(TRXP_HEAD_BYTES, metaLen);
  need(meta && meta.length === metaLen, 'cannot read the experience metadata');
  const at = TRXP_HEAD_BYTES + metaLen;
  need(tensorLen >= 8, 'the experience has no tensors');
  const lenBytes = read(at, 8);
  need(lenBytes && lenBytes.length === 8, 'cannot read the tensors header');
  const headerLen = le64(lenBytes, 0);
  need(headerLen <= MAX_TENSOR_HEADER, `a tensors header of ${headerLen} bytes is over the ${MAX_TENSOR_HEADER}-byte limit`);
  need(8 + headerLen <= tensorLen, 'the tensors header runs past the tensors');
  const json = read(at + 8, headerLen);
  need(json && json.length === headerLen, 'cannot read the tensors header');
  const dataAt = at + 8 + headerLen;
  const names = Object.keys(TOKEN_ARRAYS) as TokenArrayName[];
  let entries;
  try {
    entries = tensorEntries(
      json,
      tensorLen - 8 - headerLen,
      names.map((n) => `0:${n}`),
      MAX_FRAME_TOKENS,
    );
  } catch (e) {
    if (e instanceof TensorError) throw new RowDecodeError(e.message);
    throw e;
  }
  const tensors: RowTokenParts['tensors'] = {};
  let storedBytes = 0;
  for (const name of names) {
    const t = entries.get(`0:${name}`);
    if (!t) continue;
    const bytes = t.end > t.begin ? read(dataAt + t.begin, t.end - t.begin) : new Uint8Array(0);
    need(bytes && bytes.length === t.end - t.begin, `cannot read tensor ${name}`);
    tensors[name] = { dtype: t.dtype, bytes };
    storedBytes += bytes.length;
  }
  need(tensors.tokens, 'the experience has no tokens tensor');
  return { meta, tensors, storedBytes };
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const list = (v: unknown): unknown[] | null => (Array.isArray(v) ? v : null);

/** Decodes the parts read into a reply (its request fields left for the caller). */
export async function decodeTokenParts(parts: RowTokenParts): Promise<Omit<TokensReply, 'type' | 'request' | 'source' | 'id'>> {
  let item: PyValue | undefined;
  try {
    item = firstItem(await unpickleSliced(parts.meta));
  } catch (e) {
    if (e instanceof PickleError) throw new RowDecodeError(`cannot unpickle the experience: ${e.message}`);
    throw e;
  }
  const arrays: TokensReply['arrays'] = {};
  try {
    for (const [name, t] of Object.entries(parts.tensors) as [TokenArrayName, { dtype: string; bytes: Uint8Array }][]) {
      if (name === 'tokens') arrays.tokens = asInt32(t.bytes, t.dtype, 'tokens');
      else if (name === 'action_mask') arrays.action_mask = asMask(t.bytes, t.dtype);
      else arrays[name] = asFloat32(t.bytes, t.dtype);
    }
  } catch (e) {
    if (e instanceof TensorError) throw new RowDecodeError(e.message);
    throw e;
  }
  const rawPl = field(item, 'prompt_length');
  const pl = numberOf(rawPl);
  const reward = numberOf(field(item, 'reward'));
  // Texts and messages through the same budget as a row's detail (long strings cut, a size bound).
  const texts = boundedJsonOf({
    response_text: text(field(item, 'response_text')),
    prompt_text: text(field(item, 'prompt_text')),
    messages: list(field(item, 'messages')),
    tools: list(field(item, 'tools')),
  }) as { response_text: string | null; prompt_text: string | null; messages: unknown[] | null; tools: unknown[] | null };
  return {
    kind: 'tensors',
    // Trinity's default when the metadata has none (Experience.deserialize_many).
    // Null (not known) for one that is not a count (a string, a huge or negative number), never a made-up 1.
    prompt_length: rawPl === undefined || rawPl === null ? 1 : pl !== undefined && Number.isSafeInteger(pl) && pl >= 0 ? pl : null,
    truncate_status: text(field(item, 'truncate_status')),
    reward: reward === undefined ? null : toWireNumber(reward),
    ...texts,
    stored_bytes: parts.storedBytes,
    arrays,
  };
}
