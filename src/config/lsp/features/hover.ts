// Hover: a key's description, type, default and release notes (Chinese when VS Code's
// display language is zh-cn); a registry name's doc; an interpolation's resolved value.
import type { Hover } from 'vscode-languageserver';
import type { Analysis } from '../../engine/engine';
import { UNKNOWN } from '../../interp/resolve';
import { NAME_SINCE, REGISTRIES, type RegistryId } from '../../names/registries';
import { trinityEnv, valueSince } from '../../facts/releases';
import { defaultText, describe, schemaAt, typeName } from '../../schema/schemas';
import type { PythonIndex } from '../../workspace/pyindex';
import { formatPath } from '../../yaml/tree';
import { nodeAt } from './at';

export function hover(a: Analysis, offset: number, locale: string, python?: PythonIndex): Hover | undefined {
  if (!a.kind) return undefined;
  const zh = locale.toLowerCase().startsWith('zh');
  const doc = a.docs.find((d) => d.root && offset >= d.root.span.start && offset <= d.root.span.end + 1) ?? a.docs[0];
  const at = nodeAt(doc?.root, offset);
  if (!at) return undefined;
  const node = schemaAt(a.kind, at.path);
  const where = formatPath(at.path);
  const range = a.lines.range(at.onKey ? at.keySpan! : at.span);
  if (at.onKey) {
    const envVar = at.path.length >= 2 && at.path[at.path.length - 2] === 'env_vars' ? trinityEnv().find((e) => e.name === at.path[at.path.length - 1]) : undefined;
    if (envVar) {
      const doc = zh ? envVar.doc.zh : envVar.doc.en;
      return { contents: { kind: 'markdown', value: `**${envVar.name}** — ${zh ? 'Trinity-RFT 环境变量' : 'Trinity-RFT environment variable'}\n\n${doc}\n\n${zh ? `自 Trinity-RFT ${envVar.since} 起` : `Since Trinity-RFT ${envVar.since}`}` }, range };
    }
    if (!node) return undefined;
    const lines = [`**${where}**: \`${typeName(node)}\``, describe(node, locale)];
    if (node.default !== undefined && typeof node.default !== 'object') lines.push(`${zh ? '默认值' : 'Default'}: \`${defaultText(node.default)}\``);
    if (node['x-since']) lines.push(zh ? `自 Trinity-RFT ${node['x-since']} 起` : `Since Trinity-RFT ${node['x-since']}`);
    if (node['x-deprecated']) lines.push(zh ? `⚠ 已弃用：${node['x-deprecated']}` : `⚠ Deprecated: ${node['x-deprecated']}`);
    return { contents: { kind: 'markdown', value: lines.filter(Boolean).join('\n\n') }, range };
  }
  // a value
  const v = doc?.resolution.values.get(where);
  const scalar = at.node.kind === 'scalar' ? String(at.node.value ?? '') : undefined;
  const parts: string[] = [];
  if (v !== undefined && scalar?.includes('${')) {
    parts.push(v === UNKNOWN ? (zh ? '无法在此解析（环境变量未设置）' : 'Cannot be resolved here (environment variable not set)') : `${zh ? '解析为' : 'Resolves to'} \`${JSON.stringify(v)}\``);
  }
  const reg = node?.['x-registry'] as RegistryId | undefined;
  if (reg && REGISTRIES[reg] && scalar) {
    const info = REGISTRIES[reg];
    const d = info.names[scalar];
    if (d) parts.push(`**${scalar}** — ${zh ? info.title.zh : info.title.en} (\`${info.pyName}\`)\n\n${zh ? d.zh : d.en}`);
    const since = NAME_SINCE[reg]?.[scalar];
    if (d && since) parts.push(zh ? `自 Trinity-RFT ${since} 起` : `Since Trinity-RFT ${since}`);
    const w = python?.findRegistration(reg, scalar);
    if (w) parts.push(`**${scalar}** — \`${w.target ?? ''}\` (${w.file}:${w.line + 1})`);
  }
  const vs = scalar && node ? valueSince(node, scalar) : undefined;
  if (vs) parts.push(`**${where}**: \`${typeName(node)}\``, describe(node, locale), zh ? `\`${scalar}\` 自 Trinity-RFT ${vs} 起` : `\`${scalar}\` since Trinity-RFT ${vs}`);
  if (!parts.length && node) parts.push(`**${where}**: \`${typeName(node)}\``, describe(node, locale));
  if (!parts.length) return undefined;
  return { contents: { kind: 'markdown', value: parts.filter(Boolean).join('\n\n') }, range };
}
