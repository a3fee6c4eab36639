// Bounded memo maps for pure work the engine repeats on every keystroke (path candidates,
// compiled globs, suggestions, URI conversions). Emptied when full: the entries are cheap
// to recompute, and an edit session asks about few distinct keys.

/** The value for `key`, computed once and kept until `map` reaches `max` entries. */
export function remembered<K, V>(map: Map<K, V>, key: K, compute: () => V, max = 5000): V {
  const hit = map.get(key);
  if (hit !== undefined || map.has(key)) return hit as V;
  const v = compute();
  if (map.size >= max) map.clear();
  map.set(key, v);
  return v;
}
