// yaml Document (the `yaml` package's AST) → our VNode tree. Scalars are re-resolved the
// PyYAML/OmegaConf way, `<<:` merge keys are applied (PyYAML supports them), aliases share
// the anchored node (no copy), and the fully expanded size is bounded so an alias bomb
// ("billion laughs") is reported instead of being walked.
import { isAlias, isMap, isPair, isScalar, isSeq, Scalar, type Document, type Node as YNode } from 'yaml';
import { resolvePlain, resolveTagged } from './scalars';
import { addEntry, addItem, makeMap, makeSeq, valueOf, type Span, type VMap, type VNode } from './tree';
import { valueText } from '../../base/value-text';

export interface ConvertProblem {
  code: 'yaml.recursive-alias' | 'yaml.unknown-alias' | 'yaml.duplicate-key' | 'yaml.bad-merge' | 'yaml.complex-key';
  span: Span;
  message: string;
}

export interface Converted {
  root: VNode | undefined;
  problems: ConvertProblem[];
  /** Number of nodes a full expansion of the aliases would visit. */
  expandedSize: number;
}

const span = (n: { range?: [number, number, number] | null } | null | undefined, fallback: Span): Span =>
  n?.range ? { start: n.range[0], end: n.range[1] } : fallback;

/** Converts one parsed document; `offset` is added to every span (0 for whole-text parses). */
export function convertDocument(doc: Document.Parsed, offset = 0): Converted {
  const problems: ConvertProblem[] = [];
  const done = new Map<YNode, VNode>();
  const sizes = new WeakMap<VNode, number>();
  const inProgress = new Set<YNode>();
  const docSpan: Span = { start: (doc.range?.[0] ?? 0) + offset, end: (doc.range?.[1] ?? 0) + offset };
  const S = (n: YNode | null | undefined): Span => {
    const s = span(n, docSpan);
    return { start: s.start + (n?.range ? offset : 0), end: s.end + (n?.range ? offset : 0) };
  };
  const sizeOf = (n: VNode | undefined): number => (n ? (sizes.get(n) ?? 1) : 0);

  function convert(n: YNode | null | undefined, at: Span): VNode {
    if (n == null) {
      const v: VNode = { kind: 'scalar', span: at, py: 'null', value: null, src: '', quoted: false };
      sizes.set(v, 1);
      return v;
    }
    if (isAlias(n)) {
      const target = n.resolve(doc);
      const s = S(n);
      if (!target) {
        problems.push({ code: 'yaml.unknown-alias', span: s, message: `Unknown anchor '${n.source}'` });
        const v: VNode = { kind: 'alias', span: s, name: n.source, target: undefined, targetShift: 0 };
        sizes.set(v, 1);
        return v;
      }
      if (inProgress.has(target)) {
        problems.push({ code: 'yaml.recursive-alias', span: s, message: `Alias '*${n.source}' refers to a node that contains it` });
        const v: VNode = { kind: 'alias', span: s, name: n.source, target: undefined, targetShift: 0 };
        sizes.set(v, 1);
        return v;
      }
      const t = done.get(target) ?? convert(target, S(target));
      const v: VNode = { kind: 'alias', span: s, name: n.source, target: t, targetShift: 0 };
      sizes.set(v, sizeOf(t));
      return v;
    }
    const existing = done.get(n);
    if (existing) return existing;
    inProgress.add(n);
    let out: VNode;
    if (isScalar(n)) {
      out = scalarNode(n, S(n));
      sizes.set(out, 1);
    } else if (isMap(n)) {
      const m = makeMap(S(n));
      let size = 1;
      const merges: { value: YNode | null | undefined; keySpan: Span }[] = [];
      for (const pair of n.items) {
        if (!isPair(pair)) continue;
        const k = pair.key as YNode | null;
        const keySpan = k ? S(k) : { start: S(pair.value as YNode).start, end: S(pair.value as YNode).start };
        let key: string;
        if (k == null) key = '';
        else if (isScalar(k)) key = valueText(k.source ?? k.value ?? '');
        else {
          key = JSON.stringify(valueOf(convert(k, keySpan)));
          problems.push({ code: 'yaml.complex-key', span: keySpan, message: 'A mapping key must be a plain scalar here' });
        }
        if (key === '<<' && k && isScalar(k) && k.type === 'PLAIN') {
          merges.push({ value: pair.value as YNode, keySpan });
          continue;
        }
        const valueSpan: Span = pair.value ? S(pair.value as YNode) : { start: keySpan.end, end: keySpan.end };
        const child = convert(pair.value as YNode, valueSpan);
        size += sizeOf(child);
        if (!addEntry(m, { key, keySpan, node: child, shift: 0 })) {
          problems.push({ code: 'yaml.duplicate-key', span: keySpan, message: `Map keys must be unique: '${key}' appears twice` });
        }
      }
      for (const mg of merges) size += applyMerge(m, mg.value, mg.keySpan);
      out = m;
      sizes.set(out, size);
    } else if (isSeq(n)) {
      const s = makeSeq(S(n));
      let size = 1;
      for (const item of n.items) {
        const child = convert(item as YNode, item ? S(item as YNode) : S(n));
        size += sizeOf(child);
        addItem(s, { node: child, shift: 0 });
      }
      out = s;
      sizes.set(out, size);
    } else {
      out = { kind: 'scalar', span: S(n), py: 'null', value: null, src: '', quoted: false };
      sizes.set(out, 1);
    }
    inProgress.delete(n);
    done.set(n, out);
    return out;
  }

  /** `<<: *base` / `<<: [*a, *b]`: copies entries not set explicitly. Returns the added size. */
  function applyMerge(target: VMap, value: YNode | null | undefined, keySpan: Span): number {
    const sources: YNode[] = isSeq(value) ? (value.items as YNode[]) : value ? [value] : [];
    let added = 0;
    for (const src of sources) {
      const node = convert(src, S(src));
      let resolved: VNode | undefined = node;
      for (let g = 0; resolved && resolved.kind === 'alias' && g < 64; g++) resolved = resolved.target;
      if (!resolved || resolved.kind !== 'map') {
        problems.push({ code: 'yaml.bad-merge', span: S(src) ?? keySpan, message: 'A `<<` merge needs a mapping (or a list of mappings)' });
        continue;
      }
      for (const e of resolved.entries) {
        // merged entries point at the merge site for positions
        const viaAlias: VNode = { kind: 'alias', span: S(src), name: node.kind === 'alias' ? node.name : '<<', target: e.node, targetShift: e.shift };
        sizes.set(viaAlias, sizeOf(e.node));
        if (addEntry(target, { key: e.key, keySpan: S(src), node: viaAlias, shift: 0, merged: true })) added += sizeOf(e.node);
      }
    }
    return added;
  }

  const root = doc.contents == null ? undefined : convert(doc.contents, docSpan);
  return { root, problems, expandedSize: root ? sizeOf(root) : 0 };
}

function scalarNode(n: Scalar, s: Span): VNode {
  const quoted = n.type === 'QUOTE_DOUBLE' || n.type === 'QUOTE_SINGLE';
  const block = n.type === 'BLOCK_LITERAL' || n.type === 'BLOCK_FOLDED';
  const text = typeof n.source === 'string' ? n.source : n.value == null ? '' : valueText(n.value);
  const explicitTag = n.tag; // the yaml package sets `tag` only for explicit tags
  if (quoted || block) {
    const value = typeof n.source === 'string' ? n.source : typeof n.value === 'string' ? n.value : text;
    if (explicitTag) {
      const r = resolveTagged(explicitTag, value);
      return { kind: 'scalar', span: s, py: r.py, value: r.value, src: value, quoted: true };
    }
    return { kind: 'scalar', span: s, py: 'str', value, src: value, quoted: true };
  }
  const r = explicitTag ? resolveTagged(explicitTag, text) : resolvePlain(text);
  return { kind: 'scalar', span: s, py: r.py, value: r.value, src: text, quoted: false };
}
