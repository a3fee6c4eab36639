// The effective config rules reason about: YAML values with interpolations resolved, else the
// schema's defaults (OmegaConf merges the YAML over the dataclass defaults). A stage view
// applies one `stages[i]` entry: its non-null sections replace the global ones wholesale,
// as Trinity's `Config.__iter__` does, and locations point into the stage when they come
// from it.
import type { ConfigKind } from '../../feature-api/config-checker';
import { UNKNOWN, type Resolution, type Value } from '../interp/resolve';
import { schemaAt } from '../schema/schemas';
import { formatPath, locate, locateDeepest, parsePath, type Located, type Segment, type Span, type VNode } from '../yaml/tree';
import { valueText } from '../../base/value-text';

export { UNKNOWN };

const STAGE_SECTIONS = new Set(['algorithm', 'buffer', 'data_processor', 'explorer', 'trainer']);

export interface StageInfo {
  index: number;
  name: string;
  /** Sections the stage replaces (non-null in the stage). */
  sections: Set<string>;
  modeSet: boolean;
}

export class ConfigView {
  constructor(
    readonly kind: ConfigKind,
    readonly root: VNode | undefined,
    readonly resolution: Resolution,
    /** Where the Trinity config starts in the document (`['trinity']` inside ASTuner files). */
    readonly prefix: Segment[] = [],
    readonly stage?: StageInfo,
    /** Schema used for defaults: Trinity's (paths below the prefix) or the agent kind's (full paths). */
    readonly defaults: 'trinity' | 'agent' = 'trinity',
  ) {}

  /** Document path of a config path (stage sections and the prefix applied). */
  actual(path: string | readonly Segment[]): readonly Segment[] {
    const p = typeof path === 'string' ? parsePath(path) : path;
    if (this.stage && p.length) {
      const head = String(p[0]);
      if ((STAGE_SECTIONS.has(head) && this.stage.sections.has(head)) || (head === 'mode' && this.stage.modeSet)) {
        return [...this.prefix, 'stages', this.stage.index, ...p];
      }
    }
    // the path itself when nothing is prepended (shared: callers never modify it)
    return this.prefix.length ? [...this.prefix, ...p] : p;
  }

  /** The resolved value (explicit or default); UNKNOWN when it cannot be resolved here. */
  get(path: string | readonly Segment[]): Value {
    const p = typeof path === 'string' ? parsePath(path) : path;
    const act = this.actual(p);
    // resolved values are in `resolved`; only the unresolvable ones need the path
    if (this.resolution.unknown.size && this.resolution.unknown.has(formatPath(act))) return UNKNOWN;
    let cur: unknown = this.resolution.resolved;
    let i = 0;
    for (; i < act.length; i++) {
      if (cur === null || cur === undefined || typeof cur !== 'object') break;
      const next = (cur as Record<string | number, unknown>)[act[i] as string];
      if (next === undefined && !Object.prototype.hasOwnProperty.call(cur, act[i])) break;
      cur = next;
    }
    if (i === act.length) return cur;
    // missing: the schema default (null inside an unset Optional section)
    if (cur === null && i < act.length) return null;
    const sch = this.defaults === 'trinity' ? schemaAt('trinity', p) : schemaAt(this.kind, act);
    return sch && 'default' in sch ? sch.default : undefined;
  }

  /** Number value (OmegaConf-convertible strings included), else undefined. */
  num(path: string | Segment[]): number | undefined {
    const v = this.get(path);
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string' && /^\s*[-+]?\d[\d_]*(\.\d*)?\s*$/.test(v)) return Number(v.replace(/_/g, ''));
    return undefined;
  }

  str(path: string | Segment[]): string | undefined {
    const v = this.get(path);
    if (v === UNKNOWN || v === undefined) return undefined;
    if (v === null) return undefined;
    return typeof v === 'object' ? undefined : valueText(v);
  }

  bool(path: string | Segment[]): boolean | undefined {
    const v = this.get(path);
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number') return v !== 0;
    if (typeof v === 'string') {
      const l = v.toLowerCase();
      if (['yes', 'y', 'on', 'true', '1'].includes(l)) return true;
      if (['no', 'n', 'off', 'false', '0'].includes(l)) return false;
    }
    return undefined;
  }

  /** Whether the key is written in the document (with a non-null value). */
  has(path: string | Segment[]): boolean {
    const l = locate(this.root, this.actual(path));
    if (!l) return false;
    const n = l.node;
    return !(n.kind === 'scalar' && n.py === 'null');
  }

  unknown(path: string | Segment[]): boolean {
    return this.get(path) === UNKNOWN;
  }

  loc(path: string | Segment[]): Located | undefined {
    return locate(this.root, this.actual(path));
  }

  /** Best span to report at: the value if written, else the nearest written ancestor's key. */
  span(path: string | Segment[]): Span {
    const act = this.actual(path);
    const l = locate(this.root, act);
    if (l) return l.span;
    return this.nearest(act);
  }

  /** The key's span if written, else as `span`. */
  keySpan(path: string | Segment[]): Span {
    const act = this.actual(path);
    const l = locate(this.root, act);
    if (l) return l.keySpan ?? headSpan(l);
    return this.nearest(act);
  }

  private nearest(act: readonly Segment[]): Span {
    const d = locateDeepest(this.root, act);
    if (d && d.depth > 0) return d.located.keySpan ?? headSpan(d.located);
    // nothing written on the way: the first line of the document
    const s = this.root?.span.start ?? 0;
    return { start: s, end: s };
  }

  /** Length of a list value (0 when missing). */
  len(path: string | Segment[]): number {
    const v = this.get(path);
    return Array.isArray(v) ? v.length : 0;
  }

  /** Dotted path for messages (the document path, so stages show up). */
  where(path: string | Segment[]): string {
    return formatPath(this.actual(path));
  }
}

/** For a list item (no key): its first key, so a finding marks one line, not the whole item. */
function headSpan(l: Located): Span {
  const n = l.node;
  if (!l.viaAlias && n.kind === 'map' && n.entries.length) {
    const e = n.entries[0];
    return { start: e.keySpan.start + l.shift + e.shift, end: e.keySpan.end + l.shift + e.shift };
  }
  return l.span;
}

/** Views to run Trinity rules on: the global config, or one per stage when stages exist. */
export function trinityViews(kind: ConfigKind, root: VNode | undefined, resolution: Resolution, prefix: Segment[] = []): ConfigView[] {
  const base = new ConfigView(kind, root, resolution, prefix);
  const stages = base.get('stages');
  if (!Array.isArray(stages) || stages.length === 0) return [base];
  return stages.map((s, index) => {
    const st = (s && typeof s === 'object' ? s : {}) as Record<string, unknown>;
    const sections = new Set(Object.keys(st).filter((k) => STAGE_SECTIONS.has(k) && st[k] !== null && st[k] !== undefined));
    return new ConfigView(kind, root, resolution, prefix, {
      index,
      name: typeof st.stage_name === 'string' ? st.stage_name : `#${index}`,
      sections,
      modeSet: st.mode !== null && st.mode !== undefined,
    });
  });
}
