// The release lines are the single source of the Trinity facts: the published schema is the
// 0.5 line with the deltas applied (regenerate with `npm run gen:schemas`), every 0.6 key,
// value and name is marked with its release, and hover / completion read the same facts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { buildTrinitySchema, TRINITY_DELTAS, valueSince } from '../../../../src/config/facts/releases';
import { NAME_SINCE, REGISTRIES } from '../../../../src/config/names/registries';
import { LATEST_TRINITY, schemaAt, TRINITY_VERSIONS } from '../../../../src/config/schema/schemas';
import { hover } from '../../../../src/config/lsp/features/hover';
import { run, trinity, ZH } from '../helpers';
import { ENGLISH } from '../../../../src/config/core/l10n-text';
import { readJson } from '../../../harness/json';
import { repoRoot } from '../../../harness/paths';

const published = path.join(repoRoot, 'schemas', 'trinity-rft.schema.json');

test('schemas/trinity-rft.schema.json is generated from the release lines', () => {
  const built = `${JSON.stringify(buildTrinitySchema(), null, 1)}\n`;
  if (process.env.AGENTRL_WRITE_SCHEMAS === '1') fs.writeFileSync(published, built);
  assert.equal(fs.readFileSync(published, 'utf8'), built, 'run `npm run gen:schemas`');
});

test('0.6 is the newest release we know, after 0.5.2', () => {
  assert.equal(LATEST_TRINITY, '0.6.0');
  assert.deepEqual(TRINITY_VERSIONS.slice(-2), ['0.5.2', '0.6.0']);
  type Section = { properties: Record<string, { enum: string[] } | undefined> };
  const pkg = readJson<{ contributes: { configuration: Section | Section[] } }>(path.join(repoRoot, 'package.json'));
  const setting = [pkg.contributes.configuration].flat().find((c) => c.properties['agentrl.config.trinityVersion'])?.properties[
    'agentrl.config.trinityVersion'
  ];
  assert.ok(setting?.enum.includes('0.6.0'), 'package.json setting lists 0.6.0');
});

test('every delta key, value and name carries its release', () => {
  for (const d of TRINITY_DELTAS) {
    for (const [cls, keys] of Object.entries(d.keys)) {
      for (const k of Object.keys(keys)) {
        const node = buildTrinitySchema().definitions![cls].properties![k];
        assert.equal(node['x-since'], d.version, `${cls}.${k}`);
      }
    }
    for (const v of d.values)
      for (const value of v.add) assert.equal(valueSince(buildTrinitySchema().definitions![v.cls].properties![v.key], value), d.version);
    for (const [reg, names] of Object.entries(d.registries)) {
      for (const n of Object.keys(names)) {
        assert.equal(NAME_SINCE[reg as keyof typeof NAME_SINCE]?.[n], d.version);
        assert.ok(REGISTRIES[reg as keyof typeof REGISTRIES].names[n], `${reg}.${n} documented`);
      }
    }
  }
  // the navigator sees the merged schema
  assert.equal(schemaAt('trinity', ['explorer', 'rollout_model', 'data_parallel_size'])?.['x-since'], '0.6.0');
  assert.ok(schemaAt('trinity', ['synchronizer', 'sync_style'])?.['x-enum']?.values.includes('fully_async'));
  assert.match(schemaAt('trinity', ['ray_namespace'])?.description ?? '', /<project>\/<group>\/<name>/);
});

test('hover and completion read the same facts: a 0.6 name, a 0.6 value, TRINITY_MAX_EXP_SIZE', () => {
  const text = trinity({
    algorithm: { algorithm_type: 'gigpo' },
    synchronizer: { sync_style: 'fully_async' },
    explorer: { env_vars: { TRINITY_MAX_EXP_SIZE: '64MB' } },
  });
  const a = run(text);
  const h = (needle: string) => (hover(a, text.indexOf(needle) + 2, ENGLISH)!.contents as { value: string }).value;
  assert.match(h('gigpo'), /GiGPO[\s\S]*Since Trinity-RFT 0\.6\.0/);
  assert.match(h('fully_async'), /`fully_async` since Trinity-RFT 0\.6\.0/);
  assert.match(h('TRINITY_MAX_EXP_SIZE'), /Trinity-RFT environment variable[\s\S]*Since Trinity-RFT 0\.6\.0/);
  const zh = (hover(a, text.indexOf('TRINITY_MAX_EXP_SIZE') + 2, ZH)!.contents as { value: string }).value;
  assert.match(zh, /自 Trinity-RFT 0\.6\.0 起/);
});
