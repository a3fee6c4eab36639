// OmegaConf interpolation strings: `${a.b}`, `${.sibling}`, `${..up.key}`, `${oc.env:VAR,default}`,
// nested `${oc.env:A,${oc.env:B,x}}`, text around them (`${x}_suffix`) and escapes (`\${`).
// A small recursive-descent reader for OmegaConf's grammar (no JS package implements it);
// tolerant: malformed text yields a problem with its offset instead of an exception.

export interface TextPart {
  kind: 'text';
  text: string;
}

export interface RefNode {
  kind: 'ref';
  /** Leading dots: 0 = absolute, 1 = sibling, 2 = parent's sibling… */
  up: number;
  /** Key segments; a segment may itself contain interpolations. */
  key: Part[][];
  start: number;
  end: number;
}

export interface ResolverNode {
  kind: 'resolver';
  name: string;
  args: Part[][];
  /** Whether each argument was quoted (quoted `'null'` is a string, bare `null` is None). */
  quoted: boolean[];
  start: number;
  end: number;
}

export type Interp = RefNode | ResolverNode;
export type Part = TextPart | Interp;

export interface ParsedText {
  parts: Part[];
  error?: { offset: number; message: string };
}

const MAX_DEPTH = 32;

/** Thrown by the reader at a syntax error; `parseInterpolations` reports the first one. */
class InterpolationSyntaxError extends Error {}

class Reader {
  pos = 0;
  error?: { offset: number; message: string };
  constructor(readonly s: string) {}
  fail(message: string): never {
    this.error ??= { offset: this.pos, message };
    throw new InterpolationSyntaxError(this.error.message);
  }
  ws(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos])) this.pos++;
  }
}

/** Splits a scalar string into literal text and interpolations. */
export function parseInterpolations(s: string): ParsedText {
  const r = new Reader(s);
  try {
    const parts = readParts(r, 0, () => false);
    return { parts };
  } catch {
    return { parts: [{ kind: 'text', text: s }], error: r.error };
  }
}

/** Reads text and interpolations until `stop()` says so (at depth > 0) or the end. */
function readParts(r: Reader, depth: number, stop: () => boolean): Part[] {
  const parts: Part[] = [];
  let text = '';
  const flush = () => {
    if (text) parts.push({ kind: 'text', text });
    text = '';
  };
  while (r.pos < r.s.length && !stop()) {
    const c = r.s[r.pos];
    if (c === '\\' && r.s.startsWith('${', r.pos + 1)) {
      text += '${';
      r.pos += 3;
      continue;
    }
    if (c === '\\' && r.s[r.pos + 1] === '\\' && r.s.startsWith('${', r.pos + 2)) {
      text += '\\';
      r.pos += 2;
      continue;
    }
    if (c === '$' && r.s[r.pos + 1] === '{') {
      flush();
      parts.push(readInterp(r, depth + 1));
      continue;
    }
    text += c;
    r.pos++;
  }
  flush();
  return parts;
}

function readInterp(r: Reader, depth: number): Interp {
  if (depth > MAX_DEPTH) r.fail('interpolations nested too deeply');
  const start = r.pos;
  r.pos += 2; // ${
  r.ws();
  // a resolver is `name(.name)*:`; anything else is a node reference
  const m = /^([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)\s*:/.exec(r.s.slice(r.pos, r.pos + 200));
  if (m) {
    r.pos += m[0].length;
    const args: Part[][] = [];
    const quoted: boolean[] = [];
    r.ws();
    if (r.s[r.pos] !== '}') {
      for (;;) {
        r.ws();
        const q = r.s[r.pos];
        if (q === '"' || q === "'") {
          r.pos++;
          const parts = readParts(r, depth, () => r.s[r.pos] === q);
          if (r.s[r.pos] !== q) r.fail('unterminated quoted argument');
          r.pos++;
          args.push(parts);
          quoted.push(true);
        } else {
          const parts = readParts(r, depth, () => r.s[r.pos] === ',' || r.s[r.pos] === '}');
          trimParts(parts);
          args.push(parts);
          quoted.push(false);
        }
        r.ws();
        if (r.s[r.pos] === ',') {
          r.pos++;
          continue;
        }
        break;
      }
    }
    if (r.s[r.pos] !== '}') r.fail("expected '}'");
    r.pos++;
    return { kind: 'resolver', name: m[1], args, quoted, start, end: r.pos };
  }
  let up = 0;
  while (r.s[r.pos] === '.') {
    up++;
    r.pos++;
  }
  const key: Part[][] = [];
  let seg: Part[] = [];
  let text = '';
  const flushText = () => {
    if (text) seg.push({ kind: 'text', text });
    text = '';
  };
  while (r.pos < r.s.length && r.s[r.pos] !== '}') {
    const c = r.s[r.pos];
    if (c === '$' && r.s[r.pos + 1] === '{') {
      flushText();
      seg.push(readInterp(r, depth + 1));
      continue;
    }
    if (c === '.' || c === '[' || c === ']') {
      flushText();
      if (seg.length) key.push(seg);
      seg = [];
      r.pos++;
      continue;
    }
    if (/\s/.test(c)) {
      r.pos++;
      continue;
    }
    text += c;
    r.pos++;
  }
  flushText();
  if (seg.length) key.push(seg);
  if (r.s[r.pos] !== '}') r.fail("expected '}'");
  r.pos++;
  if (!key.length && up === 0) {
    r.pos = start + 2;
    r.fail('empty interpolation');
  }
  return { kind: 'ref', up, key, start, end: r.pos };
}

function trimParts(parts: Part[]): void {
  const first = parts[0];
  if (first?.kind === 'text') first.text = first.text.replace(/^\s+/, '');
  const last = parts[parts.length - 1];
  if (last?.kind === 'text') last.text = last.text.replace(/\s+$/, '');
  if (first?.kind === 'text' && !first.text) parts.shift();
  if (parts.length && parts[parts.length - 1].kind === 'text' && !(parts[parts.length - 1] as TextPart).text) parts.pop();
}

/** Every interpolation in the parts, outermost first (for links and hovers). */
export function interpolationsOf(parts: Part[]): Interp[] {
  const out: Interp[] = [];
  const visit = (ps: Part[]) => {
    for (const p of ps) {
      if (p.kind === 'text') continue;
      out.push(p);
      if (p.kind === 'ref') p.key.forEach(visit);
      else p.args.forEach(visit);
    }
  };
  visit(parts);
  return out;
}
