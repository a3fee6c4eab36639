// Every `version.*` finding: keys, enum values and registry names newer than the targeted
// Trinity-RFT release (`x-since`, `x-value-since`, NAME_SINCE), keys of an older release or
// of the other ASTuner/AgentJet line (`x-removed-keys`, facts/renames.ts), and legacy ASTuner
// keys. Schema validation asks here before calling a key unknown; the key rules and the agent
// rules call the rest at the points they always reported them, so findings keep their order.
import type { ConfigKind } from '../../feature-api/config-checker';
import { type FindingSink, type Fix } from '../core/findings';
import { l10n, list, type Text, verbatim } from '../core/l10n-text';
import { compareVersions } from '../core/versions';
import { valueSince } from '../facts/releases';
import { acceptsNull, linesWithout, nullableAt, releaseOfLine } from '../facts/field-at';
import { AGENT_LEGACY, AGENT_RENAMES, TRINITY_RENAMES, type Rename } from '../facts/renames';
import { NAME_SINCE, REGISTRIES, type RegistryId } from '../names/registries';
import { formatPath, locate, parsePath, type Segment, type Span, type VNode } from '../yaml/tree';
import { LATEST_TRINITY, TRINITY, TRINITY_VERSIONS } from './schemas';
import type { Site } from './sites';

/** The release checked against, and where findings go. */
export interface VersionTarget {
  kind: ConfigKind;
  trinityVersion: string;
  /** Where `trinityVersion` came from, for messages. */
  trinityVersionSource?: VersionSource;
  sink: FindingSink;
}

/** Release that follows `v` in our list (the one that removed a key last seen in `v`). */
function nextRelease(v: string): string | undefined {
  return TRINITY_VERSIONS.find((r) => compareVersions(r, v) > 0);
}

interface KeyHistory {
  since?: string;
  until?: string;
  rename?: Rename;
}

/** What we know about a key that the current schema does not have. */
function keyHistory(cls: string | undefined, key: string): KeyHistory | undefined {
  if (!cls) return undefined;
  const rename = TRINITY_RENAMES.find((r) => r.cls === cls && r.from === key);
  const removed = TRINITY['x-removed-keys']?.[cls]?.[key];
  if (!rename && !removed) return undefined;
  return { since: removed?.since, until: removed?.until, rename };
}

/** True when `target` is a release in which the key existed. */
function validIn(h: KeyHistory, target: string): boolean {
  return !!(h.since && h.until && compareVersions(target, h.since) >= 0 && compareVersions(target, h.until) <= 0);
}

/** `0.6.0` → `0.6`, `0.5.2` stays: how a release line is named in messages. */
function lineOf(version: string): string {
  return version.replace(/^(\d+\.\d+)\.0$/, '$1');
}

/** Where the version in force came from, as the engine was told (e.g. "pinned in requirements.txt"). */
export type VersionSource = string | Text | undefined;

/** "`x` needs Trinity-RFT ≥ 0.6; this workspace has 0.5.2 (pinned in requirements.txt)". */
function needsRelease(what: string, since: string, target: string, source: VersionSource): Text {
  if (!source) return l10n.t('{0} needs Trinity-RFT ≥ {1}; this workspace has {2}.', what, lineOf(since), target);
  const src = typeof source === 'string' ? verbatim(source) : source;
  return l10n.t('{0} needs Trinity-RFT ≥ {1}; this workspace has {2} ({3}).', what, lineOf(since), target, src);
}

/** A key the schema does not have: `version.renamed-key` when it belongs to another Trinity-RFT
 *  release or to the other ASTuner/AgentJet line. True when that settles it (reported, or valid
 *  in the target release); false for a plain unknown key. */
