// A token's text made visible for a person (the view, a terminal): spaces, tabs and line breaks
// drawn as glyphs, a token with no text of its own shown as ∅, a piece of a character as its
// bytes. Trinity's experience visualizer uses the same glyphs (␠ ↵ ⇥ ∅) except that a space here
// is a middle dot, lighter in running text. The token's real text is left untouched (copy, JSON).
import { FLAG_PARTIAL, type TokenTexts } from './experience';

const GLYPHS: Record<string, string> = { ' ': '·', '\t': '⇥', '\n': '↵', '\r': '␍', '\u00a0': '⍽' };

export function visibleText(text: string): string {
  if (text === '') return '∅';
  let out = '';
  for (const ch of text) {
    const g = GLYPHS[ch];
    if (g) out += g;
    else if (ch < ' ' || ch === '\u007f') out += `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out;
}

/** The visible form of token i: its bytes when it holds part of a character, `#id` without a tokenizer. */
export function visibleToken(texts: TokenTexts | undefined, ids: ArrayLike<number>, i: number): string {
  if (!texts) return `#${ids[i]}`;
  if (texts.flags[i] & FLAG_PARTIAL) return `‹${texts.partialBytes[i] ?? '?'}›`;
  return visibleText(texts.joined.slice(texts.offsets[i], texts.offsets[i + 1]));
}

/** Whether token i ends a line in the view (its text ends with a line break). */
export function endsLine(texts: TokenTexts | undefined, i: number): boolean {
  if (!texts) return false;
  const end = texts.offsets[i + 1];
  return end > texts.offsets[i] && texts.joined.charCodeAt(end - 1) === 10;
}

/** Columns a string takes in a monospace font: East Asian wide and emoji characters take two. */
export function columns(s: string): number {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (c >= 0x300 && c <= 0x36f) continue; // combining marks
    if (c >= 0xfe00 && c <= 0xfe0f) continue; // variation selectors
    if (c === 0x200d) continue; // zero-width joiner
    n += isWide(c) ? 2 : 1;
  }
  return n;
}

function isWide(c: number): boolean {
  return (
    (c >= 0x1100 && c <= 0x115f) ||
    (c >= 0x2e80 && c <= 0xa4cf) ||
    (c >= 0xac00 && c <= 0xd7a3) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xfe30 && c <= 0xfe4f) ||
    (c >= 0xff00 && c <= 0xff60) ||
    (c >= 0xffe0 && c <= 0xffe6) ||
    (c >= 0x1f300 && c <= 0x1faff) ||
    (c >= 0x20000 && c <= 0x3fffd)
  );
}
