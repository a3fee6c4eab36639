// How Trinity-RFT / ASTuner see a plain YAML scalar. Both load YAML with PyYAML's YAML 1.1
// resolvers, as patched by OmegaConf (timestamps off, `1e-6` is a float). The `yaml`
// package resolves plain scalars by YAML 1.2 (or a 1.1 variant with `y`/`n` booleans), so we
// re-resolve every plain scalar from its source text to get the Python type exactly:
// `2.0` is a float (never an int), `yes` is a bool, `2024-01-01` stays a string.

export type PyType = 'int' | 'float' | 'bool' | 'str' | 'null';

/** The JS value of a YAML scalar. */
export type ScalarValue = string | number | boolean | null;

export interface PyScalar {
  py: PyType;
  /** JS value handed to JSON-schema validation (floats/ints as numbers). */
  value: ScalarValue;
}

const BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const TRUE = /^(?:yes|Yes|YES|true|True|TRUE|on|On|ON)$/;
const NULL = /^(?:~|null|Null|NULL|)$/;
const INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
// PyYAML's float plus OmegaConf's extra resolver (exponent without a dot).
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

function sexagesimal(text: string): number {
  let sign = 1;
  let s = text;
  if (s[0] === '-' || s[0] === '+') {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  let value = 0;
  for (const part of s.split(':')) value = value * 60 + Number(part);
  return sign * value;
}

function parseInt11(text: string): number {
  const clean = text.replace(/_/g, '');
  if (clean.includes(':')) return sexagesimal(clean);
  let sign = 1;
  let s = clean;
  if (s[0] === '-' || s[0] === '+') {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s.startsWith('0b')) return sign * parseInt(s.slice(2), 2);
  if (s.startsWith('0x')) return sign * parseInt(s.slice(2), 16);
  if (s.length > 1 && s[0] === '0') return sign * parseInt(s, 8);
  return sign * Number(s);
}

function parseFloat11(text: string): number {
  const clean = text.replace(/_/g, '').toLowerCase();
  if (clean.endsWith('.inf')) return clean.startsWith('-') ? -Infinity : Infinity;
  if (clean === '.nan') return NaN;
  if (clean.includes(':')) return sexagesimal(clean);
  return Number(clean);
}

/** Resolves a plain (unquoted, untagged) scalar's source text the way OmegaConf's loader does. */
export function resolvePlain(text: string): PyScalar {
  if (NULL.test(text)) return { py: 'null', value: null };
  if (BOOL.test(text)) return { py: 'bool', value: TRUE.test(text) };
  if (INT.test(text)) return { py: 'int', value: parseInt11(text) };
  if (FLOAT.test(text)) return { py: 'float', value: parseFloat11(text) };
  return { py: 'str', value: text };
}

/** Resolves an explicitly tagged scalar (`!!int "3"`); unknown tags keep the string. */
export function resolveTagged(tag: string, text: string): PyScalar {
  const t = tag.replace(/^tag:yaml\.org,2002:/, '!!');
  switch (t) {
    case '!!str':
      return { py: 'str', value: text };
    case '!!int':
      return INT.test(text) ? { py: 'int', value: parseInt11(text) } : { py: 'str', value: text };
    case '!!float':
      return FLOAT.test(text) || INT.test(text) ? { py: 'float', value: parseFloat11(text) } : { py: 'str', value: text };
    case '!!bool':
      return BOOL.test(text) ? { py: 'bool', value: TRUE.test(text) } : { py: 'str', value: text };
    case '!!null':
      return { py: 'null', value: null };
    default:
      return { py: 'str', value: text };
  }
}

/** Python-style rendering of a value, for messages (`True`, `None`, `2.0`). */
export function pyRepr(value: unknown, py?: PyType): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'nan';
    if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
    if (py === 'float' && Number.isInteger(value)) return value.toFixed(1);
    return String(value);
  }
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return '[…]';
  return '{…}';
}
