// Values of unknown shape (YAML, JSON, SQLite, the debuggee) in messages and labels.

/** A primitive as `String` writes it, an object or array as JSON: never `[object Object]`. */
export function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return Array.isArray(value) ? '[…]' : '{…}'; // a cycle
  }
}
