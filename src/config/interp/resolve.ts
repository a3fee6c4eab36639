// Resolves every `${...}` in a document the way OmegaConf would when Trinity calls
// `OmegaConf.to_object`: references read the merged config (the YAML over the schema's
// defaults), `oc.env` reads the environment (process env plus `agentrl.config.env`), and the
// result is converted to the field's type. Rules then see resolved values; what cannot be
// resolved here (an unset env var) is "unknown" and rules skip it.
import type { ConfigKind } from '../../feature-api/config-checker';
import { FindingSink } from '../core/findings';
import { l10n } from '../core/l10n-text';
import { coerce, type EnumSpec, type FieldType } from '../schema/coerce';
import { schemaAt } from '../schema/schemas';
import { resolvePlain } from '../yaml/scalars';
import { formatPath, hasInterpolation, locate, walk, type Segment, type Span, type VNode } from '../yaml/tree';
import { parseInterpolations, type Interp, type Part } from './grammar';
import { valueText } from '../../base/value-text';

export const UNKNOWN: unique symbol = Symbol('unknown');
/** Any value, UNKNOWN included (a value the checker cannot know). */
export type Value = unknown;

export interface InterpSite {
  path: Segment[];
  /** Absolute span of the scalar. */
  span: Span;
  /** The scalar text. */
  source: string;
  parts: Part[];
  value: Value;
}

export interface Resolution {
  sites: InterpSite[];
  /** Resolved value per interpolated path (key: formatted path). */
  values: Map<string, Value>;
  /** Interpolated paths whose value cannot be resolved here (the `resolved` document keeps their text). */
  unknown: Set<string>;
  /** The document value with interpolations replaced (structurally shared). */
  resolved: unknown;
}

/** Looks up an environment variable (the setting over the process env). */
export type Env = (name: string) => string | undefined;

const KNOWN_RESOLVERS = new Set(['oc.env', 'oc.select', 'oc.decode', 'oc.deprecated', 'oc.create', 'oc.dict.keys', 'oc.dict.values']);
/** Resolvers Hydra registers (ASTuner/AgentJet compose with Hydra). */
const HYDRA_RESOLVERS = new Set(['hydra', 'now']);

function fieldType(kind: ConfigKind, path: Segment[]): { type: FieldType; nullable: boolean; en?: EnumSpec } | undefined {
  const s = schemaAt(kind, path);
  const py = s?.['x-py'];
  if (!s || !py) return undefined;
  const nullable = !!s.anyOf?.some((a) => a.type === 'null') || s.default === null;
  return { type: py, nullable, en: s['x-enum'] };
}

export function resolveInterpolations(opts: { kind: ConfigKind; root: VNode | undefined; text: string; env: Env; sink: FindingSink }): Resolution {
  const { root, sink } = opts;
  const sites: InterpSite[] = [];
  if (!root) return { sites, values: new Map(), unknown: new Set(), resolved: undefined };
  walk(root, (node, path, shift) => {
    if (!hasInterpolation(node)) return false;
    if (node.kind === 'scalar' && node.py === 'str' && typeof node.value === 'string' && node.value.includes('${')) {
      let parsed = parsedMemo.get(node);
      if (!parsed) {
        parsed = parseInterpolations(node.value);
        parsedMemo.set(node, parsed);
      }
      const span = { start: node.span.start + shift, end: node.span.end + shift };
      if (parsed.error) {
        sink.add({
          severity: 'error',
          code: 'interp.syntax',
          message: l10n.t('Malformed interpolation: {0}.', parsed.error.message),
          path: formatPath(path),
          span,
        });
        return;
      }
      sites.push({ path, span, source: node.value, parts: parsed.parts, value: UNKNOWN });
    }
  });
  if (!sites.length) return { sites, values: new Map(), unknown: new Set(), resolved: root.kind === 'alias' ? undefined : root.value };
  const r = new Resolver(opts.kind, root, opts.text, opts.env, sink, sites);
  for (const site of sites) r.resolveSite(site);
  const unknown = new Set([...r.values].filter(([, v]) => v === UNKNOWN).map(([k]) => k));
  return { sites, values: r.values, unknown, resolved: substitute(root, sites) };
}

