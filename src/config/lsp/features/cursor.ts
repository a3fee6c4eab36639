// Where the cursor is in YAML terms — the key path it is under and whether it is typing a
// key or a value — read from indentation, so it works while the document is half-typed and
// does not parse (which is most of the time during completion).
import type { Segment } from '../../yaml/tree';

interface LineShape {
  /** Column of the first non-space character. */
  indent: number;
  /** Column of a leading `- ` list marker. */
  dash?: number;
  /** Column where a `key:` starts, and the key. */
  keyCol?: number;
  key?: string;
  /** Text after `key:` (trimmed, comments kept). */
  value?: string;
  blank: boolean;
}

const KEY_RE = /^((?:"[^"]*"|'[^']*'|[^\s#:'"][^:#]*?))\s*:(?:\s+(.*))?$/;

function shape(line: string): LineShape {
  const indent = line.length - line.trimStart().length;
  let rest = line.slice(indent);
  if (!rest || rest.startsWith('#')) return { indent, blank: true };
  const s: LineShape = { indent, blank: false };
  let col = indent;
  while (/^-(\s|$)/.test(rest)) {
    s.dash ??= col;
    const skip = rest.length > 1 ? rest.slice(1).length - rest.slice(1).trimStart().length + 1 : 1;
    col += skip;
    rest = rest.slice(skip);
  }
  const m = KEY_RE.exec(rest.replace(/\s+#.*$/, ''));
  if (m) {
    s.keyCol = col;
    s.key = m[1].replace(/^["']|["']$/g, '');
    s.value = (m[2] ?? '').trim();
  }
  return s;
}

export interface CursorContext {
  /** Path of the mapping (or list item) the cursor's key belongs to. */
  parent: Segment[];
  /** 'key': typing a key; 'value': typing the value of `key`. */
  mode: 'key' | 'value';
  key?: string;
  /** What is typed so far of the key or value. */
  prefix: string;
  /** Column where the typed key/value starts on the cursor line. */
  startCol: number;
  /** Keys already present in the same mapping. */
  siblings: Set<string>;
  /** Indentation of the key on the cursor line. */
  keyCol: number;
}

/** Path of the container holding a key at `col` on `lineNo` (0-based), from the lines above. */
function pathAt(lines: string[], lineNo: number, col: number, selfDash?: number): Segment[] {
  const path: Segment[] = [];
  let target = col;
  // after a list item, its key may sit at the dash's column (`key:\n- item`)
  let fromDash = false;
  if (selfDash !== undefined) {
    path.unshift(itemIndex(lines, lineNo, selfDash));
    target = selfDash;
    fromDash = true;
  }
  for (let i = lineNo - 1; i >= 0 && (target > 0 || fromDash); i--) {
    const L = shape(lines[i]);
    if (L.blank) continue;
    if (L.dash !== undefined && L.keyCol !== undefined && L.keyCol === target && L.dash < target) {
      // first key of the list item we are in
      path.unshift(itemIndex(lines, i, L.dash));
      target = L.dash;
      fromDash = true;
      continue;
    }
    if (L.dash !== undefined && L.keyCol === undefined && L.dash < target) {
      path.unshift(itemIndex(lines, i, L.dash));
      target = L.dash;
      fromDash = true;
      continue;
    }
    const kc = L.keyCol ?? L.indent;
    if (fromDash && L.dash === undefined && L.key !== undefined && kc === target && L.value === '') {
      path.unshift(L.key);
      fromDash = false;
      continue;
    }
    if (fromDash && L.dash === target) continue; // an earlier item of the same list
    if (fromDash && kc <= target) fromDash = false;
    if (kc < target && L.key !== undefined) {
      path.unshift(L.key);
      if (L.dash !== undefined && L.dash < kc) {
        path.unshift(itemIndex(lines, i, L.dash));
        target = L.dash;
        fromDash = true;
      } else target = kc;
    } else if (L.indent < target && L.key === undefined && L.dash === undefined) {
      target = L.indent;
    }
  }
  return path;
}

/** Index of the list item whose dash is at `dash` on line `lineNo`. */
function itemIndex(lines: string[], lineNo: number, dash: number): number {
  let n = 0;
  for (let i = lineNo - 1; i >= 0; i--) {
    const L = shape(lines[i]);
    if (L.blank) continue;
    if (L.indent < dash) break;
    if (L.dash === dash) n++;
    else if (L.indent === dash && L.dash === undefined) break;
  }
  return n;
}

/** Keys at `col` in the same mapping as line `lineNo`. */
function siblingKeys(lines: string[], lineNo: number, col: number): Set<string> {
  const out = new Set<string>();
  const scan = (from: number, step: number) => {
    for (let i = from; i >= 0 && i < lines.length; i += step) {
      const L = shape(lines[i]);
      if (L.blank) continue;
      const kc = L.keyCol ?? L.indent;
      if (kc < col) {
        // a list item of our own mapping starts here
        if (step < 0 && L.dash !== undefined && L.keyCol === col && L.key) out.add(L.key);
        break;
      }
      if (L.dash !== undefined && L.dash < col && step > 0) break;
      if (kc === col && L.key) out.add(L.key);
      if (step < 0 && L.dash !== undefined && L.keyCol === col) break;
    }
  };
  scan(lineNo - 1, -1);
  scan(lineNo + 1, 1);
  return out;
}

export function cursorContext(text: string, line: number, character: number): CursorContext | undefined {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  if (line >= lines.length) return undefined;
  const full = lines[line];
  const before = full.slice(0, character);
  if (/#/.test(before.replace(/(["'])(?:(?!\1).)*\1/g, ''))) return undefined; // in a comment
  const S = shape(before);
  // typing a value: `key: pre|`
  const vm = /^(\s*(?:-\s+)*)((?:"[^"]*"|'[^']*'|[^\s#:'"][^:#]*?))\s*:\s+(.*)$/.exec(before);
  if (vm) {
    const keyCol = vm[1].length;
    const dashes = vm[1].trim() ? vm[1].indexOf('-') : undefined;
    const parent = pathAt(lines, line, keyCol, dashes);
    const valuePart = vm[3];
    return {
      parent,
      mode: 'value',
      key: vm[2].replace(/^["']|["']$/g, ''),
      prefix: valuePart.replace(/^["']/, ''),
      startCol: character - valuePart.replace(/^["']/, '').length,
      siblings: new Set(),
      keyCol,
    };
  }
  // typing a key (or nothing yet)
  const km = /^(\s*(?:-\s+)*)([\w.-]*)$/.exec(before);
  if (!km) return undefined;
  const keyCol = km[1].length;
  const dashes = km[1].trim() ? km[1].indexOf('-') : undefined;
  const parent = pathAt(lines, line, keyCol, dashes);
  const siblings = dashes !== undefined ? new Set<string>() : siblingKeys(lines, line, keyCol);
  void S;
  return { parent, mode: 'key', prefix: km[2], startCol: keyCol, siblings, keyCol };
}
