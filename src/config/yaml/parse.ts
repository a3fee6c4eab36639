// Text → documents (VNode trees) + syntax problems, with absolute spans.
//
// Small or unusual documents are parsed whole with the `yaml` package. Large ordinary
// documents (a block mapping at the root, no anchors, tags or document markers) are split
// along indentation into independent chunks — top-level entries, and inside big entries
// their children — each parsed by the `yaml` package on its own and cached by its text.
// An edit then re-parses only the chunk it touched: on a 10 000-line config that is the
// difference between ~100 ms and ~1 ms per keystroke. Anything the splitter is unsure about
// falls back to the whole-document parse, so results never depend on the path taken.
import { parseAllDocuments, parseDocument, type Document } from 'yaml';
import { convertDocument, type ConvertProblem } from './convert';
import { LIMITS, preflight, type LimitProblem } from './limits';
import { addEntry, addItem, makeMap, makeSeq, type Span, type VMap, type VNode, type VSeq } from './tree';

export interface SyntaxProblem {
  code: string;
  span: Span;
  message: string;
  severity: 'error' | 'warning';
}

export interface ParsedDoc {
  root: VNode | undefined;
  span: Span;
  /** Span of the `---` that starts this document, if any. */
  marker?: Span;
  expandedSize: number;
}

export interface ParseResult {
  docs: ParsedDoc[];
  problems: SyntaxProblem[];
  limit?: LimitProblem;
  /** 'whole' or 'chunks' (for tests and benches). */
  path: 'whole' | 'chunks' | 'refused';
}

const YAML_OPTIONS = { prettyErrors: false, uniqueKeys: false, strict: true, version: '1.2', keepSourceTokens: false } as const;

interface ChunkResult {
  root: VNode | undefined;
  problems: SyntaxProblem[];
  size: number;
}

/** A composed branch (a big entry's children), spans relative to the branch's first line. */
interface BranchResult {
  node: VMap | VSeq;
  problems: SyntaxProblem[];
  size: number;
}

/** Branches longer than this are composed on every parse instead of being cached. */
const BRANCH_CACHE_MAX_CHARS = 64 * 1024;
/** Bound on the characters of branch text the cache keeps (keys are the branch texts). */
const BRANCH_CACHE_CHARS = 1024 * 1024;

