// Search in a token sequence: text anywhere in the decoded sequence (a word split over tokens is
// found, and every token it touches is a match), or `#id` for every token with that id. Pure.
import type { TokenExperience } from '../../tokens/experience';

/** The tokens a match covers, [first, last], in order. */
export type Match = [number, number];

/** The token holding character `c` of the joined text (binary search in the offsets). */
function tokenAt(offsets: Uint32Array, c: number): number {
  let lo = 0;
  let hi = offsets.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= c) lo = mid;
    else hi = mid - 1;
  }
  // Tokens with no text of their own (partial bytes) share an offset: take the one that holds the character.
  while (lo + 1 < offsets.length - 1 && offsets[lo + 1] === offsets[lo]) lo++;
  return lo;
}

/** At most `limit` matches (a one-letter query in 32 k tokens stays cheap to draw). */
export function findMatches(e: TokenExperience, query: string, limit = 10_000): Match[] {
  const out: Match[] = [];
  const q = query.trim() === '' ? '' : query;
  if (!q) return out;
  const id = /^#(\d+)$/.exec(q.trim());
  if (id) {
    const want = Number(id[1]);
    for (let i = 0; i < e.ids.length && out.length < limit; i++) if (e.ids[i] === want) out.push([i, i]);
    return out;
  }
  const t = e.texts;
  if (!t) return out;
  const hay = t.joined.toLowerCase();
  const needle = q.toLowerCase();
  let from = 0;
  while (out.length < limit) {
    const at = hay.indexOf(needle, from);
    if (at < 0) break;
    out.push([tokenAt(t.offsets, at), tokenAt(t.offsets, at + needle.length - 1)]);
    from = at + Math.max(1, needle.length);
  }
  return out;
}
