// Outline: every key as a document symbol, sections nested; list items named by their
// `name` / `stage_name` when they have one.
import type { DocumentSymbol, SymbolKind as LspSymbolKind } from 'vscode-languageserver';
import type { Analysis } from '../../engine/engine';
import { deref, type VNode } from '../../yaml/tree';

const SymbolKind = { Module: 2, Namespace: 3, Property: 7, Array: 18, Object: 19, String: 15, Number: 16, Boolean: 17, Null: 21 } as const satisfies Record<
  string,
  LspSymbolKind
>;
const MAX_SYMBOLS = 20_000;

export function documentSymbols(a: Analysis): DocumentSymbol[] {
  if (!a.kind) return [];
  let budget = MAX_SYMBOLS;
  const L = a.lines;
  const children = (node: VNode, shift: number, depth: number): DocumentSymbol[] => {
    const d = deref(node, shift);
    if (d.via || depth > 40) return [];
    const n = d.node;
    const out: DocumentSymbol[] = [];
    if (n.kind === 'map') {
      for (const e of n.entries) {
        if (e.merged || budget-- <= 0) continue;
        const s = d.shift + e.shift;
        const keySpan = { start: e.keySpan.start + s, end: e.keySpan.end + s };
        const vd = deref(e.node, s);
        const valueEnd = vd.via ? vd.via.end : vd.node.span.end + vd.shift;
        const v = vd.node;
        out.push({
          name: e.key || '""',
          detail: v.kind === 'scalar' ? String(v.value ?? 'null').slice(0, 80) : v.kind === 'seq' ? `[${v.items.length}]` : undefined,
          kind: depth === 0 && v.kind === 'map' ? SymbolKind.Module : v.kind === 'map' ? SymbolKind.Object : v.kind === 'seq' ? SymbolKind.Array : kindOf(v),
          range: L.range({ start: keySpan.start, end: Math.max(valueEnd, keySpan.end) }),
          selectionRange: L.range(keySpan),
          children: v.kind === 'map' || v.kind === 'seq' ? children(e.node, s, depth + 1) : undefined,
        });
      }
    } else if (n.kind === 'seq') {
      n.items.forEach((it, i) => {
        if (budget-- <= 0) return;
        const s = d.shift + it.shift;
        const vd = deref(it.node, s);
        const v = vd.node;
        const span = vd.via ?? { start: v.span.start + vd.shift, end: v.span.end + vd.shift };
        let name = `[${i}]`;
        if (v.kind === 'map') {
          const label = v.index.get('name') ?? v.index.get('stage_name');
          const lv = label ? deref(label.node, 0).node : undefined;
          if (lv?.kind === 'scalar' && lv.value) name = `[${i}] ${String(lv.value)}`;
        } else if (v.kind === 'scalar') name = `[${i}] ${String(v.value ?? '')}`.slice(0, 80);
        out.push({
          name,
          kind: v.kind === 'map' ? SymbolKind.Object : kindOf(v),
          range: L.range(span),
          selectionRange: L.range(span),
          children: v.kind === 'map' || v.kind === 'seq' ? children(it.node, s, depth + 1) : undefined,
        });
      });
    }
    return out;
  };
  return a.docs.flatMap((d) => (d.root ? children(d.root, 0, 0) : []));
}

function kindOf(v: VNode): LspSymbolKind {
  if (v.kind !== 'scalar') return SymbolKind.Property;
  switch (v.py) {
    case 'int':
    case 'float':
      return SymbolKind.Number;
    case 'bool':
      return SymbolKind.Boolean;
    case 'null':
      return SymbolKind.Null;
    default:
      return SymbolKind.String;
  }
}
