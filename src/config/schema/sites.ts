// Walks a document together with its schema and collects the keys whose schema says
// something beyond type: registry names, paths, class references, deprecated / do-not-set /
// dead keys and the release a key appeared in. Rules, document links and go-to-definition
// all work from this list. Results are memoised per subtree (relative to it), so the cached
// chunks of a large document are not walked again on every keystroke.
import type { ConfigKind } from '../../feature-api/config-checker';
import { resolve, SCHEMAS, TRINITY, type RootSchema, type SchemaNode } from './schemas';
import { deref, formatPath, type Segment, type Span, type VNode } from '../yaml/tree';

export interface Site {
  path: Segment[];
  /** The formatted path (computed on first use: large documents have thousands of sites). */
  readonly where: string;
  schema: SchemaNode;
  node: VNode;
  span: Span;
  keySpan?: Span;
  /** Raw scalar text (unresolved), when the value is a scalar. */
  text?: string;
}

class SiteImpl implements Site {
  private w?: string;
  constructor(
    readonly path: Segment[],
    readonly schema: SchemaNode,
    readonly node: VNode,
    readonly span: Span,
    readonly keySpan: Span | undefined,
    readonly text: string | undefined,
  ) {}
  get where(): string {
    return (this.w ??= formatPath(this.path));
  }
}

/** A site relative to the subtree it was found in (spans in that subtree's frame). */
interface RelSite {
  path: Segment[];
  schema: SchemaNode;
  node: VNode;
  span: Span;
  keySpan?: Span;
  text?: string;
}

const INTERESTING = [
  'x-registry',
  'x-path',
  'x-ref',
  'x-doNotSet',
  'x-deprecated',
  'x-dead',
  'x-since',
  'x-value-since',
  'x-strictChoices',
  'x-only-in',
  'x-until',
  'x-null',
] as const;
const interesting = (s: SchemaNode) => INTERESTING.some((k) => s[k] !== undefined);
const refersToTrinity = (n: SchemaNode): boolean => !!n.$ref?.includes('trinity-rft') || !!n.anyOf?.some((a) => a.$ref?.includes('trinity-rft'));

const memo = new WeakMap<VNode, Map<SchemaNode, RelSite[]>>();
/** A child's sites prefixed with its key/index and shift: reused while both stay the same
 *  (a value edit elsewhere in a large document moves nothing). */
const prefixed = new WeakMap<VNode, { seg: Segment; shift: number; from: RelSite[]; sites: RelSite[] }>();

function prefix(child: VNode, seg: Segment, shift: number, from: RelSite[]): RelSite[] {
  const hit = prefixed.get(child);
  if (hit && hit.seg === seg && hit.shift === shift && hit.from === from) return hit.sites;
  const sites = from.map((r) => shifted(r, seg, shift));
  prefixed.set(child, { seg, shift, from, sites });
  return sites;
}

function relSites(node: VNode, schema: SchemaNode, base: RootSchema, depth: number): RelSite[] {
  let bySchema = memo.get(node);
  const hit = bySchema?.get(schema);
  if (hit) return hit;
  const out: RelSite[] = [];
  if (depth <= 64 && node.kind !== 'alias' && !(node.kind === 'map' && schema['x-free'])) {
    if (node.kind === 'map') {
      for (const e of node.entries) {
        if (e.merged) continue;
        const raw = schema.properties?.[e.key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
        if (!raw) continue;
        const nb = refersToTrinity(raw) ? TRINITY : base;
        const child = resolve(raw, nb);
        if (!child) continue;
        // aliased content is reported where the anchor is
        if (e.node.kind === 'alias') continue;
        if (interesting(child)) {
          out.push({
            path: [e.key],
            schema: child,
            node: e.node,
            span: { start: e.node.span.start + e.shift, end: e.node.span.end + e.shift },
            keySpan: { start: e.keySpan.start + e.shift, end: e.keySpan.end + e.shift },
            text: e.node.kind === 'scalar' ? String(e.node.value ?? '') : undefined,
          });
        }
        for (const r of prefix(e.node, e.key, e.shift, relSites(e.node, child, nb, depth + 1))) out.push(r);
      }
    } else if (node.kind === 'seq') {
      const item = resolve(schema.items, base);
      if (item) {
        node.items.forEach((it, i) => {
          if (it.node.kind === 'alias') return;
          if (interesting(item)) {
            out.push({
              path: [i],
              schema: item,
              node: it.node,
              span: { start: it.node.span.start + it.shift, end: it.node.span.end + it.shift },
              text: it.node.kind === 'scalar' ? String(it.node.value ?? '') : undefined,
            });
          }
          for (const r of prefix(it.node, i, it.shift, relSites(it.node, item, base, depth + 1))) out.push(r);
        });
      }
    }
  }
  if (!bySchema) {
    bySchema = new Map();
    memo.set(node, bySchema);
  }
  bySchema.set(schema, out);
  return out;
}

function shifted(r: RelSite, seg: Segment, shift: number): RelSite {
  return {
    path: [seg, ...r.path],
    schema: r.schema,
    node: r.node,
    span: { start: r.span.start + shift, end: r.span.end + shift },
    keySpan: r.keySpan && { start: r.keySpan.start + shift, end: r.keySpan.end + shift },
    text: r.text,
  };
}

export function collectSites(kind: ConfigKind, root: VNode | undefined): Site[] {
  if (!root) return [];
  const d = deref(root, 0);
  if (d.via) return [];
  const top = SCHEMAS[kind];
  const schema = resolve(top, top);
  if (!schema) return [];
  return relSites(d.node, schema, top, 0).map((r) => new SiteImpl(r.path, r.schema, r.node, r.span, r.keySpan, r.text));
}
