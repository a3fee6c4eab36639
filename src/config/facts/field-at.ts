// What one field is at one release, or at one stored line of it: whether it exists, its
// default, whether it takes null. The schema every feature reads is the newest one and accepts
// what any release accepts; these annotations keep the history the version findings, hover
// and the upstream comparison need:
//   x-since            first release with the key
//   x-only-in          line ids (see TRINITY_LINES): from the release those lines belong to,
//                      only these stored lines have the key (the others removed it, or never
//                      added it)
//   x-default-by       default per stored line, where the lines of a release disagree
//   x-until            { release: { default?, nullable?, ref? } }: what the field was up to
//                      and including that release (`ref`: the dataclass it held), where a
//                      later release changed it
//   x-null             whether the newest release takes null, where the schema accepts null
//                      only for an older release
import { compareVersions } from '../core/versions';
import type { SchemaNode } from './schema-node';

/** A stored upstream version of a release's config.py (several exist; none is known to be the tag). */
export interface StoredLine {
  /** `owner@commit8`, as folders and messages name it. */
  id: string;
  repo: string;
  commit: string;
}

/** The stored lines of each release that has more than one; other releases are one line. */
export const TRINITY_LINES: Readonly<Record<string, readonly StoredLine[]>> = {
  '0.6.0': [
    { id: 'pan-x-c@0ccf77cf', repo: 'pan-x-c/Trinity-RFT', commit: '0ccf77cf0f7bbc3e61969bfab31cbf885170d3fb' },
    { id: 'agentscope-ai@1d7fae4a', repo: 'agentscope-ai/Trinity-RFT', commit: '1d7fae4a63f5e3a30e1927559d28a348a2167dd6' },
  ],
};

/** The release a stored line belongs to. */
export function releaseOfLine(id: string): string | undefined {
  return Object.entries(TRINITY_LINES).find(([, lines]) => lines.some((l) => l.id === id))?.[0];
}

const onlyIn = (node: SchemaNode): string[] | undefined => node['x-only-in'] as string[] | undefined;
const defaultsBy = (node: SchemaNode): Record<string, unknown> | undefined => node['x-default-by'] as Record<string, unknown> | undefined;

/** True when the key exists at `release` (in `line` of it, when given; any line when not). */
export function presentAt(node: SchemaNode, release: string, line?: string): boolean {
  const since = node['x-since'];
  if (since && compareVersions(since, release) > 0) return false;
  const only = onlyIn(node);
  if (!only || !line) return true;
  const from = releaseOfLine(only[0]);
  return !from || compareVersions(release, from) < 0 || only.includes(line);
}

/** The lines of `release` that lack a key it otherwise has (empty: all have it). */
export function linesWithout(node: SchemaNode, release: string): StoredLine[] {
  const only = onlyIn(node);
  if (!only) return [];
  return (TRINITY_LINES[release] ?? []).filter((l) => !only.includes(l.id));
}

interface FieldState {
  default?: unknown;
  nullable?: boolean;
  /** The nested dataclass (`$ref`) the field held. */
  ref?: string;
}

/** The recorded older state that applies at `release` (the earliest `until` ≥ release). */
export function stateAt(node: SchemaNode, release: string): FieldState | undefined {
  const until = node['x-until'] as Record<string, FieldState> | undefined;
  if (!until) return undefined;
  const key = Object.keys(until)
    .filter((k) => compareVersions(release, k) <= 0)
    .sort(compareVersions)[0];
  return key ? until[key] : undefined;
}

/** The default at `release` (in `line`, when given). */
export function defaultAt(node: SchemaNode, release: string, line?: string): unknown {
  const by = defaultsBy(node);
  if (line && by && line in by) return by[line];
  const older = stateAt(node, release);
  return older && 'default' in older ? older.default : node.default;
}

/** Every default a field has had, labelled by release or line, when they differ. */
export function defaultsDiffer(node: SchemaNode): { label: string; value: unknown }[] {
  const out: { label: string; value: unknown }[] = [];
  for (const [release, st] of Object.entries((node['x-until'] as Record<string, FieldState> | undefined) ?? {}))
    if ('default' in st) out.push({ label: release, value: st.default });
  for (const [line, value] of Object.entries(defaultsBy(node) ?? {})) out.push({ label: line, value });
  return out;
}

/** True when the schema node accepts null (in some release). */
export function acceptsNull(node: SchemaNode): boolean {
  return !!node['x-nullable'] || !!node.anyOf?.some((a) => a.type === 'null') || (Array.isArray(node.type) && node.type.includes('null'));
}

/** True when null is accepted at `release`. */
export function nullableAt(node: SchemaNode, release: string): boolean {
  const older = stateAt(node, release);
  if (older && older.nullable !== undefined) return older.nullable;
  const now = node['x-null'] as boolean | undefined;
  return now ?? acceptsNull(node);
}
