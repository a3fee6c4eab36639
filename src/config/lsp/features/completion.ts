// Completion: keys of the section under the cursor (with their default as a snippet), and
// values — registry names with their docs, enum and choice values, booleans, workspace
// registrations and `module->Class` references.
import type { CompletionItem, CompletionItemKind, MarkupContent } from 'vscode-languageserver';
import type { ConfigKind } from '../../../feature-api/config-checker';
import { l10n, render, type Doc, type Lang } from '../../core/l10n-text';
import { NAME_SINCE, REGISTRIES, type RegistryId } from '../../names/registries';
import { knownNames } from '../../rules/keys';
import { defaultText, describe, resolve, schemaAt, typeName, type SchemaNode } from '../../schema/schemas';
import type { PythonIndex } from '../../workspace/pyindex';
import { formatPath } from '../../yaml/tree';
import { cursorContext } from './cursor';
import { valueSince } from '../../facts/releases';
import { compareVersions } from '../../core/versions';
import { valueText } from '../../../base/value-text';

// LSP enum values (numbers, so this module stays free of runtime LSP imports)
const Kind = { Property: 10, Value: 12, Enum: 13, EnumMember: 20, Class: 7, Module: 9, Keyword: 14 } as const satisfies Record<string, CompletionItemKind>;
const Snippet = 2;

export interface CompletionEnv {
  kind: ConfigKind;
  /** The reader's language (labels through l10n, documentation data by its locale). */
  lang: Lang;
  python?: PythonIndex;
  /** Trinity release in force: keys, values and names of later releases are not offered. */
  trinityVersion?: string;
}

/** False for what a later release than the one in force added. */
function inRelease(since: string | undefined, env: CompletionEnv): boolean {
  return !since || !env.trinityVersion || compareVersions(since, env.trinityVersion) <= 0;
}

const L = (m: Doc, lang: Lang) => render(m, lang);

function doc(node: SchemaNode | undefined, lang: Lang, extra = ''): MarkupContent {
  const parts = [describe(node, lang.locale)];
  if (node && node.default !== undefined && typeof node.default !== 'object')
    parts.push(render(l10n.t('Default: {0}', `\`${defaultText(node.default)}\``), lang));
  if (node?.['x-since']) parts.push(render(l10n.t('Since Trinity-RFT {0}', node['x-since']), lang));
  if (extra) parts.push(extra);
  return { kind: 'markdown', value: parts.filter(Boolean).join('\n\n') };
}

/** Snippet text for a key: scalars get their default, sections a new indented block. */
function keySnippet(key: string, node: SchemaNode, indent: string, env?: CompletionEnv): string {
  const t = resolve(node);
  if (t && (t.properties || (t.type === 'object' && !t['x-free']))) return `${key}:\n${indent}  $0`;
  if (t?.type === 'array') {
    const item = resolve(t.items);
    return item?.properties ? `${key}:\n${indent}  - $0` : `${key}:\n${indent}  - \${1}`;
  }
  if (t?.['x-free'] || t?.type === 'object') return `${key}:\n${indent}  $0`;
  const d = t?.default;
  const choices = (t?.['x-choices'] ?? t?.['x-enum']?.values)?.filter((c) => !env || inRelease(valueSince(t, c), env));
  if (choices?.length) {
    const first = d !== undefined && d !== null ? valueText(d) : choices[0];
    const ordered = [first, ...choices.filter((c) => c !== first)];
    return `${key}: \${1|${ordered.map((c) => c.replace(/[|,]/g, '')).join(',')}|}`;
  }
  if (d === undefined || d === null || d === '') return `${key}: $0`;
  return `${key}: \${1:${String(defaultText(d)).replace(/[$}\\]/g, '\\$&')}}`;
}

