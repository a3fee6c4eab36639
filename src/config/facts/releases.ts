// Trinity-RFT release lines as data: the 0.5 line is a full schema (trinity-0.5.schema.json,
// whose `x-since` / `x-removed-keys` carry 0.1–0.5 history), each later release a delta
// (new keys, enum values, docs, registry names). The schema every feature reads — and the
// published schemas/trinity-rft.schema.json (`npm run gen:schemas`, checked by a unit test) —
// is the 0.5 line with the deltas applied, every addition marked with the release it needs.
// Adding 0.7 means a module like trinity-0.6.ts with 0.7's differences (a ReleaseDelta,
// release-delta.ts), listed below.
import type { RootSchema, SchemaNode } from './schema-node';
import base from './trinity-0.5.schema.json';
import { acceptsNull } from './field-at';
import { enumAnyOf, type Doc } from './nodes';
import type { FieldChange, ReleaseDelta } from './release-delta';
import { TRINITY_0_6 } from './trinity-0.6';

/** Every release after the 0.5 line, oldest first. */
export const TRINITY_DELTAS: readonly ReleaseDelta[] = [TRINITY_0_6];

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** The newest schema: the 0.5 line with each delta applied. */
export function buildTrinitySchema(): RootSchema {
  const s = clone(base) as unknown as RootSchema;
  const defs = s.definitions ?? {};
  for (const d of TRINITY_DELTAS) {
    const previous = s['x-trinity-versions']?.[s['x-trinity-versions'].length - 1];
    for (const [cls, def] of Object.entries(d.classes ?? {})) {
      if (defs[cls]) throw new Error(`release ${d.version}: class ${cls} exists`);
      defs[cls] = clone(def);
    }
    for (const [cls, keys] of Object.entries(d.keys)) {
      const props = defs[cls]?.properties;
      if (!props) throw new Error(`release ${d.version}: no class ${cls}`);
      for (const [k, node] of Object.entries(keys)) props[k] = { ...clone(node), 'x-since': d.version };
    }
    for (const v of d.values) {
      const node = defs[v.cls]?.properties?.[v.key];
      if (!node) throw new Error(`release ${d.version}: no field ${v.cls}.${v.key}`);
      const since = { ...(node['x-value-since'] ?? {}) };
      for (const value of v.add) since[value] = d.version;
      node['x-value-since'] = since;
      if (node['x-enum']) {
        node['x-enum'].values.push(...v.add);
        const nullable = node.anyOf?.some((a) => a.type === 'null');
        node.anyOf = [...enumAnyOf(node['x-enum'].values, node['x-enum'].aliases), ...(nullable ? [{ type: 'null' }] : [])] as SchemaNode[];
      } else if (node['x-choices']) {
        node['x-choices'].push(...v.add);
        const first = node.anyOf?.[0];
        if (first?.enum) first.enum = [...node['x-choices']];
      } else throw new Error(`release ${d.version}: ${v.cls}.${v.key} has no values to extend`);
      if (v.doc) Object.assign(node, { description: v.doc.en, 'x-zh': v.doc.zh });
    }
    for (const c of d.changes) {
      const node = defs[c.cls]?.properties?.[c.key];
      if (!node) throw new Error(`release ${d.version}: no field ${c.cls}.${c.key}`);
      applyChange(node, c, previous);
    }
    s['x-trinity-versions'] = [...(s['x-trinity-versions'] ?? []), d.version];
    s['x-trinity-version'] = d.version;
  }
  return s;
}

/** Applies one field change; what the field was up to `previous` is kept in `x-until`. */
function applyChange(node: SchemaNode, c: FieldChange, previous: string | undefined): void {
  const was: { default?: unknown; nullable?: boolean; ref?: string } = {};
  if (c.free) {
    if (!node.$ref) throw new Error(`${c.cls}.${c.key}: only a nested dataclass becomes a free mapping`);
    was.ref = node.$ref;
    const { $ref: _ref, ...rest } = node;
    for (const k of Object.keys(node)) delete node[k];
    Object.assign(node, rest, { type: 'object', additionalProperties: true, 'x-free': true, default: {} });
  }
  if (c.default !== undefined && JSON.stringify(c.default) !== JSON.stringify(node.default)) {
    was.default = node.default;
    node.default = c.default;
  }
  if (c.nullable !== undefined && c.nullable !== acceptsNull(node)) {
    was.nullable = acceptsNull(node);
    // the schema accepts null whenever some release does; x-null says what this one does
    if (c.nullable && node.anyOf) node.anyOf = [...node.anyOf, { type: 'null' }];
    else if (c.nullable) throw new Error(`${c.cls}.${c.key}: cannot make a field without anyOf nullable`);
    node['x-null'] = c.nullable;
  }
  if (Object.keys(was).length) {
    if (!previous) throw new Error(`${c.cls}.${c.key}: a change needs an older release`);
    node['x-until'] = { ...(node['x-until'] ?? {}), [previous]: was };
  }
  if (c.defaultBy) node['x-default-by'] = { ...c.defaultBy };
  if (c.onlyIn) node['x-only-in'] = [...c.onlyIn];
  if (c.doc) Object.assign(node, { description: c.doc.en, 'x-zh': c.doc.zh });
  if (c.extra) Object.assign(node, clone(c.extra));
}

/** The release that introduced `value` of an enum / choice field (undefined: always there). */
export function valueSince(node: SchemaNode | undefined, value: string): string | undefined {
  const since = node?.['x-value-since'];
  if (!since) return undefined;
  const key = Object.keys(since).find((k) => k.toLowerCase() === value.toLowerCase());
  return key ? since[key] : undefined;
}

/** Environment variables Trinity reads, per release. */
export function trinityEnv(): { name: string; since: string; doc: Doc }[] {
  return TRINITY_DELTAS.flatMap((d) => Object.entries(d.env ?? {}).map(([name, doc]) => ({ name, since: d.version, doc })));
}
