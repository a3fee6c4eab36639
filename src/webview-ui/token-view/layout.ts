// Where each token of a sequence sits in the view: tokens flow into lines of `cols` monospace
// columns, a token whose text ends with a line break ends its line, and the response starts on a
// line of its own. Only these numbers are kept for all tokens (a Uint32Array of line starts); the
// view draws the few dozen lines on screen from them, so a 32 k-token sequence never becomes
// 32 k DOM nodes. Pure: no DOM, unit-tested.

export interface TokenLayout {
  /** lineStart[l] is the first token of line l; lineStart[lines] is the token count. */
  lineStart: Uint32Array;
  lines: number;
  /** The line of token i. */
  lineOf(i: number): number;
}

/**
 * @param widths columns per token (its visible text)
 * @param breaks 1 where the token ends a line
 * @param promptLength the response's first token starts a line
 * @param cols the columns a line holds (at least 1)
 */
export function layoutTokens(widths: ArrayLike<number>, breaks: ArrayLike<number>, promptLength: number, cols: number): TokenLayout {
  const n = widths.length;
  const width = Math.max(1, Math.floor(cols));
  const starts: number[] = [0];
  let used = 0;
  for (let i = 0; i < n; i++) {
    const w = widths[i];
    const newLine = (i === promptLength && i > 0) || (used > 0 && used + w > width);
    if (newLine && starts[starts.length - 1] !== i) {
      starts.push(i);
      used = 0;
    }
    used += w;
    if (breaks[i] && i + 1 < n) {
      starts.push(i + 1);
      used = 0;
    }
  }
  const lines = n === 0 ? 0 : starts.length;
  const lineStart = new Uint32Array(lines + 1);
  for (let l = 0; l < lines; l++) lineStart[l] = starts[l];
  lineStart[lines] = n;
  return {
    lineStart,
    lines,
    lineOf(i: number): number {
      let lo = 0;
      let hi = lines - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (lineStart[mid] <= i) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    },
  };
}