/** Text-keyed entries, least recently used dropped first beyond a count or character budget. */
class Lru<V> {
  private map = new Map<string, V>();
  private chars = 0;
  constructor(
    private readonly maxEntries: number,
    private readonly maxChars = Infinity,
  ) {}
  get(key: string): V | undefined {
    const hit = this.map.get(key);
    if (hit !== undefined) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }
  set(key: string, v: V): void {
    if (this.map.has(key)) return;
    this.map.set(key, v);
    this.chars += key.length;
    for (const k of this.map.keys()) {
      if (this.map.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.map.delete(k);
      this.chars -= k.length;
    }
  }
  get size(): number {
    return this.map.size;
  }
}

/** Per-document cache of parsed chunks (keyed by chunk text), and of composed branches
 *  (keyed by branch text): an edit then rebuilds only the branches on its path, and the
 *  untouched subtrees keep their identity, which the per-node memos downstream (sites,
 *  interpolations, schema validation) rely on. */
export class ParseCache {
  private chunks: Lru<ChunkResult>;
  private branches: Lru<BranchResult>;
  constructor(capacity = 4096) {
    this.chunks = new Lru(capacity);
    this.branches = new Lru(capacity, BRANCH_CACHE_CHARS);
  }
  get(text: string): ChunkResult | undefined {
    return this.chunks.get(text);
  }
  set(text: string, r: ChunkResult): void {
    this.chunks.set(text, r);
  }
  getBranch(text: string): BranchResult | undefined {
    return this.branches.get(text);
  }
  setBranch(text: string, r: BranchResult): void {
    this.branches.set(text, r);
  }
  /** Chunks held (for tests). */
  get size(): number {
    return this.chunks.size;
  }
}

function yamlProblems(doc: Document.Parsed, offset: number, length: number): SyntaxProblem[] {
  const out: SyntaxProblem[] = [];
  // an error at the very end has no character to mark: mark the last one
  const span = (pos: [number, number]) => {
    const start = Math.max(0, Math.min(pos[0], length - 1));
    const end = Math.max(start + (length ? 1 : 0), Math.min(pos[1], length));
    return { start: start + offset, end: end + offset };
  };
  for (const e of doc.errors) out.push({ code: codeOf(e.code), span: span(e.pos), message: cleanMessage(e.message), severity: 'error' });
  for (const w of doc.warnings) out.push({ code: codeOf(w.code), span: span(w.pos), message: cleanMessage(w.message), severity: 'warning' });
  return out;
}

const codeOf = (c: string) => (c === 'DUPLICATE_KEY' ? 'yaml.duplicate-key' : 'yaml.syntax');
const cleanMessage = (m: string) => m.replace(/ at line \d+, column \d+:?[\s\S]*$/, '').trim();

const fromConvert = (p: ConvertProblem): SyntaxProblem => ({ code: p.code, span: p.span, message: p.message, severity: 'error' });

/** Parses the whole text with the `yaml` package (every document). */
export function parseWhole(text: string): ParseResult {
  const docs: ParsedDoc[] = [];
  const problems: SyntaxProblem[] = [];
  let parsed: Document.Parsed[];
  try {
    parsed = parseAllDocuments(text, YAML_OPTIONS);
    if (!Array.isArray(parsed)) parsed = [parsed];
  } catch (err) {
    problems.push({
      code: 'yaml.syntax',
      span: { start: 0, end: Math.min(1, text.length) },
      message: String((err as Error).message ?? err),
      severity: 'error',
    });
    return { docs: [{ root: undefined, span: { start: 0, end: text.length }, expandedSize: 0 }], problems, path: 'whole' };
  }
  for (const doc of parsed) {
    problems.push(...yamlProblems(doc, 0, text.length));
    const c = convertDocument(doc, 0);
    problems.push(...c.problems.map(fromConvert));
    const start = doc.range?.[0] ?? 0;
    const markerAt = text.startsWith('---', start) ? { start, end: start + 3 } : findMarker(text, start);
    docs.push({ root: c.root, span: { start, end: doc.range?.[2] ?? text.length }, marker: markerAt, expandedSize: c.expandedSize });
  }
  if (docs.length === 0) docs.push({ root: undefined, span: { start: 0, end: text.length }, expandedSize: 0 });
  return { docs, problems, path: 'whole' };
}

function findMarker(text: string, from: number): Span | undefined {
  // the document range starts after leading comments; look for a `---` line just before
  const before = text.lastIndexOf('\n---', from);
  if (
    before >= 0 &&
    !text
      .slice(before + 4, from)
      .trim()
      .replace(/#.*$/gm, '')
      .trim()
  )
    return { start: before + 1, end: before + 4 };
  return undefined;
}

// ---------------------------------------------------------------- chunked fast path

/** Documents shorter than this are always parsed whole. */
export const CHUNK_MIN_LINES = 40;
const LEAF_LINES = 24;
const BRANCH_LINES = 16;

interface Line {
  start: number;
  /** End of content (before the newline). */
  end: number;
  /** Start of the next line. */
  next: number;
  indent: number;
  kind: 'blank' | 'comment' | 'content';
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    let j = text.indexOf('\n', i);
    if (j < 0) j = n;
    let k = i;
    while (k < j && text.charCodeAt(k) === 32) k++;
    const c = k < j ? text.charCodeAt(k) : -1;
    const end = j > i && text.charCodeAt(j - 1) === 13 ? j - 1 : j;
    lines.push({ start: i, end, next: j + 1, indent: k - i, kind: c < 0 || k >= end ? 'blank' : c === 35 ? 'comment' : 'content' });
    i = j + 1;
  }
  return lines;
}

/** Constructs the splitter does not handle (then the whole text is parsed): document markers,
 *  directives, tabs in indentation, explicit keys, anchors, aliases and tags. */
function unsafe(text: string, lines: Line[]): boolean {
  for (const l of lines) {
    const c = text.charCodeAt(l.start);
    if (l.indent === 0 && (text.startsWith('---', l.start) || text.startsWith('...', l.start) || c === 37) /* % */) return true;
    const first = text.charCodeAt(l.start + l.indent);
    if (first === 9 /* tab */ || (first === 63 /* ? */ && text.charCodeAt(l.start + l.indent + 1) === 32)) return true;
  }
  for (const ch of ['&', '*', '!']) {
    for (let i = text.indexOf(ch); i >= 0; i = text.indexOf(ch, i + 1)) {
      const prev = i > 0 ? text.charCodeAt(i - 1) : 10;
      const next = text.charCodeAt(i + 1);
      const tokenStart = prev === 32 || prev === 10 || prev === 9 || prev === 91 || prev === 123 || prev === 44;
      const tokenBody = i + 1 < text.length && next !== 32 && next !== 10 && next !== 13 && next !== 44 && next !== 93 && next !== 125;
      if (tokenStart && tokenBody) return true;
    }
  }
  return false;
}

/** Where a mapping key ends on this line (index of its `:`), or -1. */
function keyColon(text: string, from: number, to: number): number {
  const c0 = text.charCodeAt(from);
  let i = from;
  if (c0 === 34 || c0 === 39) {
    const close = text.indexOf(String.fromCharCode(c0), from + 1);
    if (close < 0 || close >= to) return -1;
    i = close + 1;
  }
  for (; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 35 && i > from && text.charCodeAt(i - 1) === 32) return -1; // comment before any ':'
    if (c === 58 && (i + 1 >= to || text.charCodeAt(i + 1) === 32)) return i;
    if (c === 91 || c === 123 || c === 34 || c === 39) {
      if (i === from) return -1;
    }
  }
  return -1;
}

