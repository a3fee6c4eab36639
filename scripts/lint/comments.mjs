// The comments of a source file, line by line, for the checks that read what comments say
// (comment-refs.mjs). TypeScript and JavaScript through the TypeScript parser (so a `//` inside
// a string or a regular expression is not a comment); Python and shell with a small scanner
// that knows their string quotes.
import ts from 'typescript';

/** @typedef {{ line: number, text: string }} CommentLine  line is 1-based */

const SCRIPT_KINDS = {
  '.ts': ts.ScriptKind.TS,
  '.mts': ts.ScriptKind.TS,
  '.cts': ts.ScriptKind.TS,
  '.js': ts.ScriptKind.JS,
  '.mjs': ts.ScriptKind.JS,
  '.cjs': ts.ScriptKind.JS,
};

/** The language of a file by its name (`.ci/run` and other extensionless scripts are shell). */
export function languageOf(file) {
  const ext = /\.[^./]+$/.exec(file)?.[0] ?? '';
  if (ext in SCRIPT_KINDS) return 'js';
  if (ext === '.py') return 'python';
  if (ext === '.sh' || ext === '') return 'shell';
  return undefined;
}

/** Every comment of `text` split into lines; `file` picks the language. */
export function commentLines(file, text) {
  const lang = languageOf(file);
  if (lang === 'js') return jsComments(file, text);
  if (lang === 'python') return hashComments(text, true);
  if (lang === 'shell') return hashComments(text, false);
  return [];
}

function jsComments(file, text) {
  const ext = /\.[^./]+$/.exec(file)[0];
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, SCRIPT_KINDS[ext]);
  const seen = new Set();
  const out = [];
  const take = (ranges) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      const first = sf.getLineAndCharacterOfPosition(r.pos).line;
      text
        .slice(r.pos, r.end)
        .split('\n')
        .forEach((l, i) => out.push({ line: first + i + 1, text: l }));
    }
  };
  const visit = (node) => {
    take(ts.getLeadingCommentRanges(text, node.getFullStart()));
    take(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(sf);
  take(ts.getLeadingCommentRanges(text, sf.endOfFileToken.getFullStart()));
  return out.sort((a, b) => a.line - b.line);
}

/**
 * `#` comments (outside string literals), and for Python also docstrings: a triple-quoted string
 * that starts a line. Strings and docstrings may span lines.
 */
function hashComments(text, python) {
  const out = [];
  const lines = text.split('\n');
  let open; // the quote of a string still open at the end of the previous line
  let docstring = false;
  lines.forEach((line, i) => {
    let k = 0;
    if (open) {
      const end = line.indexOf(open);
      if (docstring) out.push({ line: i + 1, text: end < 0 ? line : line.slice(0, end) });
      if (end < 0) return;
      k = end + open.length;
      open = undefined;
      docstring = false;
    }
    while (k < line.length) {
      const c = line[k];
      if (c === '#' && (python || k === 0 || /\s/.test(line[k - 1]))) {
        out.push({ line: i + 1, text: line.slice(k) });
        return;
      }
      if (c === '\\') {
        k += 2;
        continue;
      }
      if (c === '"' || c === "'") {
        const triple = python && line.startsWith(c.repeat(3), k);
        const q = triple ? c.repeat(3) : c;
        const end = findClose(line, k + q.length, q);
        if (end < 0) {
          if (triple) {
            open = q;
            docstring =
              line
                .slice(0, k)
                .trim()
                .replace(/[rRbBuU]+$/, '') === '';
            if (docstring) out.push({ line: i + 1, text: line.slice(k + 3) });
          } else if (!python) {
            open = q; // shell strings span lines
          }
          return;
        }
        if (
          triple &&
          line
            .slice(0, k)
            .trim()
            .replace(/[rRbBuU]+$/, '') === ''
        )
          out.push({ line: i + 1, text: line.slice(k + 3, end) });
        k = end + q.length;
        continue;
      }
      k++;
    }
  });
  return out;
}

function findClose(line, from, q) {
  for (let k = from; k < line.length; k++) {
    if (line[k] === '\\' && q.length === 1) {
      k++;
      continue;
    }
    if (line.startsWith(q, k)) return k;
  }
  return -1;
}
