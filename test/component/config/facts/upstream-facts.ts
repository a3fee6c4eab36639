// Upstream's dataclasses, enums and registries as data (upstream_facts.py reads them with
// Python's `ast`, nothing imported), and their comparison with our facts: field by field, with
// type, nullability, default and nesting. Each mismatch is one line naming the upstream file
// and line, so a failing test says exactly what to add or remove.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot, sharedDir } from '../../../harness/paths';

export type UpDefault = { literal: unknown } | { enum: string; member: string } | { factory: string; expr?: string } | { required: true } | { expr: string };

export interface UpField {
  name: string;
  type: string;
  default: UpDefault;
  line: number;
  file: string;
}

export interface UpClass {
  file: string;
  line: number;
  bases: string[];
  fields: UpField[];
}

export interface UpEnum {
  file: string;
  line: number;
  values: { member: string; value: unknown; line: number }[];
  /** `name_aliases` of the enum's metaclass (extra names the enum accepts). */
  aliases: Record<string, string>;
  /** A CaseInsensitiveEnum: any casing is accepted. */
  case_insensitive: boolean;
}

export interface UpRegistry {
  var: string;
  file: string;
  line: number;
  names: { name: string; line: number }[];
}

export interface UpFunction {
  file: string;
  line: number;
  /** Each raise, assert and logger.warning with its message (f-string values as `{…}`). */
  checks: { kind: 'raise' | 'assert' | 'warning'; line: number; message: string }[];
}

export interface UpFacts {
  /** Methods of every class, as `Class.method`. */
  functions: Record<string, UpFunction>;
  classes: Record<string, UpClass>;
  enums: Record<string, UpEnum>;
  registries: Record<string, UpRegistry>;
  constants: Record<string, unknown>;
}

const script = path.join(repoRoot, 'test', 'component', 'config', 'facts', 'upstream_facts.py');

/** Runs upstream_facts.py on `files` with the machine's python3. */
export function upstreamFacts(files: readonly string[]): UpFacts {
  const r = spawnSync('python3', [script, ...files], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  if (r.status !== 0) throw new Error(`upstream_facts.py failed (${r.status ?? r.signal}): ${r.stderr || r.error?.message}`);
  return JSON.parse(r.stdout) as UpFacts;
}

/** `../shared/upstream/…/config.py:837`, as a failing test names it. */
export function where(file: string, line: number): string {
  // Only files inside ../shared are named relative to it (a temporary copy may sit beside it).
  const inShared = !path.relative(sharedDir, file).startsWith('..');
  return `${inShared ? path.relative(path.dirname(sharedDir), file) : file}:${line}`;
}

/** A field's shape as both sides can state it. */
export interface Shape {
  kind: 'int' | 'float' | 'bool' | 'str' | 'any' | 'enum' | 'list' | 'map' | 'class' | 'unknown';
  nullable: boolean;
  /** The dataclass (kind class) or enum (kind enum). */
  name?: string;
  /** Items of a list, values of a map. */
  item?: Shape;
}

/** Splits `A, B[C, D]` at top-level commas. */
function splitArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '[') depth++;
    if (c === ']') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** The shape of a Python annotation (`Optional[List[str]]`, `str | None`, a dataclass name…). */
export function shapeOf(annotation: string, facts: UpFacts): Shape {
  let t = annotation.trim().replace(/^["']|["']$/g, '');
  let nullable = false;
  const union = splitTopLevel(t, '|');
  if (union.length > 1) {
    const rest = union.filter((u) => u !== 'None');
    nullable = rest.length < union.length;
    t = rest.join(' | ');
  }
  const m = /^(?:typing\.)?(\w+)\[(.*)\]$/.exec(t);
  if (m && (m[1] === 'Optional' || m[1] === 'Union')) {
    const args = splitArgs(m[2]).filter((a) => a !== 'None');
    const inner = shapeOf(args.join(' | '), facts);
    return { ...inner, nullable: true };
  }
  if (m && /^(List|list|Tuple|tuple|Set|set)$/.test(m[1])) return { kind: 'list', nullable, item: shapeOf(splitArgs(m[2])[0], facts) };
  if (m && /^(Dict|dict|Mapping)$/.test(m[1])) return { kind: 'map', nullable, item: shapeOf(splitArgs(m[2])[1] ?? 'Any', facts) };
  if (/^(List|list)$/.test(t)) return { kind: 'list', nullable, item: { kind: 'any', nullable: true } };
  if (/^(Dict|dict)$/.test(t)) return { kind: 'map', nullable, item: { kind: 'any', nullable: true } };
  if (t === 'Any' || t === 'object') return { kind: 'any', nullable: true };
  if (t === 'int' || t === 'float' || t === 'bool' || t === 'str') return { kind: t, nullable };
  if (facts.enums[t]) return { kind: 'enum', nullable, name: t };
  if (facts.classes[t]) return { kind: 'class', nullable, name: t };
  return { kind: 'unknown', nullable, name: t };
}

function splitTopLevel(s: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '[') depth++;
    if (c === ']') depth--;
    if (c === sep && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  out.push(cur.trim());
  return out;
}

export function describeShape(s: Shape): string {
  const base =
    s.kind === 'class' || s.kind === 'enum'
      ? `${s.kind} ${s.name}`
      : s.kind === 'list' || s.kind === 'map'
        ? `${s.kind}[${s.item ? describeShape(s.item) : '?'}]`
        : s.kind;
  return s.nullable && s.kind !== 'any' ? `${base} | None` : base;
}

/** The value a default stands for, as plain data (undefined: not comparable, e.g. a factory). */
export function defaultValue(d: UpDefault, facts: UpFacts): { value: unknown } | undefined {
  if ('literal' in d) return { value: d.literal };
  if ('enum' in d) {
    const v = facts.enums[d.enum]?.values.find((x) => x.member === d.member);
    return v ? { value: v.value } : undefined;
  }
  return undefined;
}

/** Equal as config values: numbers by value (`1.0` = `1`), containers deeply. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return sameValue(ka, kb) && ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return a === b;
}
