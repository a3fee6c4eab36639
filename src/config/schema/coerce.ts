// OmegaConf's conversion of a value into a typed field (IntegerNode, FloatNode, BooleanNode,
// StringNode, EnumNode), so we accept exactly what Trinity's loader accepts: `'3'` for an
// int, `'yes'` for a bool, `NCCL` for sync_method; and reject `2.0` or `true` for an int.
import type { PyType } from '../yaml/scalars';
import { pyRepr } from '../yaml/scalars';
import { valueText } from '../../base/value-text';

export type FieldType = 'int' | 'float' | 'bool' | 'str' | 'enum' | 'any';

export interface EnumSpec {
  values: string[];
  aliases: Record<string, string>;
  caseInsensitive: boolean;
}

export interface Coerced {
  ok: boolean;
  /** The converted value when ok. */
  value?: unknown;
  /** Why not, in OmegaConf's terms. */
  reason?: string;
}

const INT_STR = /^\s*[-+]?[0-9](?:_?[0-9])*\s*$/;
const FLOAT_STR = /^\s*[-+]?(?:(?:[0-9](?:_?[0-9])*)?\.?(?:[0-9](?:_?[0-9])*)?(?:[eE][-+]?[0-9]+)?|inf|infinity|nan)\s*$/i;

export const isInterpolation = (v: unknown): v is string => typeof v === 'string' && v.includes('${');

function pyTypeOf(value: unknown): PyType {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'str';
}

/** Converts `value` (whose Python type is `py`) to the field type, as OmegaConf would. */
export function coerce(type: FieldType, nullable: boolean, value: unknown, py: PyType = pyTypeOf(value), en?: EnumSpec): Coerced {
  if (type === 'any') return { ok: true, value };
  if (value !== null && typeof value === 'object')
    return { ok: false, reason: `expected a ${type === 'enum' ? 'string' : type}, got a ${Array.isArray(value) ? 'list' : 'mapping'}` };
  if (py === 'null' || value === null || value === undefined) {
    return nullable ? { ok: true, value: null } : { ok: false, reason: 'None is not allowed here: the field is not Optional' };
  }
  if (isInterpolation(value)) return { ok: true, value };
  const got = `${py} ${pyRepr(value, py)}`;
  const text = valueText(value);
  switch (type) {
    case 'int':
      if (py === 'int') return { ok: true, value };
      if (py === 'str' && INT_STR.test(text) && text.trim() !== '') return { ok: true, value: Number(text.replace(/_/g, '')) };
      return { ok: false, reason: `expected an int, got ${got}` };
    case 'float':
      if (py === 'int' || py === 'float') return { ok: true, value };
      if (py === 'str' && FLOAT_STR.test(text) && /[0-9]|inf|nan/i.test(text)) {
        const s = text.trim().toLowerCase().replace(/_/g, '');
        return { ok: true, value: s.endsWith('inf') || s.endsWith('infinity') ? (s.startsWith('-') ? -Infinity : Infinity) : s === 'nan' ? NaN : Number(s) };
      }
      return { ok: false, reason: `expected a float, got ${got}` };
    case 'bool': {
      if (py === 'bool') return { ok: true, value };
      if (py === 'int') return { ok: true, value: value !== 0 };
      if (py === 'str') {
        const s = text;
        if (INT_STR.test(s)) return { ok: true, value: Number(s.replace(/_/g, '')) !== 0 };
        const l = s.toLowerCase();
        if (['yes', 'y', 'on', 'true'].includes(l)) return { ok: true, value: true };
        if (['no', 'n', 'off', 'false'].includes(l)) return { ok: true, value: false };
      }
      return { ok: false, reason: `expected a bool, got ${got}` };
    }
    case 'str':
      if (py === 'float' && typeof value === 'number' && Number.isInteger(value)) return { ok: true, value: `${value}.0` };
      if (py === 'bool') return { ok: true, value: value ? 'True' : 'False' };
      return { ok: true, value: text };
    case 'enum': {
      if (py !== 'str' || !en) return { ok: false, reason: `expected one of ${(en?.values ?? []).join(', ')}, got ${got}` };
      const canon = enumValue(text, en);
      return canon
        ? { ok: true, value: canon }
        : { ok: false, reason: `invalid value '${text}', expected one of [${en.values.map((v) => v.toUpperCase()).join(', ')}]` };
    }
  }
}

/** Canonical enum value for a (case-insensitive, aliased) name, or undefined. */
export function enumValue(name: string, en: EnumSpec): string | undefined {
  const key = en.caseInsensitive ? name.toLowerCase() : name;
  for (const v of en.values) if ((en.caseInsensitive ? v.toLowerCase() : v) === key) return v;
  for (const [a, v] of Object.entries(en.aliases)) if ((en.caseInsensitive ? a.toLowerCase() : a) === key) return v;
  return undefined;
}
