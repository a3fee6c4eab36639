// Inputs we refuse to hand to the YAML parser: too big, binary, or nested so deeply that the
// parser would exhaust the stack or memory (the `yaml` package dies with an out-of-memory
// error on ~100 000 nested `[`). Checked in linear time before parsing.

export const LIMITS = {
  /** Larger documents get one diagnostic and no analysis. */
  maxBytes: 5 * 1024 * 1024,
  /** Deepest flow nesting (`[`/`{`) accepted. */
  maxFlowDepth: 200,
  /** Largest indentation (in columns) accepted; block nesting needs at least one column per level. */
  maxIndent: 1000,
  /** Largest number of nodes a full alias expansion may visit. */
  maxExpandedNodes: 1_000_000,
};

export type LimitCode = 'input.too-large' | 'input.binary' | 'input.too-deep' | 'input.alias-expansion';

export interface LimitProblem {
  code: LimitCode;
  /** Offset where the problem shows (0 for whole-file problems). */
  offset: number;
  detail: string;
}

/** True when a byte buffer is not UTF-8 text (NUL bytes, or invalid UTF-8). */
export function isBinary(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, Math.min(bytes.length, 64 * 1024));
  if (head.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

/** Checks a decoded document; undefined when it is safe to parse. */
export function preflight(text: string, maxBytes = LIMITS.maxBytes): LimitProblem | undefined {
  // a UTF-16 length bound is enough to stay linear; bytes ≥ chars
  if (text.length > maxBytes) {
    return { code: 'input.too-large', offset: 0, detail: `${(text.length / 1024 / 1024).toFixed(1)} MB > ${(maxBytes / 1024 / 1024).toFixed(0)} MB` };
  }
  if (text.includes('\u0000')) return { code: 'input.binary', offset: text.indexOf('\u0000'), detail: 'NUL character' };
  // too few brackets to nest past the limit and no deep indentation: nothing to scan for
  // (counted with indexOf: this runs on every keystroke)
  if (fewer(text, '[', '{', LIMITS.maxFlowDepth) && !deepIndent(text)) return undefined;
  let depth = 0;
  let indent = 0;
  let atLineStart = true;
  let quote = 0; // char code of the open quote, 0 when none
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      atLineStart = true;
      indent = 0;
      if (quote === 39) quote = 0; // single-quoted scalars may span lines, but we only need a bound
      continue;
    }
    if (atLineStart) {
      if (c === 32) {
        indent++;
        if (indent > LIMITS.maxIndent) return { code: 'input.too-deep', offset: i, detail: `indentation > ${LIMITS.maxIndent} columns` };
        continue;
      }
      atLineStart = false;
    }
    if (quote) {
      if (c === 92 && quote === 34)
        i++; // backslash escape
      else if (c === quote) quote = 0;
      continue;
    }
    if (c === 35 /* # */ && (i === 0 || text.charCodeAt(i - 1) === 32 || text.charCodeAt(i - 1) === 9)) {
      const nl = text.indexOf('\n', i);
      if (nl < 0) break;
      i = nl - 1;
      continue;
    }
    if (c === 34 /* " */ || c === 39 /* ' */) {
      const prev = i > 0 ? text.charCodeAt(i - 1) : 32;
      // quotes only open a scalar at a token start
      if (prev === 32 || prev === 10 || prev === 91 || prev === 123 || prev === 44 || prev === 58 || prev === 45) quote = c;
      continue;
    }
    if (c === 91 || c === 123) {
      depth++;
      if (depth > LIMITS.maxFlowDepth) return { code: 'input.too-deep', offset: i, detail: `more than ${LIMITS.maxFlowDepth} nested [ or {` };
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return undefined;
}

const SPACES = ' '.repeat(200);

/** A line indented 200 columns or more (a substring search rules most texts out first). */
const deepIndent = (text: string) => text.includes(SPACES) && /(^|\n) {200}/.test(text);

/** Whether `text` holds at most `max` of the two characters together. */
function fewer(text: string, a: string, b: string, max: number): boolean {
  let n = 0;
  for (const c of [a, b]) {
    for (let i = text.indexOf(c); i >= 0; i = text.indexOf(c, i + 1)) if (++n > max) return false;
  }
  return true;
}
