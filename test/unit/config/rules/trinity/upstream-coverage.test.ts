// The coverage list — which of Trinity-RFT's own checks each rule transcribes, which are checked
// elsewhere, which are not and why — is generated from the rules into
// schemas/trinity-rft.validators.json (`npm run gen:schemas`). Against upstream's files it is
// checked by test/component/config/rules/trinity/upstream-coverage.test.ts.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { TRINITY_RULES } from '../../../../../src/config/engine/engine';
import { coverageList } from '../../../../../src/config/rules/trinity/upstream-coverage';
import { repoRoot } from '../../../../harness/paths';

const published = path.join(repoRoot, 'schemas', 'trinity-rft.validators.json');

test('schemas/trinity-rft.validators.json is generated from the rules', () => {
  const built = `${JSON.stringify(coverageList(TRINITY_RULES), null, 1)}\n`;
  if (process.env.AGENTRL_WRITE_SCHEMAS === '1') fs.writeFileSync(published, built);
  assert.equal(fs.readFileSync(published, 'utf8'), built, 'run `npm run gen:schemas`');
});

test('every entry says how the check is covered, and names rules that exist', () => {
  const list = coverageList(TRINITY_RULES);
  const ids = new Set(TRINITY_RULES.map((r) => r.id));
  for (const e of list) {
    assert.ok(e.rules || e.elsewhere || e.reason, e.check);
    for (const r of e.rules ?? []) assert.ok(ids.has(r), `${e.check}: ${r}`);
  }
  // the 0.6 checks this release added each have their rule
  const of = (check: string) => list.find((e) => e.check === check)?.rules ?? [];
  assert.deepEqual(of('ExplorerConfigValidator._validate_inference_parallel_config'), ['trinity.engine.parallel-min']);
  assert.deepEqual(of('M2POAlgorithm.check_config'), ['trinity.algorithm.m2po']);
  assert.ok(of('IntervalConfigValidator.validate').includes('trinity.sync'));
});
