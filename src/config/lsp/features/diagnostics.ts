// Findings → LSP diagnostics and code actions (quick fixes), in the user's language.
import type { CodeAction, Diagnostic, Range } from 'vscode-languageserver';
import type { Analysis } from '../../engine/engine';
import type { Finding } from '../../core/findings';
import { render, type Lang } from '../../core/l10n-text';

const SEVERITY = { error: 1, warning: 2, info: 3 } as const;
const SOURCE = 'Agent RL';

export function toDiagnostics(a: Analysis, lang: Lang, uriOf: (file: string) => string): Diagnostic[] {
  return a.findings.map((f) => toDiagnostic(a, f, lang, uriOf));
}

function toDiagnostic(a: Analysis, f: Finding, lang: Lang, uriOf: (file: string) => string): Diagnostic {
  // only related locations in this document need its URI (not computed per finding)
  const here = () => (a.file ? uriOf(a.file) : '');
  return {
    range: a.lines.range(f.span),
    severity: SEVERITY[f.severity],
    code: f.code,
    source: SOURCE,
    message: render(f.message, lang),
    tags: f.tags?.map((t) => (t === 'unnecessary' ? 1 : 2)),
    relatedInformation: f.related?.map((r) => ({
      location: { uri: r.file ? uriOf(r.file) : here(), range: r.range ?? a.lines.range(r.span ?? f.span) },
      message: render(r.message, lang),
    })),
    data: f.fixes?.length ? { fixes: true } : undefined,
  };
}

const overlaps = (a: Range, b: Range) =>
  !(
    a.end.line < b.start.line ||
    (a.end.line === b.start.line && a.end.character < b.start.character) ||
    b.end.line < a.start.line ||
    (b.end.line === a.start.line && b.end.character < a.start.character)
  );

/** Quick fixes for the findings overlapping `range`. */
export function codeActions(a: Analysis, uri: string, range: Range, lang: Lang, uriOf: (file: string) => string, only?: string[]): CodeAction[] {
  if (only && !only.some((k) => k === 'quickfix' || 'quickfix'.startsWith(k))) return [];
  const out: CodeAction[] = [];
  for (const f of a.findings) {
    if (!f.fixes?.length) continue;
    const r = a.lines.range(f.span);
    if (!overlaps(r, range)) continue;
    const diag = toDiagnostic(a, f, lang, uriOf);
    for (const fix of f.fixes) {
      out.push({
        title: render(fix.title, lang),
        kind: 'quickfix',
        diagnostics: [diag],
        isPreferred: fix.preferred,
        edit: { changes: { [uri]: fix.edits.map((e) => ({ range: a.lines.range(e.span), newText: e.newText })) } },
      });
    }
  }
  return out;
}
