// Unrendered template files: AgentJet (and others) ship configs with `{{PLACEHOLDER}}` values
// that a script fills in before launch. Such a file is not YAML yet — `key: {{X}}` parses as a
// flow mapping — so instead of one parse error per line it gets one diagnostic that says what
// it is. Only for files that are RL configs once the placeholders are filled (other templated
// YAML, e.g. Helm charts, is not ours).

export interface Placeholder {
  name: string;
  start: number;
  end: number;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/** `{{NAME}}` occurrences outside comments. */
export function findPlaceholders(text: string): Placeholder[] {
  if (!text.includes('{{')) return [];
  const out: Placeholder[] = [];
  let lineStart = 0;
  for (const line of text.split('\n')) {
    const hash = commentStart(line);
    for (const m of line.matchAll(PLACEHOLDER)) {
      if (hash >= 0 && m.index >= hash) break;
      out.push({ name: m[1], start: lineStart + m.index, end: lineStart + m.index + m[0].length });
    }
    lineStart += line.length + 1;
  }
  return out;
}

/** Where a `#` comment starts on a line (outside quotes), or -1. */
function commentStart(line: string): number {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return i;
  }
  return -1;
}

/** The text with each placeholder replaced by a plain scalar of the same length (offsets kept). */
export function renderPlaceholders(text: string, found: readonly Placeholder[]): string {
  let out = '';
  let at = 0;
  for (const p of found) {
    out += text.slice(at, p.start) + 'x'.repeat(p.end - p.start);
    at = p.end;
  }
  return out + text.slice(at);
}
