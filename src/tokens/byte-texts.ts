// Token texts of a byte-level BPE tokenizer (GPT-2, Llama 3, Qwen…) in one pass: every token is a
// run of bytes (an added token the UTF-8 of its text), the sequence's text is their UTF-8
// decoding, so each token's text is what its bytes complete — the characters that end in it —
// and a token whose bytes complete none is partial. Same result as the windowed decode of
// tokenizer.ts, at a fraction of the cost.
//
// Why the join is the tokenizer's decode without decoding again: the text is only ever cut where
// the bytes so far end on a character boundary (no UTF-8 decoder is mid-character there), and
// decoding bytes in pieces cut at such boundaries gives the same text as decoding them whole —
// with the byte order mark kept (`ignoreBOM`), as the tokenizer's decoder keeps it. The one cut
// that may fall inside a character is the forced one after MAX_HELD tokens without text; a result
// with such a cut says so (`exact: false`) and the caller checks it against the decode.
import { FLAG_PARTIAL, FLAG_SPECIAL, type TokenTexts } from './experience';

/** A UTF-8 character is at most 4 bytes: hold no more tokens than that without text. */
const MAX_HELD = 4;

/** How many bytes at the end of buf[0, end) start a character that is not complete yet. */
function incompleteTail(buf: Uint8Array, end: number): number {
  for (let back = 1; back <= Math.min(3, end); back++) {
    const b = buf[end - back];
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');

export interface ByteLevelResult {
  texts: TokenTexts;
  /** False when a cut was forced inside a character: then the join must be checked against the decode. */
  exact: boolean;
}

/**
 * The texts of `ids`; undefined when a token has no bytes (not a byte-level piece). `wholeText`
 * caches, per tokenizer, the text of a token whose bytes are whole characters on their own: most
 * tokens are, and then their text is a lookup instead of a decode.
 */
export function byteLevelTexts(
  ids: ArrayLike<number>,
  bytesOf: (id: number) => Uint8Array | undefined,
  isSpecial: (id: number) => boolean,
  wholeText: Map<number, string>,
): ByteLevelResult | undefined {
  const n = ids.length;
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const pieces = new Array<string>(n);
  const flags = new Uint8Array(n);
  const partialBytes: Record<number, string> = {};
  let pending = new Uint8Array(64);
  let len = 0;
  let held = 0; // tokens since the last one that got text
  let exact = true;
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    if (isSpecial(id)) flags[i] |= FLAG_SPECIAL;
    if (len === 0) {
      const known = wholeText.get(id);
      if (known !== undefined) {
        pieces[i] = known;
        continue;
      }
    }
    const b = bytesOf(id);
    if (!b) return undefined;
    if (len === 0 && b.length > 0 && incompleteTail(b, b.length) === 0) {
      const text = decoder.decode(b);
      wholeText.set(id, text);
      pieces[i] = text;
      continue;
    }
    if (len + b.length > pending.length) {
      const grown = new Uint8Array(Math.max(pending.length * 2, len + b.length));
      grown.set(pending.subarray(0, len));
      pending = grown;
    }
    pending.set(b, len);
    len += b.length;
    const tail = incompleteTail(pending, len);
    const forced = tail > 0 && (i + 1 === n || held + 1 >= MAX_HELD);
    if (tail === len && !forced) {
      flags[i] |= FLAG_PARTIAL;
      partialBytes[i] = hex(b);
      pieces[i] = '';
      held++;
      continue;
    }
    // At the very end an incomplete character decodes to U+FFFD as in the whole decode; before
    // the end a forced cut may split a character the next tokens would have completed.
    if (forced && i + 1 < n) exact = false;
    const cut = forced ? len : len - tail;
    pieces[i] = decoder.decode(pending.subarray(0, cut));
    pending.copyWithin(0, cut, len);
    len -= cut;
    held = 0;
  }
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i] + pieces[i].length;
  return { texts: { joined: pieces.join(''), offsets, flags, partialBytes }, exact };
}
