// Hover: a key's description, type, default and release notes (Chinese when VS Code's
// display language is zh-cn); a registry name's doc; an interpolation's resolved value.
import type { Hover } from 'vscode-languageserver';
import type { Analysis } from '../../engine/engine';
import { l10n, list, render, verbatim, type Lang, type Text } from '../../core/l10n-text';
import { defaultAt, defaultsDiffer, linesWithout, releaseOfLine, TRINITY_LINES } from '../../facts/field-at';
import type { SchemaNode } from '../../facts/schema-node';
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
    const envVar =
      at.path.length >= 2 && at.path[at.path.length - 2] === 'env_vars' ? trinityEnv().find((e) => e.name === at.path[at.path.length - 1]) : undefined;
    if (envVar) {
      const doc = r(envVar.doc);
      return {
        contents: {
          kind: 'markdown',
          value: `**${envVar.name}** — ${r(l10n.t('Trinity-RFT environment variable'))}\n\n${doc}\n\n${r(l10n.t('Since Trinity-RFT {0}', envVar.since))}`,
        },
        range,
      };
    }
    if (!node) return undefined;
    const lines = [`**${where}**: \`${typeName(node)}\``, describe(node, locale)];
    const inTrinity = a.kind === 'trinity' || at.path[0] === 'trinity';
    const dflt = inTrinity ? defaultAt(node, a.trinityVersion) : node.default;
    if (dflt !== undefined && typeof dflt !== 'object') lines.push(r(l10n.t('Default: {0}', `\`${defaultText(dflt)}\``)));
    if (inTrinity) lines.push(...upstreamNotes(node).map(r));
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

/** A stored line as hover names it: `pan-x-c/Trinity-RFT@0ccf77cf0f7b`; a release as itself. */
function sourceLabel(label: string): Text {
  const line = Object.values(TRINITY_LINES)
    .flat()
    .find((l) => l.id === label);
  return line ? verbatim(`${line.repo}@${line.commit.slice(0, 12)}`) : l10n.t('Trinity-RFT {0} and before', label);
}

/** Where upstream's stored versions disagree about a key: its defaults, the lines that have it. */
function upstreamNotes(node: SchemaNode): Text[] {
  const notes: Text[] = [];
  const differ = defaultsDiffer(node);
  if (differ.length)
    notes.push(l10n.t('Defaults differ: {0}', list(differ.map((d) => l10n.t('{0} in {1}', `\`${defaultText(d.value)}\``, sourceLabel(d.label))))));
  const only = node['x-only-in'] as string[] | undefined;
  const release = only ? releaseOfLine(only[0]) : undefined;
  if (only && release)
    notes.push(
      l10n.t(
        'Only in {0} of the stored Trinity-RFT {1} versions; not in {2}.',
        list(only.map(sourceLabel)),
        release,
        list(linesWithout(node, release).map((l) => sourceLabel(l.id))),
      ),
    );
  return notes;
}
