// What analysis produces: findings with spans (offsets) in the analysed text, messages as
// deferred l10n text (./l10n-text.ts), related locations and quick fixes. Converted to LSP diagnostics by the
// server and to the `agentrl check` JSON shape by engine/checker.ts.
import type { Range, Severity } from '../../feature-api/config-checker';
import { render, type Text } from './l10n-text';
import { remembered } from './remember';
import type { Span } from '../yaml/tree';

export interface Edit {
  span: Span;
  newText: string;
}

export interface Fix {
  title: Text;
  edits: Edit[];
  preferred?: boolean;
}

export interface Related {
  message: Text;
  /** In this document. */
  span?: Span;
  /** In another file (cross-file findings). */
  file?: string;
  range?: Range;
}

export interface Finding {
  severity: Severity;
  /** Stable id, e.g. `schema.unknown-key`, `trinity.batch.divisible`. */
  code: string;
  message: Text;
  /** Dotted path of the offending key. */
  path: string;
  span: Span;
  related?: Related[];
  fixes?: Fix[];
  tags?: ('unnecessary' | 'deprecated')[];
}

/** Collects findings, dropping exact duplicates (stages re-run the same rules). */
export class FindingSink {
  readonly items: Finding[] = [];
  private seen = new Set<string>();
  add(f: Finding): void {
    const key = `${f.code}|${f.span.start}|${f.span.end}|${render(f.message)}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.items.push(f);
  }
}

/** Answers per list or set of candidates (which never change once passed here): a wrong value
 *  stays in the document while the user edits elsewhere, and each answer costs an edit
 *  distance to every candidate. */
const suggested = new WeakMap<object, Map<string, string[]>>();

/** Closest candidates to `name` by edit distance (for "did you mean"). */
export function suggest(name: string, candidates: Iterable<string>, max = 3): string[] {
  if (!Array.isArray(candidates) && !(candidates instanceof Set)) return suggestUncached(name, candidates, max);
  let memo = suggested.get(candidates);
  if (!memo) {
    memo = new Map();
    suggested.set(candidates, memo);
  }
  return remembered(memo, `${max}|${name}`, () => suggestUncached(name, candidates, max), 1000);
}

function suggestUncached(name: string, candidates: Iterable<string>, max: number): string[] {
  const scored: [string, number][] = [];
  const limit = Math.max(2, Math.floor(name.length / 3));
  const lower = name.toLowerCase();
  for (const c of candidates) {
    if (c === name) continue;
    const d = distance(lower, c.toLowerCase());
    const contains = c.toLowerCase().includes(lower) || lower.includes(c.toLowerCase());
    if (d <= limit || (contains && Math.min(c.length, name.length) >= 4)) scored.push([c, d - (contains ? 0.5 : 0)]);
  }
  return scored
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))
    .slice(0, max)
    .map((s) => s[0]);
}

/** Optimal-string-alignment distance (transpositions count as one edit). */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 8) return Math.abs(a.length - b.length);
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