const isSeqLine = (text: string, l: Line) =>
  text.charCodeAt(l.start + l.indent) === 45 && (l.start + l.indent + 1 >= l.end || text.charCodeAt(l.start + l.indent + 1) === 32);

type Block =
  { kind: 'leaf'; from: number; to: number } | { kind: 'branch'; from: number; to: number; key: string; keySpan: Span; head: number; indent: number };

interface Group {
  /** 'map' or 'seq' entries at one indentation. */
  type: 'map' | 'seq';
  blocks: Block[];
}

class Unsplittable extends Error {}

/** Groups lines [from, to) whose content starts at `indent` into entries. */
function group(text: string, lines: Line[], from: number, to: number, indent: number): Group {
  let first = from;
  while (first < to && lines[first].kind !== 'content') first++;
  if (first >= to) throw new Unsplittable();
  if (lines[first].indent !== indent) throw new Unsplittable();
  const type: 'map' | 'seq' = isSeqLine(text, lines[first]) ? 'seq' : 'map';
  const entries: [number, number][] = [];
  let cur = from;
  for (let i = first + 1; i < to; i++) {
    const l = lines[i];
    if (l.kind !== 'content') continue;
    if (l.indent < indent) throw new Unsplittable();
    if (l.indent > indent) continue;
    // same indentation: a new entry, except a compact sequence under a `key:` entry
    if (type === 'map' && isSeqLine(text, l)) continue;
    entries.push([cur, i]);
    cur = i;
  }
  entries.push([cur, to]);
  const blocks: Block[] = [];
  let leafFrom = -1;
  let leafTo = -1;
  const flush = () => {
    if (leafFrom >= 0) blocks.push({ kind: 'leaf', from: leafFrom, to: leafTo });
    leafFrom = leafTo = -1;
  };
  for (const [a, b] of entries) {
    let head = a;
    while (head < b && lines[head].kind !== 'content') head++;
    const hl = lines[head];
    if (type === 'seq' && !isSeqLine(text, hl)) throw new Unsplittable();
    let colon = -1;
    if (type === 'map') {
      colon = keyColon(text, hl.start + hl.indent, hl.end);
      if (colon < 0) throw new Unsplittable();
    }
    const big = b - a > BRANCH_LINES;
    if (type === 'map' && big) {
      const rest = text.slice(colon + 1, hl.end).trim();
      // a branch's key line is never parsed by the `yaml` package: only plain, simple keys
      const keyText = text.slice(hl.start + hl.indent, colon).trimEnd();
      if ((rest === '' || rest.startsWith('#')) && /^[A-Za-z0-9_][\w.\-/]*$/.test(keyText)) {
        let c = head + 1;
        while (c < b && lines[c].kind !== 'content') c++;
        if (c < b) {
          flush();
          const keyStart = hl.start + hl.indent;
          let key = text.slice(keyStart, colon).trim();
          if ((key.startsWith('"') && key.endsWith('"')) || (key.startsWith("'") && key.endsWith("'"))) key = key.slice(1, -1);
          // its children are grouped when it is composed (not at all when it is cached)
          blocks.push({
            kind: 'branch',
            from: a,
            to: b,
            key,
            keySpan: { start: keyStart, end: keyStart + text.slice(keyStart, colon).trimEnd().length },
            head,
            indent: lines[c].indent,
          });
          continue;
        }
      }
    }
    if (leafFrom >= 0 && b - leafFrom > LEAF_LINES) flush();
    if (leafFrom < 0) leafFrom = a;
    leafTo = b;
  }
  flush();
  return { type, blocks };
}