export function renamedKey(t: VersionTarget, parentPath: Segment[], key: string, cls: string | undefined, soft: boolean, span: Span): boolean {
  const where = formatPath([...parentPath, key]);
  const inTrinity = t.kind === 'trinity' || parentPath[0] === 'trinity';
  // a key from another release gets a version message, never a bare "unknown key"
  const h = inTrinity ? keyHistory(cls, key) : undefined;
  if (h) {
    if (validIn(h, t.trinityVersion)) return true;
    const removedIn = h.rename?.since ?? (h.until ? nextRelease(h.until) : undefined) ?? 'a later release';
    const lived =
      h.since && h.until
        ? h.since === h.until
          ? l10n.t(' (it existed in {0})', h.since)
          : l10n.t(' (it existed in {0}–{1})', h.since, h.until)
        : verbatim('');
    const note = h.rename?.note;
    const isDocsName = h.rename && !h.since;
    t.sink.add({
      severity: 'warning',
      code: 'version.renamed-key',
      message: isDocsName
        ? l10n.t('`{0}` is not a Trinity-RFT key: {1}.', where, note)
        : l10n.t(
            '`{0}` is from an older Trinity-RFT release{1}; it was removed in {2}{3}. Target release: {4}.',
            where,
            lived,
            removedIn,
            note ? l10n.t(': {0}', note) : verbatim(''),
            t.trinityVersion,
          ),
      path: where,
      span,
      fixes: h.rename?.to ? [{ title: l10n.t('Rename to `{0}`', h.rename.to), edits: [{ span, newText: h.rename.to }], preferred: true }] : undefined,
    });
    return true;
  }
  if (soft && t.kind !== 'trinity' && parentPath[0] === t.kind) {
    const r = agentRenameFor(t.kind, formatPath(parentPath.slice(1)), key);
    if (r) {
      t.sink.add({
        severity: 'warning',
        code: 'version.renamed-key',
        message: r.message,
        path: where,
        span,
        fixes: [{ title: l10n.t('Rename to `{0}`', r.to), edits: [{ span, newText: r.to }], preferred: true }],
      });
      return true;
    }
  }
  return false;
}

/** ASTuner ↔ AgentJet renamed keys (reported instead of "unknown key"). */
function agentRenameFor(kind: 'astuner' | 'ajet', parent: string, key: string): { to: string; message: Text } | undefined {
  for (const r of AGENT_RENAMES) {
    const [sect, name] = [r.path.split('.').slice(0, -1).join('.'), r.path.split('.').pop()!];
    if (sect !== parent) continue;
    if (kind === 'ajet' && key === name && r.kind === 'astuner')
      return { to: r.other, message: l10n.t('`{0}` is the ASTuner name; AgentJet renamed it `{1}`.', key, r.other) };
    if (kind === 'astuner' && key === r.other && r.kind === 'astuner')
      return { to: name, message: l10n.t('`{0}` is the AgentJet name; ASTuner (astuner:) calls it `{1}`.', key, name) };
  }
  return undefined;
}

/** `version.newer-key` / `version.newer-value`: a key (`x-since`) or an enum value
 *  (`x-value-since`) that appeared after the target release. `value` is the site's resolved
 *  string value, asked only when the key has per-value releases. */
export function newerKeyOrValue(t: VersionTarget, s: Site, value: () => string | undefined): void {
  const target = t.trinityVersion;
  const sch = s.schema;
  const since = sch['x-since'];
  const inTrinity = t.kind === 'trinity' || s.path[0] === 'trinity';
  if (since && compareVersions(since, target) > 0 && inTrinity) {
    // the older loader rejects the key ("Key 'x' not in 'Y'"): an error for Trinity configs
    t.sink.add({
      severity: t.kind === 'trinity' ? 'error' : 'warning',
      code: 'version.newer-key',
      message: needsRelease(`\`${s.where}\``, since, target, t.trinityVersionSource),
      path: s.where,
      span: s.keySpan ?? s.span,
    });
  }
  if (inTrinity && (sch['x-only-in'] || sch['x-until'] || sch['x-null'] !== undefined)) storedLineFindings(t, s);
  if (sch['x-value-since'] && inTrinity && target !== LATEST_TRINITY) {
    const v = value();
    const vs = v === undefined ? undefined : valueSince(sch, v);
    if (vs && compareVersions(vs, target) > 0) {
      t.sink.add({
        severity: t.kind === 'trinity' ? 'error' : 'warning',
        code: 'version.newer-value',
        message: needsRelease(`\`${s.where}: ${v}\``, vs, target, t.trinityVersionSource),
        path: s.where,
        span: s.span,
      });
    }
  }
}

