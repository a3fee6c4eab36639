// Our AgentJet schema (schemas/ajet.schema.json) against upstream's own files, key by key:
// ajet_config_schema.py @ 01c63366 (dataclasses read with Python's `ast`: type and nesting) and
// ajet_default.yaml @ 01a9a0df (the defaults the launcher merges: every key and its default).
// A key upstream has and we lack fails naming the file and line; a key we have must be in one of
// upstream's stored files — those two, or the `ajet:` section of an AgentJet config upstream
// ships (../shared/corpus/ajet: tutorials and default layers of an older version) — or carry a
// recorded reason (`x-upstream-elsewhere`, a legacy key). Skipped without ../shared.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { AGENT_LEGACY } from '../../../../src/config/facts/renames';
import type { SchemaNode } from '../../../../src/config/facts/schema-node';
import { resolve, SCHEMAS } from '../../../../src/config/schema/schemas';
import { hasShared, sharedDir } from '../../../harness/paths';
import { describeShape, sameValue, shapeOf, type Shape, type UpFacts, upstreamFacts, where } from '../facts/upstream-facts';

const skip = !hasShared && 'needs ../shared/upstream';
const dir = path.join(sharedDir, 'upstream', 'trinity-rft-0.6-files');
const SCHEMA_PY = path.join(dir, 'modelscope-AgentJet@01c63366', 'ajet', 'default_config', 'ajet_config_schema.py');
const DEFAULT_YAML = path.join(dir, 'modelscope-AgentJet@01a9a0df', 'ajet', 'default_config', 'ajet_default.yaml');

const ROOT = SCHEMAS.ajet;
const ajetRoot = () => resolve(ROOT.properties!.ajet, ROOT)!;

/** Our node at a path below `ajet:`; `free` when a free mapping above it takes any key. */
function ours(p: string[], root: SchemaNode = ajetRoot()): { node?: SchemaNode; free: boolean } {
  let cur: SchemaNode | undefined = root;
  for (const seg of p) {
    if (!cur) return { free: false };
    if (cur['x-free'] || (cur.additionalProperties === true && !cur.properties?.[seg] && !cur['x-warnUnknown'])) return { free: true };
    const next: SchemaNode | undefined = cur.properties?.[seg];
    if (!next) return { free: false };
    cur = resolve(next, ROOT);
  }
  return { node: cur, free: false };
}

/** Every key path below `root` of a YAML file, with its line and value node. */
function yamlKeys(file: string, rootKey = 'ajet'): { path: string[]; line: number; value: YamlNode | null }[] {
  const lc = new LineCounter();
  const docNode = parseDocument(fs.readFileSync(file, 'utf8'), { lineCounter: lc }).contents;
  const out: { path: string[]; line: number; value: YamlNode | null }[] = [];
  const walk = (n: unknown, p: string[]) => {
    if (!isMap(n)) return;
    for (const item of n.items) {
      const k = isScalar(item.key) ? String(item.key.value) : String(item.key);
      const key = item.key as YamlNode;
      out.push({ path: [...p, k], line: lc.linePos(key.range?.[0] ?? 0).line, value: (item.value as YamlNode) ?? null });
      walk(item.value, [...p, k]);
    }
  };
  if (isMap(docNode)) {
    const root = docNode.items.find((i) => isScalar(i.key) && i.key.value === rootKey);
    if (root) walk(root.value, []);
  }
  return out;
}

/** The dataclass fields below AjetDefaultConfig, as key paths with their shape. */
function schemaPyKeys(facts: UpFacts): { path: string[]; shape: Shape; line: number; file: string }[] {
  const out: { path: string[]; shape: Shape; line: number; file: string }[] = [];
  const walk = (cls: string, p: string[]) => {
    for (const f of facts.classes[cls].fields) {
      const shape = shapeOf(f.type, facts);
      out.push({ path: [...p, f.name], shape, line: f.line, file: f.file });
      if (shape.kind === 'class') walk(shape.name!, [...p, f.name]);
    }
  };
  walk('AjetDefaultConfig', []);
  return out;
}

function ourKind(n: SchemaNode): Shape['kind'] {
  const py = n['x-py'];
  if (py) return py === 'enum' ? 'str' : py;
  if (n.type === 'array' || n.anyOf?.some((a) => a.type === 'array')) return 'list';
  if (n.properties) return 'class';
  if (n.type === 'object' || n['x-free']) return 'map';
  return 'any';
}

/** Keys our schema has below `ajet:` (not below free mappings). */
function ourKeys(node: SchemaNode = ajetRoot(), p: string[] = []): { path: string[]; node: SchemaNode }[] {
  const out: { path: string[]; node: SchemaNode }[] = [];
  for (const [k, raw] of Object.entries(node.properties ?? {})) {
    const n = resolve(raw, ROOT)!;
    out.push({ path: [...p, k], node: n });
    if (!n['x-free']) out.push(...ourKeys(n, [...p, k]));
  }
  return out;
}

