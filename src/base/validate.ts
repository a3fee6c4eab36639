// Run-time checks of JSON that crossed a boundary (a relay WebSocket frame, a webview message),
// written as type guards so that what passes is typed without a cast. Used by the protocol
// modules (the relay's, the webviews'); pure, since the webviews bundle it too.

/** A check that narrows `unknown` to T. */
export type Guard<T> = (v: unknown) => v is T;
export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isStr = (v: unknown): v is string => typeof v === 'string';
export const isBool = (v: unknown): v is boolean => typeof v === 'boolean';
/** A finite number. */
export const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
export const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
/** [lo, hi] with lo ≤ hi, both finite. */
export const isRange = (v: unknown): v is [number, number] => Array.isArray(v) && v.length === 2 && isNum(v[0]) && isNum(v[1]) && v[0] <= v[1];

export function arrayOf<T>(f: Guard<T>): Guard<T[]> {
  return (v: unknown): v is T[] => Array.isArray(v) && v.every(f);
}

export function nullable<T>(f: Guard<T>): Guard<T | null> {
  return (v: unknown): v is T | null => v === null || f(v);
}

/** For a field that may be absent. */
export function optional<T>(f: Guard<T>): Guard<T | undefined> {
  return (v: unknown): v is T | undefined => v === undefined || f(v);
}

/** One of these strings (a message `type`, an enum). */
export function oneOf<const L extends string>(values: readonly L[]): Guard<L> {
  return (v: unknown): v is L => typeof v === 'string' && (values as readonly string[]).includes(v);
}

/** The field types a shape of guards checks for. */
export type Fields<S extends Record<string, Guard<unknown>>> = { [K in keyof S]: S[K] extends Guard<infer T> ? T : never };

/**
 * True when v is an object whose fields pass the guards of `shape`; the other fields are left
 * as they are (a message keeps what a newer peer added).
 */
export function hasFields<S extends Record<string, Guard<unknown>>>(v: unknown, shape: S): v is Obj & Fields<S> {
  if (!isObj(v)) return false;
  for (const k in shape) if (!shape[k](v[k])) return false;
  return true;
}
