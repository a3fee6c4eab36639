// Schema validation that re-validates only what changed. Every object section of the derived
// schema is wrapped in an `x-memo` keyword whose inner schema ajv compiles on its own; what
// that validator reports for a value object is remembered per object. Values of unchanged
// subtrees keep their identity from one parse to the next (ParseCache reuses them), so an
// edit re-validates the sections on its path and replays the others.
//
// A wrapper hands the section's errors to ajv (so they keep ajv's order) with their instance
// paths already absolute; ajv then overwrites their `data` with the section's value, so the
// offending value travels along under a symbol and is put back when the run ends.
import type Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';

export const MEMO_KEYWORD = 'x-memo';

const DATA: unique symbol = Symbol('agentrl.errorData');
type Carried = ErrorObject & { [DATA]?: unknown };

const validators = new WeakMap<object, ValidateFunction>();
const results = new WeakMap<ValidateFunction, WeakMap<object, ErrorObject[]>>();
const NONE: ErrorObject[] = [];

/** Registers the `x-memo` keyword on an ajv instance. */
export function addMemoKeyword(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: MEMO_KEYWORD,
    schemaType: 'object',
    errors: true,
    validate: function check(inner: object, data: unknown, _parent?: unknown, cxt?: { instancePath: string }): boolean {
      const errors = section(ajv, inner, data);
      if (!errors.length) return true;
      const at = cxt?.instancePath ?? '';
      // fresh copies: ajv rewrites the errors it is given
      (check as unknown as { errors: Carried[] }).errors = errors.map((e) => ({ ...e, instancePath: at + e.instancePath, [DATA]: e.data }));
      return false;
    },
  });
}

/** The section's errors for `data`, paths relative to it (remembered per value object). */
function section(ajv: Ajv, inner: object, data: unknown): ErrorObject[] {
  let v = validators.get(inner);
  if (!v) {
    v = ajv.compile(inner);
    validators.set(inner, v);
  }
  let byValue = results.get(v);
  if (!byValue) {
    byValue = new WeakMap();
    results.set(v, byValue);
  }
  if (typeof data !== 'object' || data === null) return run(v, data);
  let errors = byValue.get(data);
  if (!errors) {
    errors = run(v, data);
    byValue.set(data, errors);
  }
  return errors;
}

/** Runs a validator; its errors with the offending values put back. */
function run(v: ValidateFunction, data: unknown): ErrorObject[] {
  v(data);
  const errors = (v.errors ?? NONE) as Carried[];
  for (const e of errors) {
    if (DATA in e) {
      e.data = e[DATA];
      delete e[DATA];
    }
  }
  return errors.length ? errors : NONE;
}

/** Validates a document with a validator whose sections are wrapped; all its errors. */
export function validateMemo(v: ValidateFunction, data: unknown): ErrorObject[] {
  return run(v, data);
}