/** Parsed interpolations per scalar node (cached chunks keep theirs). */
const parsedMemo = new WeakMap<VNode, ReturnType<typeof parseInterpolations>>();

/** Evaluates interpolation sites, each once, with cycle detection. */
class Resolver {
  readonly values = new Map<string, Value>();
  private readonly byPath: Map<string, InterpSite>;
  private readonly resolving = new Set<string>();

  constructor(
    private readonly kind: ConfigKind,
    private readonly root: VNode,
    private readonly text: string,
    private readonly env: Env,
    private readonly sink: FindingSink,
    sites: InterpSite[],
  ) {
    this.byPath = new Map(sites.map((s) => [formatPath(s.path), s]));
  }

  /** Where an interpolation sits in the document (for findings). */
  private spanOf(site: InterpSite, i: Interp): Span {
    const at = this.text.indexOf(site.source.slice(i.start, i.end), site.span.start);
    return at >= 0 && at < site.span.end ? { start: at, end: at + (i.end - i.start) } : site.span;
  }

  /** Value of the config at `path` as OmegaConf sees it (YAML, else schema default). */
  private valueAt(path: Segment[], site: InterpSite, i: Interp): Value {
    const key = formatPath(path);
    const s = this.byPath.get(key);
    if (s) return this.resolveSite(s);
    const loc = locate(this.root, path);
    if (loc) return loc.node.kind === 'alias' ? (loc.node.target ? (loc.node.target as { value?: unknown }).value : null) : loc.node.value;
    const sch = schemaAt(this.kind, path);
    if (sch && 'default' in sch) return sch.default;
    if (sch) return null;
    this.sink.add({
      severity: 'error',
      code: 'interp.missing-key',
      message: l10n.t('Interpolation key `{0}` does not exist in the config.', key),
      path: formatPath(site.path),
      span: this.spanOf(site, i),
    });
    return UNKNOWN;
  }

  /** A part list: one interpolation keeps its type; text around makes a string. */
  private evalParts(parts: Part[], site: InterpSite, whole: boolean): Value {
    if (parts.length === 1 && parts[0].kind !== 'text' && whole) return this.evalInterp(parts[0], site);
    let out = '';
    for (const p of parts) {
      if (p.kind === 'text') out += p.text;
      else {
        const v = this.evalInterp(p, site);
        if (v === UNKNOWN) return UNKNOWN;
        out += v === null ? 'None' : typeof v === 'boolean' ? (v ? 'True' : 'False') : valueText(v);
      }
    }
    return out;
  }

  private evalInterp(i: Interp, site: InterpSite): Value {
    if (i.kind === 'ref') {
      const segs: Segment[] = [];
      for (const k of i.key) {
        const v = this.evalParts(k, site, false);
        if (v === UNKNOWN) return UNKNOWN;
        segs.push(/^\d+$/.test(String(v)) && kindAt(this.root, [...base(site, i.up), ...segs]) === 'seq' ? Number(v) : String(v));
      }
      return this.valueAt([...base(site, i.up), ...segs], site, i);
    }
    return this.callResolver(
      i,
      site,
      i.args.map((a) => this.evalParts(a, site, false)),
    );
  }

