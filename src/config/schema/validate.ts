// Structural validation with ajv over schemas/*.schema.json, mapped back to exact ranges.
//
// The published schemas describe scalars as `anyOf` alternatives so plain JSON-schema tools
// (yaml-language-server) understand them. For our own validation we compile a derived copy
// where every scalar is checked by one keyword, `x-py`, implementing OmegaConf's conversion
// on the Python type of the YAML scalar (which only the parsed tree knows: `2.0` is a float
// even though JSON sees the number 2). Nullable sections become `if null / else $ref`, so
// errors come from the branch that applies instead of every alternative.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { ConfigKind } from '../../feature-api/config-checker';
import { FindingSink, suggest, type Finding } from '../core/findings';
import { l10n, type Text, verbatim } from '../core/l10n-text';
import { childNode, deref, formatPath, locate, pointerToPath, type Segment, type VNode } from '../yaml/tree';
import { coerce, type EnumSpec, type FieldType } from './coerce';
import { schemaAt, SCHEMAS, type SchemaNode } from './schemas';
import { compareVersions } from '../core/versions';
import { addMemoKeyword, MEMO_KEYWORD, validateMemo } from './memo';
import { renamedKey } from './version-findings';

interface PySpec {
  type: FieldType;
  nullable: boolean;
  enum?: EnumSpec;
}

/** Derived schema for ajv (see file comment). `$ref`s become absolute (wrapped sections are
 *  compiled on their own, see memo.ts); `base` is the `$id` they are relative to. */
