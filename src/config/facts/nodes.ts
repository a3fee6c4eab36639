// Builders for schema nodes in the shape schemas/*.json use (a plain-JSON-schema `anyOf` for
// other tools, `x-py` for our own OmegaConf-faithful check), so a release's new fields are
// written as one line each instead of copied JSON.
import type { Doc } from '../core/l10n-text';
import type { SchemaNode } from './schema-node';

const INTERP = { type: 'string', pattern: '\\$\\{' };
const INT = [{ type: 'integer' }, { type: 'string', pattern: '^\\s*[-+]?[0-9][0-9_]*\\s*$' }, INTERP];
const BOOL = [
  { type: 'boolean' },
  { type: 'string', pattern: '^(?:[Yy]|[Yy]es|YES|[Nn]|[Nn]o|NO|[Tt]rue|TRUE|[Ff]alse|FALSE|[Oo]n|ON|[Oo]ff|OFF|1|0)$' },
  { type: 'integer' },
  INTERP,
];

export type { Doc };

function field(anyOf: object[], py: SchemaNode['x-py'], doc: Doc, dflt: unknown, extra: Partial<SchemaNode> = {}): SchemaNode {
  const nullable = dflt === null;
  return {
    anyOf: nullable ? [...anyOf, { type: 'null' }] : [...anyOf],
    'x-py': py,
    description: doc.en,
    'x-zh': doc.zh,
    default: dflt,
    ...extra,
  } as SchemaNode;
}

export const intField = (doc: Doc, dflt: number | null, extra?: Partial<SchemaNode>) => field(INT, 'int', doc, dflt, extra);
export const boolField = (doc: Doc, dflt: boolean | null, extra?: Partial<SchemaNode>) => field(BOOL, 'bool', doc, dflt, extra);

/** A case-insensitive enum's published form: its values, and a pattern for any casing or alias. */
export function enumAnyOf(values: readonly string[], aliases: Record<string, string>): object[] {
  const ci = (s: string) => s.replace(/[a-zA-Z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
  const words = [...values, ...Object.keys(aliases)].map(ci).join('|');
  return [{ enum: [...values] }, { type: 'string', pattern: `^(?:${words})$` }, INTERP];
}

const STR = [{ type: ['string', 'number', 'boolean'] }];

export const strField = (doc: Doc, dflt: string | null, extra?: Partial<SchemaNode>) => field(STR, 'str', doc, dflt, extra);

/** A free mapping (`dict` / `Dict[str, Any]`; `Optional[dict]` when the default is null). */
export function mapField(doc: Doc, dflt: Record<string, unknown> | null, extra: Partial<SchemaNode> = {}): SchemaNode {
  const map = { type: 'object', additionalProperties: true };
  const shape = dflt === null ? { anyOf: [{ type: 'null' }, map], 'x-nullable': true } : map;
  return { ...shape, 'x-free': true, description: doc.en, 'x-zh': doc.zh, default: dflt, ...extra };
}

/** A case-insensitive enum field (`values` and `aliases` as the enum's metaclass has them). */
export function enumField(doc: Doc, values: readonly string[], aliases: Record<string, string>, dflt: string | null, extra?: Partial<SchemaNode>): SchemaNode {
  return field(enumAnyOf(values, aliases), 'enum', doc, dflt, { 'x-enum': { values: [...values], aliases: { ...aliases }, caseInsensitive: true }, ...extra });
}

/** A nested dataclass. */
export const classRef = (cls: string, extra: Partial<SchemaNode> = {}): SchemaNode => ({ $ref: `#/definitions/${cls}`, ...extra });

/** A dataclass definition: its fields, no others (OmegaConf rejects unknown keys). */
export const classDef = (cls: string, doc: Doc, properties: Record<string, SchemaNode>): SchemaNode => ({
  type: 'object',
  'x-class': cls,
  description: doc.en,
  'x-zh': doc.zh,
  properties,
  additionalProperties: false,
});
