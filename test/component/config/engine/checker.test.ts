// The ConfigChecker other features get injected: through the source, and through the
// bundled dist/config-engine.js the extension loads lazily.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import type { ConfigChecker } from '../../../../src/feature-api/config-checker';
import { createConfigChecker } from '../../../../src/config/engine/checker';
import { repoRoot } from '../../../harness/paths';
import { tempDir, trinity } from '../../../unit/config/helpers';

async function exercise(checker: ConfigChecker, dir: string) {
  const file = path.join(dir, 'c.yaml');
  fs.writeFileSync(file, trinity({ model: { model_path: '${oc.env:AGENTRL_CHECKER_MODEL,Qwen/Qwen2.5-0.5B-Instruct}', max_response_tokens: 600 } }));
  const r = await checker.check(file);
  assert.equal(r.kind, 'trinity');
  const all = r.diagnostics.filter((x) => x.code === 'trinity.length.exceeds-max-model-len');
  const d = all.find((x) => x.path === 'model.max_model_len')!;
  assert.equal(d.severity, 'error');
  // every key the rule is about is marked
  assert.deepEqual(all.map((x) => x.path).sort(), ['model.max_model_len', 'model.max_prompt_tokens', 'model.max_response_tokens']);
  assert.equal(typeof d.range.start.line, 'number');
  const resolved = r.resolved as { model: { model_path: string } };
  assert.equal(resolved.model.model_path, 'Qwen/Qwen2.5-0.5B-Instruct', 'interpolations resolved');
  // unsaved text overrides the file
  const r2 = await checker.check(file, trinity());
  assert.deepEqual(
    r2.diagnostics.filter((x) => x.severity === 'error'),
    [],
  );
  const other = await checker.check(file, 'apiVersion: v1\nkind: Pod\n');
  assert.deepEqual([other.kind, other.diagnostics, other.resolved], [null, [], undefined]);
  fs.writeFileSync(path.join(dir, 'bin.yaml'), Buffer.from([0, 1, 2, 3]));
  const bin = await checker.check(path.join(dir, 'bin.yaml'));
  assert.equal(bin.diagnostics[0].code, 'input.binary');
}

test('createConfigChecker (source)', async () => {
  const dir = tempDir();
  await exercise(createConfigChecker({ roots: [dir] }), dir);
});

test('dist/config-engine.js exports the same factory', async () => {
  const bundle = path.join(repoRoot, 'dist', 'config-engine.js');
  assert.ok(fs.existsSync(bundle), 'built by esbuild');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(bundle) as { createConfigChecker: typeof createConfigChecker };
  const dir = tempDir();
  await exercise(mod.createConfigChecker({ roots: [dir] }), dir);
});