export function complete(text: string, line: number, character: number, env: CompletionEnv): CompletionItem[] {
  const ctx = cursorContext(text, line, character);
  if (!ctx) return [];
  const { kind, lang } = env;
  const range = { start: { line, character: ctx.startCol }, end: { line, character } };
  if (ctx.mode === 'key') {
    const sch = schemaAt(kind, ctx.parent);
    const props = sch?.properties;
    if (!props) return [];
    const indent = ' '.repeat(ctx.keyCol);
    const items: CompletionItem[] = [];
    for (const [key, raw] of Object.entries(props)) {
      if (ctx.siblings.has(key)) continue;
      const node = resolve(raw);
      if (!node || !inRelease(node['x-since'], env)) continue;
      const hidden = node['x-doNotSet'] || node['x-deprecated'] || node['x-dead'];
      items.push({
        label: key,
        kind: node.properties ? Kind.Module : Kind.Property,
        detail: typeName(node),
        documentation: doc(node, lang),
        insertText: keySnippet(key, node, indent, env),
        insertTextFormat: Snippet,
        textEdit: { range, newText: keySnippet(key, node, indent, env) },
        sortText: `${hidden ? '9' : '1'}${key}`,
        tags: node['x-deprecated'] ? [1] : undefined,
        filterText: key,
      });
    }
    return items;
  }
  const path = [...ctx.parent, ctx.key!];
  const node = schemaAt(kind, path);
  if (!node) return [];
  const items: CompletionItem[] = [];
  const add = (label: string, detail: string, documentation?: MarkupContent, k: CompletionItemKind = Kind.Value, sort = '1') =>
    items.push({ label, kind: k, detail, documentation, textEdit: { range, newText: label }, sortText: `${sort}${label}` });
  const reg = node['x-registry'] as RegistryId | undefined;
  if (reg && REGISTRIES[reg]) {
    const info = REGISTRIES[reg];
    const title = L(info.title, lang);
    for (const [name, d] of Object.entries(info.names))
      if (inRelease(NAME_SINCE[reg]?.[name], env)) add(name, `${title} · ${info.pyName}`, { kind: 'markdown', value: L(d, lang) }, Kind.EnumMember);
    for (const r of env.python?.registered(reg) ?? []) {
      add(
        r.name,
        `${title} · ${render(l10n.t('workspace'), lang)}`,
        { kind: 'markdown', value: `\`${r.target ?? r.name}\` — ${r.file}:${r.line + 1}` },
        Kind.Class,
        '0',
      );
    }
    for (const n of knownNames(env, reg))
      if (!items.some((i) => i.label === n) && inRelease(NAME_SINCE[reg]?.[n], env)) add(n, title, undefined, Kind.EnumMember, '2');
    return items;
  }
  const choices = node['x-choices'] ?? node['x-enum']?.values;
  if (choices) {
    for (const c of choices) if (inRelease(valueSince(node, c), env)) add(c, typeName(node), doc(node, lang), Kind.EnumMember, c === node.default ? '0' : '1');
    return items;
  }
  if (node['x-py'] === 'bool') {
    for (const b of ['true', 'false']) add(b, 'bool', undefined, Kind.Keyword, String(node.default) === b ? '0' : '1');
    return items;
  }
  if (node['x-ref'] && env.python) {
    // ASTuner/AgentJet `module->Class`: the workspace's classes
    for (const c of env.python.classes(400)) add(`${c.module}->${c.cls}`, `${c.file}:${c.line + 1}`, undefined, Kind.Class, '0');
  }
  if (node.default !== undefined && node.default !== null && typeof node.default !== 'object') {
    add(defaultText(node.default), `${render(l10n.t('default'), lang)} · ${typeName(node)}`, doc(node, lang), Kind.Value, '0');
  }
  if (/\$\{?$/.test(ctx.prefix) || ctx.prefix === '') {
    items.push({
      label: '${oc.env:VAR,default}',
      kind: Kind.Keyword,
      detail: 'OmegaConf',
      insertText: '\\${oc.env:${1:VAR},${2:default}}',
      insertTextFormat: Snippet,
      textEdit: { range, newText: '\\${oc.env:${1:VAR},${2:default}}' },
      sortText: '3',
    });
  }
  return items;
}

/** The path shown for a completion context (tests, logs). */
export function contextPath(text: string, line: number, character: number): string | undefined {
  const c = cursorContext(text, line, character);
  return c ? formatPath(c.mode === 'value' ? [...c.parent, c.key!] : c.parent) : undefined;
}