function parseChunk(text: string, cache: ParseCache | undefined): ChunkResult {
  const hit = cache?.get(text);
  if (hit) return hit;
  const doc = parseDocument(text, YAML_OPTIONS) as Document.Parsed;
  const c = convertDocument(doc, 0);
  const r: ChunkResult = { root: c.root, problems: [...yamlProblems(doc, 0, text.length), ...c.problems.map(fromConvert)], size: c.expandedSize };
  cache?.set(text, r);
  return r;
}

/** Composes a group into one node, spans relative to `base` (the offset of its frame). */
function compose(text: string, lines: Line[], g: Group, base: number, cache: ParseCache | undefined): BranchResult {
  // spans as the `yaml` package reports them: from the first content character to the start
  // of the line after the last one
  let first = blockStart(g.blocks[0]);
  while (first < lines.length - 1 && lines[first].kind !== 'content') first++;
  const spanFrom = lines[first].start + lines[first].indent - base;
  const last = g.blocks[g.blocks.length - 1];
  // trailing blank lines are not part of the node; comments indented into it are
  let lastLine = last.to - 1;
  const indent = lines[first].indent;
  while (lastLine > first && (lines[lastLine].kind === 'blank' || (lines[lastLine].kind === 'comment' && lines[lastLine].indent <= indent))) lastLine--;
  const spanTo = Math.min(lines[lastLine].next, text.length) - base;
  const out = g.type === 'map' ? makeMap({ start: spanFrom, end: spanTo }) : makeSeq({ start: spanFrom, end: spanTo });
  const problems: SyntaxProblem[] = [];
  let size = 0;
  for (const b of g.blocks) {
    if (b.kind === 'branch') {
      const at = lines[b.from].start;
      const child = branch(text, lines, b, cache);
      for (const p of child.problems) problems.push(shiftProblem(p, at - base));
      size += child.size + 1;
      const keySpan = { start: b.keySpan.start - at, end: b.keySpan.end - at };
      if (out.kind === 'map' && !addEntry(out, { key: b.key, keySpan, node: child.node, shift: at - base })) {
        problems.push({
          code: 'yaml.duplicate-key',
          span: { start: b.keySpan.start - base, end: b.keySpan.end - base },
          message: `Map keys must be unique: '${b.key}' appears twice`,
          severity: 'error',
        });
      }
      continue;
    }
    const at = lines[b.from].start;
    const chunkText = text.slice(at, lines[b.to - 1].next > text.length ? text.length : lines[b.to - 1].next);
    const r = parseChunk(chunkText, cache);
    const shift = at - base;
    for (const p of r.problems) problems.push(shiftProblem(p, shift));
    size += r.size;
    const root = r.root;
    if (!root) continue;
    if (out.kind === 'map') {
      if (root.kind !== 'map') throw new Unsplittable();
      for (const e of root.entries) {
        if (!addEntry(out, { ...e, shift: e.shift + shift })) {
          const ks = { start: e.keySpan.start + e.shift + shift, end: e.keySpan.end + e.shift + shift };
          problems.push({ code: 'yaml.duplicate-key', span: ks, message: `Map keys must be unique: '${e.key}' appears twice`, severity: 'error' });
        }
      }
    } else {
      if (root.kind !== 'seq') throw new Unsplittable();
      for (const it of root.items) addItem(out, { node: it.node, shift: it.shift + shift });
    }
  }
  return { node: out, problems, size };
}

