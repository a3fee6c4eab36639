// Our view of a parsed YAML document: every node keeps its source span, every scalar its
// Python type, and every container its plain JS value (what JSON-schema validation sees).
// Spans are relative to the chunk a node was parsed in; a parent's reference to a child
// carries `shift`, the offset to add, so cached chunks can be reused wherever they move to.
import type { PyType, ScalarValue } from './scalars';

export interface Span {
  start: number;
  end: number;
}

export interface VScalar {
  kind: 'scalar';
  span: Span;
  py: PyType;
  value: ScalarValue;
  /** Source text of the scalar as written (without quotes for quoted scalars). */
  src: string;
  quoted: boolean;
}

export interface VEntry {
  key: string;
  keySpan: Span;
  node: VNode;
  /** Offset added to keySpan and everything under node. */
  shift: number;
  /** Brought in by a `<<:` merge key. */
  merged?: boolean;
}

export interface VMap {
  kind: 'map';
  span: Span;
  entries: VEntry[];
  index: Map<string, VEntry>;
  value: Record<string, unknown>;
}

export interface VItem {
  node: VNode;
  shift: number;
}

export interface VSeq {
  kind: 'seq';
  span: Span;
  items: VItem[];
  value: unknown[];
}

export interface VAlias {
  kind: 'alias';
  span: Span;
  name: string;
  /** The anchored node, or undefined for an unknown anchor. */
  target: VNode | undefined;
  /** Shift of the target relative to the alias's frame. */
  targetShift: number;
}

export type VNode = VScalar | VMap | VSeq | VAlias;

export function valueOf(node: VNode | undefined): unknown {
  if (!node) return undefined;
  if (node.kind === 'alias') return node.target ? valueOf(node.target) : null;
  return node.value;
}

/** Follows aliases; returns the final node and the shift to apply to it. */
export function deref(node: VNode, shift: number): { node: VNode; shift: number; via?: Span } {
  let via: Span | undefined;
  let cur = node;
  let s = shift;
  for (let guard = 0; cur.kind === 'alias' && guard < 64; guard++) {
    via ??= { start: cur.span.start + s, end: cur.span.end + s };
    if (!cur.target) break;
    s += cur.targetShift;
    cur = cur.target;
  }
  return { node: cur, shift: s, via };
}

/** A path segment: a mapping key or a sequence index. */
export type Segment = string | number;

export interface Located {
  node: VNode;
  /** Absolute span of the value (the alias use site when reached through an alias). */
  span: Span;
  /** Absolute span of the key, when the last segment is a mapping key. */
  keySpan?: Span;
  /** Set when the path went through an alias: the span of the first alias crossed. */
  viaAlias?: Span;
  /** Absolute shift of node's frame. */
  shift: number;
}

const abs = (s: Span, shift: number): Span => ({ start: s.start + shift, end: s.end + shift });

/** Walks `path` from `root`; undefined when a segment is missing. */
export function locate(root: VNode | undefined, path: readonly Segment[], rootShift = 0): Located | undefined {
  if (!root) return undefined;
  let node: VNode = root;
  let shift = rootShift;
  let keySpan: Span | undefined;
  let viaAlias: Span | undefined;
  let span = abs(root.span, shift);
  for (const seg of path) {
    const d = deref(node, shift);
    if (d.via && !viaAlias) viaAlias = d.via;
    node = d.node;
    shift = d.shift;
    if (node.kind === 'map' && typeof seg === 'string') {
      const e = node.index.get(seg);
      if (!e) return undefined;
      keySpan = viaAlias ?? abs(e.keySpan, shift + e.shift);
      shift += e.shift;
      node = e.node;
      span = viaAlias ?? abs(node.span, shift);
    } else if (node.kind === 'seq' && typeof seg === 'number') {
      const it = node.items[seg];
      if (!it) return undefined;
      keySpan = undefined;
      shift += it.shift;
      node = it.node;
      span = viaAlias ?? abs(node.span, shift);
    } else {
      return undefined;
    }
  }
  return { node, span, keySpan, viaAlias, shift };
}

/** The deepest existing prefix of `path`, for reporting a missing key at its parent. */
export function locateDeepest(root: VNode | undefined, path: readonly Segment[]): { located: Located; depth: number } | undefined {
  for (let n = path.length; n >= 0; n--) {
    const l = locate(root, path.slice(0, n));
    if (l) return { located: l, depth: n };
  }
  return undefined;
}

