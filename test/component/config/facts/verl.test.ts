// The Trinity keys our verl ≥ 0.8 warning names (src/config/facts/verl.ts) are the ones
// trinity/trainer/verl08/config.py (pan-x-c/Trinity-RFT @ 1044a111, ../shared) reads to build
// veRL's config, and each exists in our 0.6 facts. Skipped without ../shared.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { TRINITY_KEY_FOR_VERL } from '../../../../src/config/facts/verl';
import { presentAt } from '../../../../src/config/facts/field-at';
import { schemaAt } from '../../../../src/config/schema/schemas';
import { hasShared, sharedDir } from '../../../harness/paths';

const skip = !hasShared && 'needs ../shared/upstream';
const VERL08 = path.join(sharedDir, 'upstream', 'trinity-rft-0.6-files', 'pan-x-c@1044a111', 'trinity', 'trainer', 'verl08', 'config.py');

/** How verl08/config.py spells a read of a Trinity key (`cfg.trainer.x`; the optimizer as `trinity_optim.x`). */
const spelled = (key: string) => (key.startsWith('algorithm.optimizer.') ? `trinity_optim.${key.slice('algorithm.optimizer.'.length)}` : `cfg.${key}`);

test('every Trinity key the verl ≥ 0.8 warning names is read by verl08/config.py and is a 0.6 field of ours', { skip }, () => {
  const source = fs.readFileSync(VERL08, 'utf8');
  assert.match(source, /def build_verl_config\(global_config: Config\)/);
  const unread = [...new Set(TRINITY_KEY_FOR_VERL.map(([, k]) => k))].filter((k) => !new RegExp(`\\b${spelled(k).replace(/\./g, '\\.')}\\b`).test(source));
  assert.deepEqual(unread, [], 'keys verl08/config.py does not read');
  const missing = [...new Set(TRINITY_KEY_FOR_VERL.map(([, k]) => k))].filter((k) => {
    const node = schemaAt('trinity', k.split('.'));
    return !node || !presentAt(node, '0.6.0');
  });
  assert.deepEqual(missing, []);
});
