// Our Trinity-RFT facts against upstream's own source, field by field: every dataclass reachable
// from `Config` (and from veRLConfig, which `trainer.trainer_config` is merged into) in
// Trinity-RFT 0.5.2's tree and in both stored 0.6-era lines of config.py (../shared/upstream,
// read with Python's `ast` by upstream_facts.py, nothing imported), with each field's type,
// nullability, default and nesting; every enum's values; every registry's names. A field
// upstream has and we lack, or we have and upstream lacks, fails naming the upstream file and
// line. Skipped (not passed) without ../shared.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { defaultAt, nullableAt, presentAt, stateAt, TRINITY_LINES } from '../../../src/config/facts/field-at';
import type { RootSchema, SchemaNode } from '../../../src/config/facts/schema-node';
import { NAME_SINCE, REGISTRIES, type RegistryId } from '../../../src/config/names/registries';
import { compareVersions } from '../../../src/config/core/versions';
import { buildTrinitySchema, valueSince } from '../../../src/config/facts/releases';
import { hasShared, sharedDir } from '../../harness/paths';
import { defaultValue, describeShape, sameValue, shapeOf, type Shape, type UpClass, type UpFacts, upstreamFacts, where } from './facts/upstream-facts';

const skip = !hasShared && 'needs ../shared/upstream';
const up = path.join(sharedDir, 'upstream');
const v6 = path.join(up, 'trinity-rft-0.6-files');

interface Target {
  release: string;
  line?: string;
  files: string[];
  /** Registry files of this release (0.6: only those stored). */
  registries: string[];
}

const TARGETS: Target[] = [
  {
    release: '0.5.2',
    files: ['trinity/common/config.py', 'trinity/common/constants.py', 'trinity/trainer/verl/verl_config.py'].map((f) => path.join(up, 'trinity-rft-0.5.2', f)),
    registries: [
      'trinity/algorithm/__init__.py',
      'trinity/common/workflows/__init__.py',
      'trinity/common/rewards/__init__.py',
      'trinity/algorithm/advantage_fn/__init__.py',
      'trinity/algorithm/policy_loss_fn/__init__.py',
      'trinity/algorithm/kl_fn/__init__.py',
      'trinity/algorithm/entropy_loss_fn/__init__.py',
      'trinity/algorithm/sample_strategy/__init__.py',
      'trinity/utils/monitor.py',
      'trinity/buffer/selector/__init__.py',
      'trinity/buffer/storage/__init__.py',
      'trinity/buffer/operators/__init__.py',
    ].map((f) => path.join(up, 'trinity-rft-0.5.2', f)),
  },
  ...(TRINITY_LINES['0.6.0'] ?? []).map((l) => ({
    release: '0.6.0',
    line: l.id,
    files: [
      path.join(v6, l.id, 'trinity/common/config.py'),
      path.join(v6, 'agentscope-ai@ea070931/trinity/common/constants.py'),
      path.join(v6, 'pan-x-c@f3c8dec6/trinity/trainer/verl_legacy/verl_config.py'),
    ],
    registries: [
      'agentscope-ai@1d52c851/trinity/algorithm/__init__.py',
      'pan-x-c@d241e0ef/trinity/common/workflows/__init__.py',
      'agentscope-ai@8b7fce3f/trinity/common/rewards/__init__.py',
    ].map((f) => path.join(v6, f)),
  })),
];

const label = (t: Target) => (t.line ? `${t.release} (${t.line})` : t.release);

/** Upstream classes that are ours under another name, with the reason. */
const SAME_CLASS: Record<string, string> = {};

/** Fields we keep as a free mapping on purpose, with the reason. */
const FREE_ON_PURPOSE: Record<string, string> = {
  'BufferConfig.explorer_output': 'do not set: the explorer writes it; a free mapping so a copied config does not fail on it',
};

/** Where our name for an upstream class lives in the schema's definitions. */
function ourClassName(schema: RootSchema, upName: string, inVerl: boolean): string | undefined {
  const defs = schema.definitions ?? {};
  const name = SAME_CLASS[upName] ?? upName;
  if (inVerl && defs[`verl.${name}`]) return `verl.${name}`;
  return defs[name] ? name : undefined;
}