function derive(node: unknown, base = ''): unknown {
  if (Array.isArray(node)) return node.map((x) => derive(x, base));
  if (!node || typeof node !== 'object') return node;
  const n = node as SchemaNode;
  if (typeof n.$id === 'string') base = n.$id;
  if (n['x-py']) {
    const nullable = !!n.anyOf?.some((a) => a.type === 'null') || (Array.isArray(n.type) && n.type.includes('null'));
    const spec: PySpec = { type: n['x-py'], nullable };
    if (n['x-enum']) spec.enum = n['x-enum'];
    return { 'x-py': spec };
  }
  if (n['x-nullable'] && n.anyOf) {
    const inner = n.anyOf.find((a) => a.type !== 'null');
    return { if: { type: 'null' }, else: derive(inner, base) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(n)) {
    if (k.startsWith('x-') && k !== 'x-warnUnknown' && k !== 'x-class') continue;
    if (k === 'description' || k === 'default' || k === 'title') continue;
    if (k === '$ref' && typeof v === 'string') out[k] = base ? new URL(v, base).href : v;
    else
      out[k] =
        k === 'properties' || k === 'definitions' ? Object.fromEntries(Object.entries(v as object).map(([pk, pv]) => [pk, derive(pv, base)])) : derive(v, base);
  }
  if (!n.properties) return out;
  // an object section: validated once per value object (memo.ts); the document's identity
  // and definitions stay outside the wrapper
  const { $schema, $id, definitions, ...section } = out;
  return { ...($schema ? { $schema } : {}), ...($id ? { $id } : {}), ...(definitions ? { definitions } : {}), [MEMO_KEYWORD]: section };
}

let ajv: Ajv | undefined;
const compiled = new Map<ConfigKind, ValidateFunction>();

function pyOf(data: unknown, parent: unknown, prop: string | number | undefined) {
  if (parent && typeof parent === 'object' && prop !== undefined) {
    const n = childNode(parent, prop);
    if (n) {
      const d = deref(n, 0).node;
      if (d.kind === 'scalar') return d.py;
    }
  }
  return undefined;
}

function instance(): Ajv {
  if (ajv) return ajv;
  const a = new Ajv({ allErrors: true, verbose: true, strict: false, validateSchema: false, addUsedSchema: false });
  a.addKeyword({
    keyword: 'x-py',
    schemaType: 'object',
    errors: true,
    validate: function check(spec: PySpec, data: unknown, _ps: unknown, cxt?: { parentData: unknown; parentDataProperty: string | number }) {
      const r = coerce(spec.type, spec.nullable, data, pyOf(data, cxt?.parentData, cxt?.parentDataProperty), spec.enum);
      if (r.ok) return true;
      (check as unknown as { errors: Partial<ErrorObject>[] }).errors = [
        { keyword: 'x-py', message: r.reason, params: { type: spec.type, reason: r.reason, enum: spec.enum } },
      ];
      return false;
    },
  });
  a.addKeyword({
    keyword: 'x-warnUnknown',
    schemaType: 'boolean',
    errors: true,
    validate: function check(on: boolean, data: unknown, parentSchema?: SchemaNode) {
      if (!on || !data || typeof data !== 'object' || Array.isArray(data)) return true;
      const known = parentSchema?.properties ?? {};
      const extra = Object.keys(data).filter((k) => !(k in known));
      if (!extra.length) return true;
      (check as unknown as { errors: Partial<ErrorObject>[] }).errors = extra.map((k) => ({
        keyword: 'x-warnUnknown',
        message: 'unknown key',
        params: { additionalProperty: k, known: Object.keys(known) },
      }));
      return false;
    },
  });
  a.addKeyword({ keyword: 'x-class', schemaType: 'string' });
  addMemoKeyword(a);
  a.addSchema(derive(SCHEMAS.trinity) as object);
  ajv = a;
  return a;
}

function validatorFor(kind: ConfigKind): ValidateFunction {
  let v = compiled.get(kind);
  if (!v) {
    const a = instance();
    v = kind === 'trinity' ? a.getSchema(SCHEMAS.trinity.$id)! : a.compile(derive(SCHEMAS[kind]) as object);
    compiled.set(kind, v);
  }
  return v;
}

export interface SchemaContext {
  kind: ConfigKind;
  root: VNode | undefined;
  /** Target Trinity release for version-aware key checks. */
  trinityVersion: string;
  sink: FindingSink;
}

const describeSection = (path: Segment[]): Text => (path.length ? verbatim(`\`${formatPath(path)}\``) : l10n.t('the top level'));

/** Runs the kind's schema over the document and reports findings. */
export function validateSchema(ctx: SchemaContext): void {
  if (!ctx.root) return;
  const validate = validatorFor(ctx.kind);
  const data = deref(ctx.root, 0).node;
  const errors = validateMemo(validate, data.kind === 'alias' ? null : data.value);
  // one finding per instance path, most specific first
  const seenPaths = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'if') continue;
    const path = pointerToPath(e.instancePath);
    const agentSoft = ctx.kind !== 'trinity' && path[0] !== 'trinity';
    if (e.keyword === 'additionalProperties' || e.keyword === 'x-warnUnknown') {
      const p = e.params as { additionalProperty: string; known?: string[] };
      const parent = e.parentSchema ?? (p.known ? { properties: Object.fromEntries(p.known.map((k) => [k, {}])) } : undefined);
      unknownKey(ctx, path, String(p.additionalProperty), parent, e.keyword === 'x-warnUnknown');
      continue;
    }
    const key = formatPath(path);
    if (seenPaths.has(key)) continue;
    seenPaths.add(key);
    const loc = locate(ctx.root, path);
    if (!loc) continue;
    const where = path.length ? formatPath(path) : '(document)';
    if (e.keyword === 'x-py') {
      const reason = String((e.params as { reason?: string }).reason ?? e.message);
      ctx.sink.add({
        severity: agentSoft ? 'warning' : 'error',
        code: 'schema.type',
        message: l10n.t('`{0}`: {1}.', where, reasonText(reason)),
        path: key,
        span: loc.span,
        fixes: enumFixes(e, loc.span),
      });
    } else if (e.keyword === 'type') {
      const want = String((e.params as { type: string }).type);
      const wanted = want.includes('object') ? l10n.t('a mapping') : want.includes('array') ? l10n.t('a list') : verbatim(want);
      const got =
        e.data === null
          ? 'None'
          : Array.isArray(e.data)
            ? 'a list'
            : typeof e.data === 'object'
              ? 'a mapping'
              : typeof e.data === 'string'
                ? 'a string'
                : `${typeof e.data}`;
      ctx.sink.add({
        severity: agentSoft ? 'warning' : 'error',
        code: 'schema.type',
        message: l10n.t('`{0}` must be {1}, got {2}.', where, wanted, got),
        path: key,
        span: loc.span,
      });
    } else {
      ctx.sink.add({
        severity: agentSoft ? 'warning' : 'error',
        code: 'schema.invalid',
        message: l10n.t('`{0}`: {1}.', where, e.message),
        path: key,
        span: loc.span,
      });
    }
  }
}

