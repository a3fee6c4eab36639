// Go-to-definition and document links: registry names registered in the workspace, dotted
// class paths, ASTuner `module->Class` references, dataset/model/template paths, and
// `${a.b}` interpolations (to the key they read).
import * as path from 'path';
import { pathToFileURL } from 'url';
import type { DocumentLink, Location } from 'vscode-languageserver';
import type { Analysis } from '../../engine/engine';
import { parseInterpolations, interpolationsOf } from '../../interp/grammar';
import { REGISTRIES, type RegistryId } from '../../names/registries';
import { configAncestors, resolveLocalPath } from '../../core/paths';
import { schemaAt } from '../../schema/schemas';
import { isLocation, type PyLocation, type PythonIndex } from '../../workspace/pyindex';
import { formatPath, locate, parsePath, type Segment } from '../../yaml/tree';
import { nodeAt } from './at';

export interface NavEnv {
  python?: PythonIndex;
  roots: readonly string[];
}

const uri = (file: string) => pathToFileURL(file).toString();
const pyLoc = (l: PyLocation): Location => ({
  uri: uri(l.file),
  range: { start: { line: l.line, character: l.character }, end: { line: l.line, character: l.endCharacter } },
});

/** Where a config value points, if anywhere we can show. */
function targetOf(a: Analysis, env: NavEnv, where: Segment[], value: string): Location | undefined {
  if (!a.kind) return undefined;
  const node = schemaAt(a.kind, where);
  if (!node) return undefined;
  const extra = configAncestors(a.file);
  const reg = node['x-registry'] as RegistryId | undefined;
  if (reg && REGISTRIES[reg]) {
    const w = env.python?.findRegistration(reg, value);
    if (w) return pyLoc(w);
    if (value.includes('.')) {
      const r = env.python?.resolveDotted(value, extra);
      if (r && isLocation(r)) return pyLoc(r);
      if (r) return { uri: uri(r.file), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } };
    }
    return undefined;
  }
  if (node['x-ref']) {
    const r = env.python?.resolveArrow(value, extra);
    if (r && isLocation(r)) return pyLoc(r);
    if (r) return { uri: uri(r.file), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } };
    return undefined;
  }
  if (node['x-path']) {
    const r = resolveLocalPath(value, env.roots, a.file);
    if (r.found) return { uri: uri(r.found), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } };
  }
  return undefined;
}

export function definition(a: Analysis, offset: number, env: NavEnv): Location[] {
  const doc = a.docs[0];
  if (!doc) return [];
  const at = nodeAt(doc.root, offset);
  if (!at || at.onKey || at.node.kind !== 'scalar') return [];
  const raw = String(at.node.value ?? '');
  const where = formatPath(at.path);
  if (raw.includes('${')) {
    // an interpolation: jump to the key it reads
    const parsed = parseInterpolations(raw);
    const inner = offset - at.span.start - (at.node.quoted ? 1 : 0);
    for (const i of interpolationsOf(parsed.parts)) {
      if (i.kind !== 'ref' || inner < i.start || inner > i.end) continue;
      const segs = i.key.map((k) => k.map((p) => (p.kind === 'text' ? p.text : '')).join(''));
      const base = i.up ? at.path.slice(0, Math.max(0, at.path.length - i.up)) : [];
      const target = locate(doc.root, [...base, ...parsePath(segs.join('.'))]);
      if (target) return [{ uri: a.file ? uri(a.file) : '', range: a.lines.range(target.keySpan ?? target.span) }];
    }
  }
  const resolved = doc.resolution.values.get(where);
  const value = typeof resolved === 'string' ? resolved : raw;
  const t = targetOf(a, env, at.path, value);
  return t ? [t] : [];
}

export function documentLinks(a: Analysis, env: NavEnv): DocumentLink[] {
  const out: DocumentLink[] = [];
  const doc = a.docs[0];
  if (!doc || !a.kind) return out;
  for (const s of doc.sites) {
    if (s.node.kind !== 'scalar' || s.text === undefined || s.text === '') continue;
    if (!s.schema['x-path'] && !s.schema['x-ref'] && !s.schema['x-registry']) continue;
    const resolved = doc.resolution.values.get(s.where);
    const value = typeof resolved === 'string' ? resolved : s.text;
    if (value.includes('${')) continue;
    const t = targetOf(a, env, s.path, value);
    if (!t) continue;
    const line = t.range.start.line;
    const target = line > 0 ? `${t.uri}#L${line + 1},${t.range.start.character + 1}` : t.uri;
    out.push({ range: a.lines.range(s.span), target, tooltip: t.uri.startsWith('file:') ? path.basename(decodeURIComponent(t.uri)) : undefined });
  }
  return out;
}