/** Where the stored versions of a release disagree about a written key (`x-only-in`), and a
 *  null the release in force does not take (`x-until` / `x-null`). */
function storedLineFindings(t: VersionTarget, s: Site): void {
  const sch = s.schema;
  const target = t.trinityVersion;
  const only = sch['x-only-in'] as string[] | undefined;
  const lineRelease = only ? releaseOfLine(only[0]) : undefined;
  if (only && lineRelease && compareVersions(target, lineRelease) >= 0) {
    const without = linesWithout(sch, lineRelease).map((l) => l.id);
    const since = sch['x-since'];
    const isNew = since && compareVersions(since, lineRelease) >= 0;
    t.sink.add(
      isNew
        ? {
            severity: 'info',
            code: 'version.line-only',
            message: l10n.t(
              '`{0}` is only in {1} of the stored Trinity-RFT {2} versions; {3} rejects it as an unknown key.',
              s.where,
              list(only),
              lineOf(lineRelease),
              list(without),
            ),
            path: s.where,
            span: s.keySpan ?? s.span,
          }
        : {
            severity: 'warning',
            code: 'version.removed-in-line',
            message: l10n.t(
              '`{0}` is deprecated in Trinity-RFT {1}: {2} removed it and rejects it as an unknown key ({3} still reads it).',
              s.where,
              lineOf(lineRelease),
              list(without),
              list(only),
            ),
            path: s.where,
            span: s.keySpan ?? s.span,
            tags: ['deprecated'],
          },
    );
  }
  if (s.node.kind === 'scalar' && s.node.py === 'null' && acceptsNull(sch) && !nullableAt(sch, target)) {
    const src = t.trinityVersionSource
      ? l10n.t(' ({0})', typeof t.trinityVersionSource === 'string' ? verbatim(t.trinityVersionSource) : t.trinityVersionSource)
      : verbatim('');
    t.sink.add({
      severity: t.kind === 'trinity' ? 'error' : 'warning',
      code: 'version.not-optional',
      message: l10n.t('`{0}` cannot be null in Trinity-RFT {1}{2}: the field is not Optional there.', s.where, target, src),
      path: s.where,
      span: s.span,
    });
  }
}

/** `version.newer-name`: a built-in registry name (known here) that a later release added;
 *  `workspace` are the names the workspace registers itself, which any release accepts. */
export function newerName(t: VersionTarget, s: Site, reg: RegistryId, value: string, workspace: () => readonly { name: string }[]): void {
  const since = t.kind === 'trinity' || s.path[0] === 'trinity' ? NAME_SINCE[reg]?.[value] : undefined;
  if (since && compareVersions(since, t.trinityVersion) > 0 && !workspace().some((r) => r.name === value)) {
    t.sink.add({
      severity: 'warning',
      code: 'version.newer-name',
      message: needsRelease(`'${value}' (${REGISTRIES[reg].title.en})`, since, t.trinityVersion, t.trinityVersionSource),
      path: s.where,
      span: s.span,
    });
  }
}

/** `version.legacy-key`: ASTuner keys from before the current layout, under the `rootKey:` section. */
export function legacyAgentKeys(t: { sink: FindingSink; root: VNode | undefined }, rootKey: string): void {
  for (const l of AGENT_LEGACY) {
    const p = `${rootKey}.${l.path}`;
    const loc = locate(t.root, parsePath(p));
    if (!loc?.keySpan) continue;
    if (l.path === 'task_reader.dataset_file') continue; // reported with the reader type
    const fix: Fix | undefined =
      l.to && l.to.split('.').slice(0, -1).join('.') === l.path.split('.').slice(0, -1).join('.')
        ? { title: l10n.t('Rename to `{0}`', l.to.split('.').pop()), edits: [{ span: loc.keySpan, newText: l.to.split('.').pop()! }], preferred: true }
        : undefined;
    t.sink.add({
      severity: 'warning',
      code: 'version.legacy-key',
      message: l10n.t('`{0}` is a legacy ASTuner key: {1}.', l.path, l.note),
      path: formatPath(parsePath(p)),
      span: loc.keySpan,
      fixes: fix ? [fix] : undefined,
    });
  }
}