/** `buffer.explorer_input.eval_tasksets[0].path` */
export function formatPath(path: readonly Segment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${seg}` : seg;
  }
  return out;
}

const parsedPaths = new Map<string, readonly Segment[]>();

/** Parses `a.b[0].c` back into segments (memoised and shared: do not mutate the result). */
export function parsePath(path: string): readonly Segment[] {
  const hit = parsedPaths.get(path);
  if (hit) return hit;
  const out: Segment[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(m[1]);
  }
  if (parsedPaths.size > 20_000) parsedPaths.clear();
  parsedPaths.set(path, out);
  return out;
}

/** JSON pointer (ajv instancePath) → segments, using the tree to tell indices from keys. */
export function pointerToPath(pointer: string): Segment[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}

/** Containers (their JS values) carry their node under this non-enumerable symbol, for the
 *  Python-type lookups during validation (ajv and JSON never see symbols). */
const NODE: unique symbol = Symbol('agentrl.node');

function tag(value: object, node: VMap | VSeq): void {
  Object.defineProperty(value, NODE, { value: node, enumerable: false });
}

export function childNode(container: object, key: string | number): VNode | undefined {
  const n = (container as { [NODE]?: VMap | VSeq })[NODE];
  if (!n) return undefined;
  if (n.kind === 'map') return n.index.get(String(key))?.node;
  return typeof key === 'number' ? n.items[key]?.node : undefined;
}

export function makeMap(span: Span): VMap {
  const m: VMap = { kind: 'map', span, entries: [], index: new Map(), value: {} };
  tag(m.value, m);
  return m;
}

export function makeSeq(span: Span): VSeq {
  const s: VSeq = { kind: 'seq', span, items: [], value: [] };
  tag(s.value, s);
  return s;
}

/** Adds an entry (JS value included); returns false on a duplicate key. */
export function addEntry(map: VMap, e: VEntry): boolean {
  if (map.index.has(e.key)) {
    const prev = map.index.get(e.key)!;
    if (prev.merged && !e.merged) {
      // an explicit key overrides one brought in by `<<:`
      map.entries[map.entries.indexOf(prev)] = e;
      map.index.set(e.key, e);
      map.value[e.key] = valueOf(e.node);
      return true;
    }
    if (e.merged) return true; // explicit keys win over merged ones
    return false;
  }
  map.entries.push(e);
  map.index.set(e.key, e);
  if (e.key === '__proto__') Object.defineProperty(map.value, e.key, { value: valueOf(e.node), enumerable: true, writable: true, configurable: true });
  else map.value[e.key] = valueOf(e.node);
  return true;
}

export function addItem(seq: VSeq, it: VItem): void {
  seq.items.push(it);
  seq.value.push(valueOf(it.node));
}

/** Depth-first visit of every node with its absolute shift and path (aliases not entered). */
export function walk(root: VNode | undefined, visit: (node: VNode, path: Segment[], shift: number, entry?: VEntry) => void | false, rootShift = 0): void {
  if (!root) return;
  const stack: { node: VNode; path: Segment[]; shift: number; entry?: VEntry }[] = [{ node: root, path: [], shift: rootShift }];
  while (stack.length) {
    const { node, path, shift, entry } = stack.pop()!;
    if (visit(node, path, shift, entry) === false) continue;
    if (node.kind === 'map') {
      for (let i = node.entries.length - 1; i >= 0; i--) {
        const e = node.entries[i];
        if (e.merged) continue;
        stack.push({ node: e.node, path: [...path, e.key], shift: shift + e.shift, entry: e });
      }
    } else if (node.kind === 'seq') {
      for (let i = node.items.length - 1; i >= 0; i--) {
        const it = node.items[i];
        stack.push({ node: it.node, path: [...path, i], shift: shift + it.shift });
      }
    }
  }
}

const interpMemo = new WeakMap<VNode, boolean>();

/** Whether a subtree holds a string with `${` (memoised per node: cached chunks keep it). */
export function hasInterpolation(node: VNode): boolean {
  const hit = interpMemo.get(node);
  if (hit !== undefined) return hit;
  let r = false;
  if (node.kind === 'scalar') r = node.py === 'str' && typeof node.value === 'string' && node.value.includes('${');
  else if (node.kind === 'map') r = node.entries.some((e) => !e.merged && hasInterpolation(e.node));
  else if (node.kind === 'seq') r = node.items.some((it) => hasInterpolation(it.node));
  interpMemo.set(node, r);
  return r;
}
