// The YAML node under an offset, from the parsed tree: which key path, and whether the
// offset is on the key or on the value.
import { deref, type Segment, type Span, type VNode } from '../../yaml/tree';

export interface NodeAt {
  path: Segment[];
  onKey: boolean;
  node: VNode;
  /** Absolute spans. */
  span: Span;
  keySpan?: Span;
}

const within = (o: number, s: Span) => o >= s.start && o <= s.end;

export function nodeAt(root: VNode | undefined, offset: number): NodeAt | undefined {
  if (!root) return undefined;
  let node: VNode = root;
  let shift = 0;
  const path: Segment[] = [];
  let best: NodeAt | undefined;
  for (let depth = 0; depth < 200; depth++) {
    const d = deref(node, shift);
    if (d.via) return best; // do not descend into aliased content
    node = d.node;
    shift = d.shift;
    let next: { node: VNode; shift: number; seg: Segment; keySpan?: Span } | undefined;
    if (node.kind === 'map') {
      for (const e of node.entries) {
        if (e.merged) continue;
        const ks = { start: e.keySpan.start + shift + e.shift, end: e.keySpan.end + shift + e.shift };
        if (within(offset, ks)) return { path: [...path, e.key], onKey: true, node: e.node, span: abs(e.node, shift + e.shift), keySpan: ks };
        const vs = abs(e.node, shift + e.shift);
        if (within(offset, vs)) {
          next = { node: e.node, shift: shift + e.shift, seg: e.key, keySpan: ks };
          break;
        }
      }
    } else if (node.kind === 'seq') {
      node.items.forEach((it, i) => {
        if (!next && within(offset, abs(it.node, shift + it.shift))) next = { node: it.node, shift: shift + it.shift, seg: i };
      });
    }
    if (!next) return best;
    path.push(next.seg);
    best = { path: [...path], onKey: false, node: next.node, span: abs(next.node, next.shift), keySpan: next.keySpan };
    if (next.node.kind === 'scalar' || next.node.kind === 'alias') return best;
    node = next.node;
    shift = next.shift;
  }
  return best;
}

const abs = (n: VNode, shift: number): Span => ({ start: n.span.start + shift, end: n.span.end + shift });