function deref(schema: RootSchema, node: SchemaNode | undefined): { node: SchemaNode | undefined; ref?: string } {
  if (!node) return { node };
  const ref = node.$ref ?? node.anyOf?.find((a) => a.$ref)?.$ref;
  if (ref) {
    const name = ref.replace(/^.*#\/definitions\//, '');
    return { node: schema.definitions?.[name], ref: name };
  }
  return { node };
}

/** The shape our schema gives a field (its own node, not resolved through $ref). */
function ourShape(schema: RootSchema, node: SchemaNode, release: string): Shape {
  const nullable = nullableAt(node, release);
  const { ref } = deref(schema, stateAt(node, release)?.ref ? { $ref: stateAt(node, release)!.ref } : node);
  if (ref) return { kind: 'class', nullable, name: ref.replace(/^verl\./, '') };
  const py = node['x-py'];
  if (py) return { kind: py === 'enum' ? 'enum' : py, nullable, name: undefined };
  const arr = node.type === 'array' ? node : node.anyOf?.find((a) => a.type === 'array');
  if (arr) return { kind: 'list', nullable, item: arr.items ? ourShape(schema, arr.items, release) : { kind: 'any', nullable: true } };
  const obj = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object')) ? node : node.anyOf?.find((a) => a.type === 'object');
  if (obj || node['x-free']) {
    const ap = obj?.additionalProperties;
    return { kind: 'map', nullable, item: ap && typeof ap === 'object' ? ourShape(schema, ap, release) : { kind: 'any', nullable: true } };
  }
  return { kind: 'any', nullable: true };
}

/** Whether upstream's shape and ours agree (a free `Any` on our side only for `Any` upstream). */
function sameShape(u: Shape, o: Shape, facts: UpFacts, schema: RootSchema, ourNode: SchemaNode, release: string): string | undefined {
  if (u.kind === 'any') return undefined;
  // a class imported from verl itself (MtpConfig, PolicyLossConfig…): not in the stored file,
  // so ours must take any mapping
  if (u.kind === 'unknown')
    return o.kind === 'map' || o.kind === 'any'
      ? undefined
      : `upstream type ${u.name} is imported from elsewhere; ours must be a free mapping, is ${describeShape(o)}`;
  if (u.nullable !== o.nullable) return `nullable: upstream ${u.nullable}, ours ${o.nullable}`;
  if (u.kind === 'enum') {
    if (o.kind !== 'enum') return `upstream enum ${u.name}, ours ${o.kind}`;
    const want = facts.enums[u.name!].values.map((v) => String(v.value)).sort();
    const have = (ourNode['x-enum']?.values ?? [])
      .filter((v) => {
        const since = valueSince(ourNode, v);
        return !since || compareVersions(since, release) <= 0;
      })
      .sort();
    if (!sameValue(want, have)) return `enum ${u.name} values: upstream ${want.join(',')}, ours ${have.join(',')}`;
    const e = facts.enums[u.name!];
    const ourAliases = ourNode['x-enum']?.aliases ?? {};
    if (!sameValue(e.aliases, ourAliases)) return `enum ${u.name} aliases: upstream ${JSON.stringify(e.aliases)}, ours ${JSON.stringify(ourAliases)}`;
    if (e.case_insensitive !== !!ourNode['x-enum']?.caseInsensitive)
      return `enum ${u.name} case-insensitive: upstream ${e.case_insensitive}, ours ${!!ourNode['x-enum']?.caseInsensitive}`;
    return undefined;
  }
  if (u.kind !== o.kind) return `upstream ${describeShape(u)}, ours ${describeShape(o)}`;
  if (u.kind === 'class' && u.name !== o.name && SAME_CLASS[u.name!] !== o.name) return `nested class: upstream ${u.name}, ours ${o.name}`;
  if ((u.kind === 'list' || u.kind === 'map') && u.item && o.item && u.item.kind !== 'any') {
    const inner = sameShape({ ...u.item, nullable: o.item.nullable }, o.item, facts, schema, ourNode, release);
    if (inner) return `items: ${inner}`;
  }
  return undefined;
}

/** Keys of our class that exist at the target, with their nodes (removed keys have none). */
function ourKeys(schema: RootSchema, cls: string, t: Target): Map<string, SchemaNode | undefined> {
  const out = new Map<string, SchemaNode | undefined>();
  for (const [k, node] of Object.entries(schema.definitions?.[cls]?.properties ?? {})) if (presentAt(node, t.release, t.line)) out.set(k, node);
  for (const [k, h] of Object.entries(schema['x-removed-keys']?.[cls] ?? {}))
    if (compareVersions(h.since, t.release) <= 0 && compareVersions(t.release, h.until) <= 0) out.set(k, undefined);
  return out;
}

/** Every mismatch between upstream's classes (from `Config`) and ours at target `t`. */
function compareClasses(facts: UpFacts, schema: RootSchema, t: Target): string[] {
  const problems: string[] = [];
  const queue: [string, string, boolean][] = [['Config', 'Config', false]];
  const seen = new Set<string>();
  while (queue.length) {
    const [upName, ourName, inVerl] = queue.shift()!;
    if (seen.has(upName)) continue;
    seen.add(upName);
    const uc: UpClass = facts.classes[upName];
    const ours = ourKeys(schema, ourName, t);
    const fields = new Map(uc.fields.map((f) => [f.name, f]));
    for (const f of uc.fields) {
      const at = where(f.file, f.line);
      if (!ours.has(f.name)) {
        problems.push(`${at}: upstream has ${upName}.${f.name} (${f.type}); our ${ourName} lacks it at ${label(t)}`);
        continue;
      }
      const node = ours.get(f.name);
      if (!node) continue; // a removed key we still recognise in this release: no node to compare
      const u = shapeOf(f.type, facts);
      const o = ourShape(schema, node, t.release);
      // trainer.trainer_config is `Any` upstream, merged into veRLConfig by the validator
      const special = upName === 'TrainerConfig' && f.name === 'trainer_config';
      const free = FREE_ON_PURPOSE[`${upName}.${f.name}`] && o.kind === 'map';
      if (free) continue;
      const mismatch = special ? undefined : sameShape(u, o, facts, schema, node, t.release);
      if (mismatch) problems.push(`${at}: ${upName}.${f.name}: ${mismatch}`);
      const d = defaultValue(f.default, facts);
      const ourDefault = defaultAt(node, t.release, t.line);
      if (d && !special && u.kind !== 'class' && !sameValue(d.value, ourDefault))
        problems.push(`${at}: ${upName}.${f.name} default: upstream ${JSON.stringify(d.value)}, ours ${JSON.stringify(ourDefault)} at ${label(t)}`);
      // nesting: follow the dataclass a field holds
      const nested = special ? ['veRLConfig'] : [u, u.item].filter((s): s is Shape => !!s && s.kind === 'class').map((s) => s.name!);
      for (const n of nested) {
        const ourNested = ourClassName(schema, n, inVerl || special);
        if (!ourNested) problems.push(`${at}: upstream class ${n} (${where(facts.classes[n].file, facts.classes[n].line)}) has no definition of ours`);
        else queue.push([n, ourNested, inVerl || special]);
      }
    }
    for (const [k, node] of ours) {
      if (fields.has(k)) continue;
      const elsewhere = node?.['x-upstream-elsewhere'];
      if (elsewhere) continue;
      problems.push(`${where(uc.file, uc.line)}: ours has ${ourName}.${k} at ${label(t)}; upstream ${upName} lacks it`);
    }
  }
  return problems;
}

/** 0.6 registry names from stored versions of the registry files other than ../shared's (read
 *  with the index's read_file): each 0.6 registry is the union of its stored versions. */
const OTHER_STORED_VERSIONS: Record<string, { source: string; names: string[] }> = {
  WORKFLOWS: {
    source: 'agentscope-ai/Trinity-RFT@0be2bcc056624663544ec4091503f8eaeb34f0a9 trinity/common/workflows/__init__.py',
    names: ['agentscope_react_workflow', 'rubric_judge_openai_workflow', 'sudoku_workflow', 'intercode_sql_workflow', 'thinking_budget_workflow'],
  },
  REWARD_FUNCTIONS: { source: 'agentscope-ai/Trinity-RFT@cc2405128c5897d65133b9f15bd0b3f625759c5e trinity/common/rewards/__init__.py', names: ['rlcr_reward'] },
};

/** Our registry ids by upstream's registry variable. */
const REGISTRY_OF: Record<string, RegistryId> = Object.fromEntries(Object.entries(REGISTRIES).map(([id, r]) => [r.pyName, id as RegistryId]));

function compareRegistries(facts: UpFacts, t: Target): string[] {
  const problems: string[] = [];
  for (const reg of Object.values(facts.registries)) {
    const id = REGISTRY_OF[reg.var];
    if (!id) continue;
    const theirs = new Set(reg.names.map((n) => n.name));
    if (t.release === '0.6.0') for (const n of OTHER_STORED_VERSIONS[reg.var]?.names ?? []) theirs.add(n);
    const ours = Object.keys(REGISTRIES[id].names).filter((n) => {
      const since = NAME_SINCE[id]?.[n];
      return !since || compareVersions(since, t.release) <= 0;
    });
    for (const n of reg.names)
      if (!ours.includes(n.name)) problems.push(`${where(reg.file, n.line)}: upstream ${reg.var} has '${n.name}'; ours lacks it at ${label(t)}`);
    for (const n of ours) if (!theirs.has(n)) problems.push(`${where(reg.file, reg.line)}: ours has ${reg.var} '${n}' at ${label(t)}; upstream lacks it`);
  }
  return problems;
}

const schema = buildTrinitySchema();

for (const t of TARGETS) {
  test(`Trinity-RFT ${label(t)}: every field of every dataclass from Config, with type, default and nesting, is ours and nothing else`, { skip }, () => {
    for (const f of t.files) assert.ok(fs.existsSync(f), f);
    assert.deepEqual(compareClasses(upstreamFacts(t.files), schema, t), []);
  });

  test(`Trinity-RFT ${label(t)}: every registry name`, { skip }, () => {
    const facts = upstreamFacts(t.registries);
    assert.ok(Object.keys(facts.registries).length >= 3, 'found the registries');
    assert.deepEqual(compareRegistries(facts, t), []);
  });
}

// The comparison itself can fail, both ways: a field deleted from our facts, and a field added
// (and a default changed) in a copy of upstream's file, are each reported with file and line.
for (const target of TARGETS) {
  test(`mutants at ${label(target)}: a field missing from our facts, a field added and a default changed upstream`, { skip }, (t) => {
    const facts = upstreamFacts(target.files);
    const ours = JSON.parse(JSON.stringify(schema)) as RootSchema;
    delete ours.definitions!.ExplorerConfig.properties!.max_timeout;
    const timeout = facts.classes.ExplorerConfig.fields.find((f) => f.name === 'max_timeout')!;
    assert.deepEqual(compareClasses(facts, ours, target), [
      `${where(timeout.file, timeout.line)}: upstream has ExplorerConfig.max_timeout (int); our ExplorerConfig lacks it at ${label(target)}`,
    ]);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-upstream-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const copy = path.join(dir, 'config.py');
    const lines = fs.readFileSync(target.files[0], 'utf8').split('\n');
    // a new field after max_timeout, and max_retry_times' default changed
    lines.splice(timeout.line, 0, '    max_timeout_grace: int = 30');
    const retry = facts.classes.ExplorerConfig.fields.find((f) => f.name === 'max_retry_times')!;
    const at = retry.line; // shifted down by the inserted line
    assert.match(lines[at], /max_retry_times: int = 2/);
    lines[at] = lines[at].replace('= 2', '= 5');
    fs.writeFileSync(copy, lines.join('\n'));
    const found = compareClasses(upstreamFacts([copy, ...target.files.slice(1)]), schema, target).map((p) => p.replace(copy, '<copy>'));
    assert.deepEqual(
      found.sort(),
      [
        `<copy>:${timeout.line + 1}: upstream has ExplorerConfig.max_timeout_grace (int); our ExplorerConfig lacks it at ${label(target)}`,
        `<copy>:${at + 1}: ExplorerConfig.max_retry_times default: upstream 5, ours 2 at ${label(target)}`,
      ].sort(),
    );
  });
}
