// The three JSON Schemas (schemas/*.schema.json, bundled into every entry point) and a
// navigator over them: which schema applies at a path, its properties, default and docs.
// Hover, completion, defaults for the effective config and the version table all read here.
// The Trinity schema is built from the release lines in ../facts (0.5 + deltas).
import type { ConfigKind } from '../../feature-api/config-checker';
import astunerSchema from '../../../schemas/astuner.schema.json';
import ajetSchema from '../../../schemas/ajet.schema.json';
import type { Segment } from '../yaml/tree';
import { buildTrinitySchema } from '../facts/releases';
import type { RootSchema, SchemaNode } from '../facts/schema-node';

export type { RootSchema, SchemaNode };

export const SCHEMAS: Record<ConfigKind, RootSchema> = {
  trinity: buildTrinitySchema(),
  astuner: astunerSchema as unknown as RootSchema,
  ajet: ajetSchema as unknown as RootSchema,
};

export const TRINITY = SCHEMAS.trinity;

const resolved = new WeakMap<RootSchema, WeakMap<SchemaNode, SchemaNode | null>>();

/** Follows `$ref` (local, or into the Trinity schema) and unwraps nullable wrappers (memoised:
 *  schemas never change, and hover/completion/rules ask for the same nodes all the time). */
export function resolve(node: SchemaNode | undefined, root: RootSchema = TRINITY): SchemaNode | undefined {
  if (!node) return undefined;
  let memo = resolved.get(root);
  if (!memo) {
    memo = new WeakMap();
    resolved.set(root, memo);
  }
  const hit = memo.get(node);
  if (hit !== undefined) return hit ?? undefined;
  const r = resolveUncached(node, root);
  memo.set(node, r ?? null);
  return r;
}

function resolveUncached(node: SchemaNode | undefined, root: RootSchema): SchemaNode | undefined {
  let cur = node;
  for (let guard = 0; cur && guard < 16; guard++) {
    if (cur.$ref) {
      const [file, pointer] = cur.$ref.split('#');
      const base = file ? (file.includes('trinity') ? TRINITY : root) : root;
      const target = pointer
        .split('/')
        .filter(Boolean)
        .reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], base) as SchemaNode | undefined;
      if (!target) return undefined;
      // keep annotations written next to the $ref (description, default)
      const { $ref: _ref, ...rest } = cur;
      cur = { ...target, ...rest, properties: target.properties, 'x-class': target['x-class'] };
      if (file && file.includes('trinity')) root = TRINITY;
      continue;
    }
    if (cur['x-nullable'] && cur.anyOf) {
      const inner = cur.anyOf.find((s) => s.type !== 'null');
      const { anyOf: _a, 'x-nullable': _n, ...rest } = cur;
      cur = { ...inner, ...rest, 'x-nullable': true };
      continue;
    }
    return cur;
  }
  return cur;
}

const refersToTrinity = (n: SchemaNode): boolean => !!n.$ref?.includes('trinity-rft') || !!n.anyOf?.some((a) => a.$ref?.includes('trinity-rft'));

const atCache = new Map<string, SchemaNode | null>();
/** By path array too: rules pass the shared arrays of parsePath, so most lookups need no key. */
const atPath: Record<ConfigKind, WeakMap<readonly Segment[], SchemaNode | null>> = { trinity: new WeakMap(), astuner: new WeakMap(), ajet: new WeakMap() };

/** Schema at `path` below the kind's root; undefined where the schema says nothing. */
export function schemaAt(kind: ConfigKind, path: readonly Segment[]): SchemaNode | undefined {
  const byPath = atPath[kind];
  const known = byPath.get(path);
  if (known !== undefined) return known ?? undefined;
  // list indices do not change the schema
  const key = `${kind}|${path.map((p) => (typeof p === 'number' ? '[]' : p)).join('\u0000')}`;
  let hit = atCache.get(key);
  if (hit === undefined) {
    hit = schemaAtUncached(kind, path) ?? null;
    if (atCache.size > 50_000) atCache.clear();
    atCache.set(key, hit);
  }
  byPath.set(path, hit);
  return hit ?? undefined;
}

function schemaAtUncached(kind: ConfigKind, path: readonly Segment[]): SchemaNode | undefined {
  let base = SCHEMAS[kind];
  let cur = resolve(base, base);
  for (const seg of path) {
    if (!cur) return undefined;
    const next: SchemaNode | undefined =
      typeof seg === 'number' ? cur.items : (cur.properties?.[seg] ?? (typeof cur.additionalProperties === 'object' ? cur.additionalProperties : undefined));
    if (!next) return undefined;
    if (refersToTrinity(next)) base = TRINITY;
    cur = resolve(next, base);
  }
  return cur;
}

export function describe(node: SchemaNode | undefined, locale: string): string {
  if (!node) return '';
  return (locale.toLowerCase().startsWith('zh') && node['x-zh']) || node.description || '';
}

/** Human type name: `int`, `float | null`, `mapping`, `list`… */
export function typeName(node: SchemaNode | undefined): string {
  if (!node) return 'any';
  const py = node['x-py'];
  const nullable = node['x-nullable'] || node.anyOf?.some((a) => a.type === 'null') || (node.default === null && py !== undefined);
  let base: string;
  if (py === 'enum') base = (node['x-enum']?.values ?? []).map((v) => `'${v}'`).join(' | ');
  else if (py === 'any') base = 'any';
  else if (py) base = py;
  else if (node.type === 'array') base = `list[${typeName(resolve(node.items))}]`;
  else if (node.type === 'object' || node.properties) base = node['x-class'] ?? 'mapping';
  else base = 'any';
  return nullable && !base.includes('null') ? `${base} | null` : base;
}

/** Python-ish literal of a default for hovers and snippets. */
export function defaultText(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return 'null';
  if (typeof value === 'string') return value === '' ? "''" : value;
  return JSON.stringify(value);
}

/** All Trinity versions we know, oldest first, and the newest. */
export const TRINITY_VERSIONS: string[] = TRINITY['x-trinity-versions'] ?? [];
export const LATEST_TRINITY: string = TRINITY['x-trinity-version'] ?? '0.5.2';