/** coerce.ts's English reasons, as l10n text for the shapes it produces. */
function reasonText(reason: string): Text {
  let m = /^expected (an?) (\w+), got (\w+) (.*)$/.exec(reason);
  if (m) return m[1] === 'a' ? l10n.t('expected a {0}, got {1} {2}', m[2], m[3], m[4]) : l10n.t('expected an {0}, got {1} {2}', m[2], m[3], m[4]);
  if (reason === 'None is not allowed here: the field is not Optional') return l10n.t('None is not allowed here: the field is not Optional');
  m = /^invalid value '(.*)', expected one of (.*)$/.exec(reason);
  if (m) return l10n.t("invalid value '{0}', expected one of {1}", m[1], m[2]);
  return verbatim(reason);
}

function enumFixes(e: ErrorObject, span: { start: number; end: number }): Finding['fixes'] {
  const en = (e.params as { enum?: EnumSpec }).enum;
  if (!en || typeof e.data !== 'string') return undefined;
  return suggest(e.data, en.values, 2).map((v, i) => ({ title: l10n.t("Change to '{0}'", v), edits: [{ span, newText: v }], preferred: i === 0 }));
}

function unknownKey(ctx: SchemaContext, parentPath: Segment[], key: string, parentSchema: SchemaNode | undefined, soft: boolean): void {
  const path = [...parentPath, key];
  const loc = locate(ctx.root, path);
  if (!loc) return;
  const span = loc.keySpan ?? loc.span;
  const cls = parentSchema?.['x-class'];
  const where = formatPath(path);
  if (renamedKey(ctx, parentPath, key, cls, soft, span)) return;
  const lenient = !soft ? lenientAncestor(ctx, parentPath) : undefined;
  if (lenient) {
    ctx.sink.add({
      severity: 'warning',
      code: 'schema.unknown-key-dropped',
      message: l10n.t(
        'Unknown key `{0}` in {1}{2}: veRL does not read it. In Trinity-RFT {3} the validator of {4} drops it silently and that of {5} rejects it.',
        key,
        describeSection(parentPath),
        cls ? l10n.t(' ({0})', cls) : verbatim(''),
        lenient.since,
        lenient.ignoredBy,
        lenient.rejectedBy,
      ),
      path: where,
      span,
      fixes: suggest(key, keysOf(parentSchema)).map((c, i) => ({ title: l10n.t('Change to `{0}`', c), edits: [{ span, newText: c }], preferred: i === 0 })),
    });
    return;
  }
  const close = suggest(key, keysOf(parentSchema));
  const fixes: Finding['fixes'] = close.map((c, i) => ({ title: l10n.t('Change to `{0}`', c), edits: [{ span, newText: c }], preferred: i === 0 }));
  const hint = close.length ? l10n.t(' Did you mean `{0}`?', close[0]) : verbatim('');
  ctx.sink.add({
    severity: soft ? 'warning' : 'error',
    code: soft ? 'schema.unknown-key-ignored' : 'schema.unknown-key',
    message: soft
      ? l10n.t('Unknown key `{0}` in {1}: no ASTuner/AgentJet code reads it.{2}', key, describeSection(parentPath), hint)
      : l10n.t(
          'Unknown key `{0}` in {1}{2}: Trinity-RFT rejects unknown keys.{3}',
          key,
          describeSection(parentPath),
          cls ? l10n.t(' ({0})', cls) : verbatim(''),
          hint,
        ),
    path: where,
    span,
    fixes,
  });
}

/** A section above `path` whose unknown keys the release in force may drop instead of rejecting
 *  (`x-unknown-ignored-since`: stored validators of that release disagree). */
function lenientAncestor(ctx: SchemaContext, path: Segment[]): { since: string; ignoredBy: string; rejectedBy: string } | undefined {
  if (ctx.kind !== 'trinity') return undefined;
  for (let i = 1; i <= path.length; i++) {
    const node = schemaAt(ctx.kind, path.slice(0, i));
    const since = node?.['x-unknown-ignored-since'];
    if (since && compareVersions(ctx.trinityVersion, since) >= 0)
      return { since, ignoredBy: String(node['x-unknown-ignored-by']), rejectedBy: String(node['x-unknown-rejected-by']) };
  }
  return undefined;
}

const propertyNames = new WeakMap<object, string[]>();
const NO_KEYS: string[] = [];

/** A section's key names (one array per schema, so "did you mean" answers are remembered). */
function keysOf(schema: SchemaNode | undefined): string[] {
  const props = schema?.properties;
  if (!props) return NO_KEYS;
  let keys = propertyNames.get(props);
  if (!keys) {
    keys = Object.keys(props);
    propertyNames.set(props, keys);
  }
  return keys;
}
