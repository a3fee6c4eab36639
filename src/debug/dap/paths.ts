// Simple value paths for the Debug Console and for edits: `messages[-1].content`,
// `request.tools[0]["function"].name`. Negative indexes count from the end.
export type PathSegment = string | number;

export class PathError extends Error {}

export function parsePath(expr: string): PathSegment[] {
  const s = expr.trim();
  const out: PathSegment[] = [];
  const ident = /^[A-Za-z_$][\w$]*/;
  const first = ident.exec(s);
  if (!first) throw new PathError(`expected a name such as messages, request, response, task or reward, not '${s}'`);
  out.push(first[0]);
  let i = first[0].length;
  while (i < s.length) {
    const rest = s.slice(i);
    let m: RegExpExecArray | null;
    if ((m = /^\s*\.\s*([A-Za-z_$][\w$]*)/.exec(rest))) {
      out.push(m[1]);
    } else if ((m = /^\s*\[\s*(-?\d+)\s*\]/.exec(rest))) {
      out.push(Number(m[1]));
    } else if ((m = /^\s*\[\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\s*\]/.exec(rest))) {
      const lit = m[1];
      out.push(lit.startsWith('"') ? (JSON.parse(lit) as string) : lit.slice(1, -1).replace(/\\'/g, "'"));
    } else {
      throw new PathError(`cannot read '${rest}' in '${s}' (use .name, [index] or ["key"])`);
    }
    i += m[0].length;
  }
  return out;
}

/** Resolves a path; a negative index counts from the end of the array. */
export function getPath(root: unknown, path: PathSegment[]): unknown {
  let v = root;
  for (const seg of path) {
    if (v === null || v === undefined) throw new PathError(`cannot read '${String(seg)}' of ${v}`);
    if (typeof seg === 'number') {
      if (!Array.isArray(v)) throw new PathError(`[${seg}] needs a list`);
      const i = seg < 0 ? v.length + seg : seg;
      if (i < 0 || i >= v.length) throw new PathError(`index ${seg} is out of range (length ${v.length})`);
      v = v[i];
    } else {
      if (typeof v !== 'object') throw new PathError(`cannot read '${seg}' of a ${typeof v}`);
      if (!(seg in v)) throw new PathError(`no '${seg}'`);
      v = (v as Record<string, unknown>)[seg];
    }
  }
  return v;
}

/** Path with negative indexes made absolute against `root`. */
export function absolutePath(root: unknown, path: PathSegment[]): PathSegment[] {
  const out: PathSegment[] = [];
  let v = root;
  for (const seg of path) {
    let s = seg;
    if (typeof seg === 'number' && Array.isArray(v) && seg < 0) s = v.length + seg;
    out.push(s);
    v = v === null || v === undefined ? undefined : (v as Record<string | number, unknown>)[s];
  }
  return out;
}

export function setPath(root: unknown, path: PathSegment[], value: unknown): void {
  if (!path.length) throw new PathError('nothing to assign to');
  const parent = getPath(root, path.slice(0, -1));
  const last = path[path.length - 1];
  if (typeof last === 'number') {
    if (!Array.isArray(parent)) throw new PathError(`[${last}] needs a list`);
    const i = last < 0 ? parent.length + last : last;
    if (i < 0 || i > parent.length) throw new PathError(`index ${last} is out of range (length ${parent.length})`);
    parent[i] = value;
    return;
  }
  if (!parent || typeof parent !== 'object') throw new PathError(`cannot set '${last}' on a ${typeof parent}`);
  (parent as Record<string, unknown>)[last] = value;
}

/** What the user typed in the Variables view, as a value: JSON when it parses, else text.
 *  Where a string was, a non-string literal stays text (typing 42 into content keeps "42"). */
export function parseEditedValue(input: string, previous: unknown): unknown {
  const t = input.trim();
  let parsed: unknown;
  let ok: boolean;
  try {
    parsed = JSON.parse(t);
    ok = true;
  } catch {
    ok = false;
  }
  if (typeof previous === 'string') return ok && typeof parsed === 'string' ? parsed : input;
  return ok ? parsed : input;
}

/** `lhs = rhs` at top level (not inside quotes or brackets, not `==`). */
export function splitAssignment(expr: string): { lhs: string; rhs: string } | undefined {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < expr.length; i++) {
    const ch = expr[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[') depth++;
    else if (ch === ']') depth--;
    else if (ch === '=' && depth === 0 && expr[i + 1] !== '=' && expr[i - 1] !== '=' && expr[i - 1] !== '!' && expr[i - 1] !== '<' && expr[i - 1] !== '>') {
      return { lhs: expr.slice(0, i).trim(), rhs: expr.slice(i + 1).trim() };
    }
  }
  return undefined;
}