/** A big entry's value, from the cache when its text is unchanged (it may have moved). */
function branch(text: string, lines: Line[], b: Extract<Block, { kind: 'branch' }>, cache: ParseCache | undefined): BranchResult {
  const from = lines[b.from].start;
  const to = Math.min(lines[b.to - 1].next, text.length);
  const key = cache && to - from <= BRANCH_CACHE_MAX_CHARS ? text.slice(from, to) : undefined;
  const hit = key !== undefined ? cache!.getBranch(key) : undefined;
  if (hit) return hit;
  const r = compose(text, lines, group(text, lines, b.head + 1, b.to, b.indent), from, cache);
  if (key !== undefined) cache!.setBranch(key, r);
  return r;
}

const shiftProblem = (p: SyntaxProblem, by: number): SyntaxProblem => (by === 0 ? p : { ...p, span: { start: p.span.start + by, end: p.span.end + by } });

const blockStart = (b: Block) => b.from;

function parseChunked(text: string, cache: ParseCache | undefined): ParseResult | undefined {
  const lines = splitLines(text);
  if (lines.length < CHUNK_MIN_LINES) return undefined;
  if (unsafe(text, lines)) return undefined;
  try {
    const g = group(text, lines, 0, lines.length, 0);
    if (g.type !== 'map') return undefined;
    const root = compose(text, lines, g, 0, cache);
    return { docs: [{ root: root.node, span: { start: 0, end: text.length }, expandedSize: root.size }], problems: root.problems, path: 'chunks' };
  } catch (e) {
    if (e instanceof Unsplittable) return undefined;
    throw e;
  }
}

/** Parses a document, refusing inputs over the limits (see limits.ts). */
export function parseYaml(text: string, cache?: ParseCache, opts: { maxBytes?: number; chunked?: boolean } = {}): ParseResult {
  const limit = preflight(text, opts.maxBytes);
  if (limit) return { docs: [{ root: undefined, span: { start: 0, end: text.length }, expandedSize: 0 }], problems: [], limit, path: 'refused' };
  const r = (opts.chunked !== false && parseChunked(text, cache)) || parseWhole(text);
  for (const d of r.docs) {
    if (d.expandedSize > LIMITS.maxExpandedNodes) {
      return {
        ...r,
        limit: {
          code: 'input.alias-expansion',
          offset: d.root?.span.start ?? 0,
          detail: `aliases expand to more than ${LIMITS.maxExpandedNodes.toLocaleString('en-US')} nodes`,
        },
      };
    }
  }
  return r;
}
