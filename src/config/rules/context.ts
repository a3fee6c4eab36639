// What a rule sees and how it reports. Rules are pure functions of the effective config;
// each reports with a stable code, at the offending key, linking the other keys involved.
import type { ConfigKind } from '../../feature-api/config-checker';
import { type Finding, type FindingSink, type Fix, type Related } from '../core/findings';
import { l10n, type Text } from '../core/l10n-text';
import type { ConfigView } from './view';
import type { PythonIndex } from '../workspace/pyindex';
import { locate, type Segment, type Span, type VNode } from '../yaml/tree';
import type { VersionSource } from '../schema/version-findings';
import type { PackageInForce } from '../workspace/trinity-version';

export interface RuleEnv {
  kind: ConfigKind;
  /** Absolute path of the file, when known. */
  file?: string;
  text: string;
  root: VNode | undefined;
  /** Workspace folders (the CLI's --root / cwd); relative paths in configs resolve here. */
  roots: readonly string[];
  python?: PythonIndex;
  trinityVersion: string;
  /** Where `trinityVersion` came from, for version messages. */
  trinityVersionSource?: VersionSource;
  sink: FindingSink;
  /** Whether to check that local paths exist. */
  checkPaths: boolean;
  /** The verl under the trainer, when the workspace says (installed or pinned). */
  verl?: PackageInForce;
}

export interface RuleContext extends RuleEnv {
  view: ConfigView;
}

export interface Rule {
  /** Stable code prefix, for docs and tests. */
  id: string;
  /** The upstream checks it transcribes, as `Class.method` of trinity/common/config_validator.py
   *  or trinity/algorithm/algorithm.py (the coverage list in schemas/trinity-rft.validators.json
   *  is generated from these). */
  upstream?: readonly string[];
  run(ctx: RuleContext): void;
}

/** Report helper: the stage a finding comes from is added to the message. A rule about several
 *  keys marks each written key involved (the same finding there, linked both ways by
 *  relatedInformation), so every line that takes part shows it — unless `once`: a finding whose
 *  message names the key to change is said there only (the others stay related locations). */
export function report(
  ctx: RuleContext,
  f: {
    severity: Finding['severity'];
    code: string;
    message: Text;
    path: string | Segment[];
    span?: Span;
    related?: { path: string | Segment[]; message: Text }[];
    fixes?: Fix[];
    tags?: Finding['tags'];
    once?: boolean;
  },
): void {
  const v = ctx.view;
  const message = v.stage ? l10n.t("{0} (stage '{1}')", f.message, v.stage.name) : f.message;
  const span = f.span ?? v.keySpan(f.path);
  const involved = (f.related ?? [])
    .filter((r) => v.has(r.path) || v.loc(r.path))
    .map((r) => ({ path: r.path, message: r.message, span: v.keySpan(r.path), written: !!v.loc(r.path) }));
  const related: Related[] = involved.map((r) => ({ message: r.message, span: r.span }));
  ctx.sink.add({
    severity: f.severity,
    code: f.code,
    message,
    path: v.where(f.path),
    span,
    related: related.length ? related : undefined,
    fixes: f.fixes,
    tags: f.tags,
  });
  if (f.once) return;
  for (const r of involved) {
    if (!r.written || (r.span.start === span.start && r.span.end === span.end)) continue;
    ctx.sink.add({
      severity: f.severity,
      code: f.code,
      message,
      path: v.where(r.path),
      span: r.span,
      related: [
        { message: l10n.t('the rule is reported at `{0}`', v.where(f.path)), span },
        ...involved.filter((o) => o !== r).map((o) => ({ message: o.message, span: o.span })),
      ],
      tags: f.tags,
    });
  }
}

/** A quick fix replacing the value at `path` (or inserting `key: value` under its parent). */
export function setValueFix(ctx: RuleContext, path: string, newText: string, title: Text, preferred = true): Fix | undefined {
  const loc = ctx.view.loc(path);
  if (loc && !loc.viaAlias) return { title, edits: [{ span: loc.span, newText }], preferred };
  return insertKeyFix(ctx, path, newText, title, preferred);
}

/** Inserts `key: value` as the last child of the key's parent mapping (which must be written). */
export function insertKeyFix(ctx: RuleContext, path: string, value: string, title: Text, preferred = true): Fix | undefined {
  const segs = ctx.view.actual(path);
  const key = segs[segs.length - 1];
  const parentPath = segs.slice(0, -1);
  if (typeof key !== 'string') return undefined;
  if (parentPath.length === 0) {
    // top-level: append at the end of the document
    const end = ctx.text.length;
    const nl = ctx.text.endsWith('\n') || end === 0 ? '' : '\n';
    return { title, edits: [{ span: { start: end, end }, newText: `${nl}${key}: ${value}\n` }], preferred };
  }
  const parent = locate(ctx.root, parentPath);
  if (!parent || parent.viaAlias) return undefined;
  const node = parent.node;
  if (node.kind !== 'map' || node.entries.length === 0) return undefined;
  const last = node.entries[node.entries.length - 1];
  const lastKeyStart = last.keySpan.start + parent.shift + last.shift;
  const lineStart = ctx.text.lastIndexOf('\n', lastKeyStart - 1) + 1;
  const indent = ctx.text.slice(lineStart, lastKeyStart);
  if (/\S/.test(indent.replace(/^\s*- /, ''))) return undefined;
  const pad = indent.replace(/-/, ' ');
  // after the last entry's value (end of its last line)
  let end = parent.span.end;
  const nl = ctx.text.indexOf('\n', Math.max(end - 1, 0));
  end = nl < 0 ? ctx.text.length : nl;
  return { title, edits: [{ span: { start: end, end }, newText: `\n${pad}${key}: ${value}` }], preferred };
}