function corpusAjetKeys(): Set<string> {
  const keys = new Set<string>();
  const walk = (d: string): string[] =>
    fs
      .readdirSync(d, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : /\.ya?ml$/.test(e.name) ? [path.join(d, e.name)] : []));
  for (const f of walk(path.join(sharedDir, 'corpus', 'ajet'))) for (const k of yamlKeys(f)) keys.add(k.path.join('.'));
  return keys;
}

/** Every mismatch between upstream's AgentJet files and our schema. */
function compare(facts: UpFacts, defaults: string): string[] {
  const problems: string[] = [];
  for (const k of schemaPyKeys(facts)) {
    const o = ours(k.path);
    if (o.free) continue;
    if (!o.node) {
      problems.push(`${where(k.file, k.line)}: upstream has ajet.${k.path.join('.')} (${describeShape(k.shape)}); ours lacks it`);
      continue;
    }
    const kind = ourKind(o.node);
    const want = k.shape.kind === 'enum' ? 'str' : k.shape.kind;
    if (want !== 'any' && kind !== 'any' && want !== kind && !(want === 'map' && kind === 'class'))
      problems.push(`${where(k.file, k.line)}: ajet.${k.path.join('.')}: upstream ${describeShape(k.shape)}, ours ${kind}`);
  }
  for (const k of yamlKeys(defaults)) {
    const o = ours(k.path);
    if (o.free) continue;
    if (!o.node) {
      problems.push(`${where(defaults, k.line)}: upstream has ajet.${k.path.join('.')}; ours lacks it`);
      continue;
    }
    if (isScalar(k.value) || isSeq(k.value)) {
      const value: unknown = k.value.toJSON();
      if (!sameValue(value, o.node.default))
        problems.push(
          `${where(defaults, k.line)}: ajet.${k.path.join('.')} default: upstream ${JSON.stringify(value)}, ours ${JSON.stringify(o.node.default)}`,
        );
    }
  }
  const theirs = new Set([...schemaPyKeys(facts).map((k) => k.path.join('.')), ...yamlKeys(defaults).map((k) => k.path.join('.')), ...corpusAjetKeys()]);
  const legacy = new Set(AGENT_LEGACY.map((l) => l.path));
  for (const k of ourKeys()) {
    const key = k.path.join('.');
    if (theirs.has(key) || legacy.has(key) || k.node['x-upstream-elsewhere']) continue;
    problems.push(
      `schemas/ajet.schema.json: ours has ajet.${key}; no stored AgentJet file has it (${path.basename(SCHEMA_PY)}, ${path.basename(DEFAULT_YAML)}, ../shared/corpus/ajet)`,
    );
  }
  return problems;
}

test("AgentJet: every key of ajet_config_schema.py and ajet_default.yaml, with type and default, is ours, and ours are upstream's", { skip }, () => {
  const problems = compare(upstreamFacts([SCHEMA_PY]), DEFAULT_YAML);
  assert.deepEqual(problems, []);
});

test('AgentJet mutants: a key added to a copy of ajet_default.yaml, a field added to a copy of ajet_config_schema.py, a default changed', { skip }, (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-ajet-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const yamlCopy = path.join(tmp, 'ajet_default.yaml');
  const text = fs.readFileSync(DEFAULT_YAML, 'utf8');
  const anchor = '    loss_extra_scale_ratio: 1.0\n';
  assert.ok(text.includes(anchor) && text.includes('    val_pass_n: 4\n'));
  fs.writeFileSync(yamlCopy, text.replace(anchor, `${anchor}    loss_extra_shift: 0.0\n`).replace('    val_pass_n: 4\n', '    val_pass_n: 8\n'));
  const pyCopy = path.join(tmp, 'ajet_config_schema.py');
  const py = fs.readFileSync(SCHEMA_PY, 'utf8');
  const pyAnchor = '    lr: float = 1e-6\n';
  assert.ok(py.includes(pyAnchor));
  fs.writeFileSync(pyCopy, py.replace(pyAnchor, `${pyAnchor}    warmup_epochs: int = 0\n`));
  const lineIn = (s: string, needle: string) => s.slice(0, s.indexOf(needle)).split('\n').length;
  const found = compare(upstreamFacts([pyCopy]), yamlCopy).map((p) => p.replace(tmp, '<tmp>'));
  assert.deepEqual(
    found.sort(),
    [
      `<tmp>/ajet_config_schema.py:${lineIn(py, pyAnchor) + 1}: upstream has ajet.trainer_common.optim.warmup_epochs (int); ours lacks it`,
      `<tmp>/ajet_default.yaml:${lineIn(text, anchor) + 1}: upstream has ajet.trainer_common.loss_extra_shift; ours lacks it`,
      `<tmp>/ajet_default.yaml:${lineIn(text, '    val_pass_n: 4\n')}: ajet.trainer_common.val_pass_n default: upstream 8, ours 4`,
    ].sort(),
  );
});
