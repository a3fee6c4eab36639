// Hover: a key's description, type, default and release notes (Chinese when VS Code's
// display language is zh-cn); a registry name's doc; an interpolation's resolved value.
import type { Hover } from 'vscode-languageserver';
import type { Analysis } from '../../engine/engine';
import { l10n, render, type Lang, type Text } from '../../core/l10n-text';
import { UNKNOWN } from '../../interp/resolve';
import { NAME_SINCE, REGISTRIES, type RegistryId } from '../../names/registries';
import { trinityEnv, valueSince } from '../../facts/releases';
import { defaultText, describe, schemaAt, typeName } from '../../schema/schemas';
import type { PythonIndex } from '../../workspace/pyindex';
import { formatPath } from '../../yaml/tree';
import { nodeAt } from './at';

export function hover(a: Analysis, offset: number, lang: Lang, python?: PythonIndex): Hover | undefined {
  if (!a.kind) return undefined;
  const locale = lang.locale;
  const r = (text: Text) => render(text, lang);
  const doc = a.docs.find((d) => d.root && offset >= d.root.span.start && offset <= d.root.span.end + 1) ?? a.docs[0];
  const at = nodeAt(doc?.root, offset);
  if (!at) return undefined;
  const node = schemaAt(a.kind, at.path);
  const where = formatPath(at.path);
  const range = a.lines.range(at.onKey ? at.keySpan! : at.span);
  if (at.onKey) {
    const envVar = at.path.length >= 2 && at.path[at.path.length - 2] === 'env_vars' ? trinityEnv().find((e) => e.name === at.path[at.path.length - 1]) : undefined;
    if (envVar) {
      const doc = r(envVar.doc);
      return { contents: { kind: 'markdown', value: `**${envVar.name}** — ${r(l10n.t('Trinity-RFT environment variable'))}\n\n${doc}\n\n${r(l10n.t('Since Trinity-RFT {0}', envVar.since))}` }, range };
    }
    if (!node) return undefined;
    const lines = [`**${where}**: \`${typeName(node)}\``, describe(node, locale)];
    if (node.default !== undefined && typeof node.default !== 'object') lines.push(r(l10n.t('Default: {0}', `\`${defaultText(node.default)}\``)));
    if (node['x-since']) lines.push(r(l10n.t('Since Trinity-RFT {0}', node['x-since'])));
    if (node['x-deprecated']) lines.push(`⚠ ${r(l10n.t('Deprecated: {0}', node['x-deprecated']))}`);
    return { contents: { kind: 'markdown', value: lines.filter(Boolean).join('\n\n') }, range };
  }
  // a value
  const v = doc?.resolution.values.get(where);
  const scalar = at.node.kind === 'scalar' ? String(at.node.value ?? '') : undefined;
  const parts: string[] = [];
  if (v !== undefined && scalar?.includes('${')) {
    parts.push(v === UNKNOWN ? r(l10n.t('Cannot be resolved here (environment variable not set)')) : r(l10n.t('Resolves to {0}', `\`${JSON.stringify(v)}\``)));
  }
  const reg = node?.['x-registry'] as RegistryId | undefined;
  if (reg && REGISTRIES[reg] && scalar) {
    const info = REGISTRIES[reg];
    const d = info.names[scalar];
    if (d) parts.push(`**${scalar}** — ${r(info.title)} (\`${info.pyName}\`)\n\n${r(d)}`);
    const since = NAME_SINCE[reg]?.[scalar];
    if (d && since) parts.push(r(l10n.t('Since Trinity-RFT {0}', since)));
    const w = python?.findRegistration(reg, scalar);
    if (w) parts.push(`**${scalar}** — \`${w.target ?? ''}\` (${w.file}:${w.line + 1})`);
  }
  const vs = scalar && node ? valueSince(node, scalar) : undefined;
  if (vs) parts.push(`**${where}**: \`${typeName(node)}\``, describe(node, locale), r(l10n.t('{0} since Trinity-RFT {1}', `\`${scalar}\``, vs)));
  if (!parts.length && node) parts.push(`**${where}**: \`${typeName(node)}\``, describe(node, locale));
  if (!parts.length) return undefined;
  return { contents: { kind: 'markdown', value: parts.filter(Boolean).join('\n\n') }, range };
}