  private callResolver(i: Interp & { kind: 'resolver' }, site: InterpSite, args: Value[]): Value {
    switch (i.name) {
      case 'oc.env': {
        const name = args[0];
        if (name === UNKNOWN) return UNKNOWN;
        const v = this.env(String(name));
        if (v !== undefined) return v;
        if (i.args.length > 1) {
          const d = args[1];
          if (d === UNKNOWN) return UNKNOWN;
          return !i.quoted[1] && d === 'null' ? null : d;
        }
        this.sink.add({
          severity: 'info',
          code: 'interp.env-unset',
          message: l10n.t(
            'Environment variable `{0}` is not set here and has no default; Trinity fails unless it is set where it runs (or add it to `agentrl.config.env`).',
            String(name),
          ),
          path: formatPath(site.path),
          span: this.spanOf(site, i),
        });
        return UNKNOWN;
      }
      case 'oc.select':
      case 'oc.deprecated': {
        const key = args[0];
        if (key === UNKNOWN) return UNKNOWN;
        const k = String(key);
        const up = /^\.+/.exec(k)?.[0].length ?? 0;
        const path = [...base(site, up), ...k.slice(up).split('.').filter(Boolean)];
        if (locate(this.root, path) || schemaAt(this.kind, path)) return this.valueAt(path, site, i);
        return i.args.length > 1 ? args[1] : null;
      }
      case 'oc.decode': {
        const v = args[0];
        return v === UNKNOWN || typeof v !== 'string' ? v : resolvePlain(v.trim()).value;
      }
      default:
        if (!KNOWN_RESOLVERS.has(i.name) && !(this.kind !== 'trinity' && HYDRA_RESOLVERS.has(i.name))) {
          this.sink.add({
            severity: 'warning',
            code: 'interp.unknown-resolver',
            message: l10n.t('Unknown resolver `{0}`: OmegaConf raises UnsupportedInterpolationType unless the program registers it.', i.name),
            path: formatPath(site.path),
            span: this.spanOf(site, i),
          });
        }
        return UNKNOWN;
    }
  }

  /** Resolves a site once and converts it to the field's type, as OmegaConf does on assignment. */
  resolveSite(site: InterpSite): Value {
    const key = formatPath(site.path);
    if (this.values.has(key)) return this.values.get(key);
    if (this.resolving.has(key)) {
      this.sink.add({ severity: 'error', code: 'interp.cycle', message: l10n.t('Interpolation cycle through `{0}`.', key), path: key, span: site.span });
      this.values.set(key, UNKNOWN);
      return UNKNOWN;
    }
    this.resolving.add(key);
    let v = this.evalParts(site.parts, site, true);
    this.resolving.delete(key);
    const t = fieldType(this.kind, site.path);
    if (v !== UNKNOWN && t) {
      const c = coerce(t.type, t.nullable, v, undefined, t.en);
      if (!c.ok) {
        const soft = this.kind !== 'trinity' && site.path[0] !== 'trinity';
        this.sink.add({
          severity: soft ? 'warning' : 'error',
          code: 'interp.type',
          message: l10n.t('`{0}` resolves to {1}: {2}.', key, JSON.stringify(v), c.reason),
          path: key,
          span: site.span,
        });
        v = UNKNOWN;
      } else v = c.value;
    }
    this.values.set(key, v);
    site.value = v;
    return v;
  }
}

function base(site: InterpSite, up: number): Segment[] {
  if (up === 0) return [];
  return site.path.slice(0, Math.max(0, site.path.length - up));
}

function kindAt(root: VNode | undefined, path: Segment[]): string | undefined {
  const l = locate(root, path);
  return l?.node.kind;
}

/** Copy-on-write replacement of interpolated scalars in the document value. */
function substitute(root: VNode, sites: InterpSite[]): unknown {
  const top = root.kind === 'alias' ? undefined : root.value;
  if (top === undefined || top === null || typeof top !== 'object') return top;
  const copies = new Map<unknown, unknown>();
  const out = clone(top);
  function clone(o: unknown): unknown {
    if (copies.has(o)) return copies.get(o);
    const c: unknown = Array.isArray(o) ? [...(o as unknown[])] : { ...(o as Record<string, unknown>) };
    copies.set(o, c);
    return c;
  }
  for (const s of sites) {
    if (!s.path.length) continue;
    let cur = out as Record<string | number, unknown>;
    let orig = top as Record<string | number, unknown>;
    for (let i = 0; i < s.path.length - 1; i++) {
      const k = s.path[i];
      const child = orig?.[k];
      if (!child || typeof child !== 'object') break;
      const copy = clone(child) as Record<string | number, unknown>;
      cur[k] = copy;
      cur = copy;
      orig = child as Record<string | number, unknown>;
    }
    const last = s.path[s.path.length - 1];
    if (cur && typeof cur === 'object') cur[last] = s.value === UNKNOWN ? s.source : s.value;
  }
  return out;
}
