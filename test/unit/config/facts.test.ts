// Upstream's own Trinity-RFT 0.6 example configs (../shared/corpus/trinity-rft-0.6/, with
// its provenance; skipped without ../shared) validate clean with 0.6 in force; with 0.5.2 in force the 0.6 things they use
// are named as such, never "Unknown key" or "unregistered". Reasoning per 0.6 validator for
// each file: none of them is rejected by 0.6's own validators —
//   RayClusterConfigValidator (GPU budget, DP × TP × PP): gigpo 2×2 of 8 GPUs (trainer 4,
//     train_batch_size 7680 % 4 = 0), intercode_sql 2×2 of 8, dapo 4×1 of 8, rlcr 2×1 of 8,
//     openjudge 1×1 of 2, m2po `mode: explore` 4×1 of 4 (≤ total, allowed in explore mode);
//     no engine spans nodes, so the multi-node / vLLM-DP / SGLang checks do not apply.
//   ExplorerConfigValidator: no over_rollout, no return_partial_tasks.
//   ModelConfigValidator: max_prompt + max_response ≤ max_model_len where all three are set.
// What we still report and why: dapo's `model_path: ${oc.env:TRINITY_MODEL_PATH}` has no
// default (information: set it where it runs); the taskset directories of gigpo and
// intercode_sql are data upstream does not ship (paths are not checked here).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { analyze, type Analysis } from '../../../src/config/engine/engine';
import { hasShared, sharedDir } from '../../harness/paths';
import { describe, en } from './helpers';

const dir = path.join(sharedDir, 'corpus', 'trinity-rft-0.6');
const skip = !hasShared && 'needs ../shared/corpus';
const files = hasShared
  ? fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .sort()
  : [];

function check(file: string, trinityVersion: string): Analysis {
  const full = path.join(dir, file);
  return analyze(fs.readFileSync(full, 'utf8'), full, { trinityVersion, roots: [dir], checkPaths: false, env: {} });
}

test('upstream 0.6 examples: six configs', { skip }, () => {
  assert.equal(files.length, 6);
});

for (const file of files) {
  test(`upstream 0.6 example ${file}: clean with 0.6 in force`, () => {
    const a = check(file, '0.6.0');
    assert.equal(a.kind, 'trinity');
    const bad = a.findings.filter((f) => f.severity !== 'info');
    assert.deepEqual(
      bad.map((f) => f.code),
      [],
      describe(a),
    );
  });
}

test('upstream 0.6 examples with 0.5.2 in force: each 0.6 thing they use is named, nothing is "unknown"', { skip }, () => {
  const expected: Record<string, string[]> = {
    'dapo_math__dapo.yaml': ['version.newer-name:dapo', 'version.newer-name:mask_response_truncated', 'version.newer-name:dapo_dynamic_sampling'],
    'gigpo_alfworld__gigpo.yaml': ['version.newer-name:gigpo', 'version.newer-name:gigpo'],
    'grpo_gsm8k_openjudge__gsm8k.yaml': ['version.newer-name:trajectory_accuracy_grader_reward'],
    'grpo_intercode_sql__intercode_sql.yaml': ['version.newer-name:intercode_sql_workflow'],
    'm2po_gsm8k__explorer.yaml': ['version.newer-name:m2po', 'version.newer-key:bypass_old_logprobs'],
    'rlcr_math__rlcr_math.yaml': ['version.newer-name:rlcr_reward'],
  };
  for (const file of files) {
    const a = check(file, '0.5.2');
    const got = a.findings
      .filter((f) => f.severity !== 'info')
      .map(
        (f) =>
          `${f.code}:${a.text
            .slice(f.span.start, f.span.end)
            .replace(/^['"]|['"]$/g, '')
            .split('.')
            .pop()}`,
      );
    assert.deepEqual(got, expected[file], `${file}\n${describe(a)}`);
    for (const f of a.findings)
      assert.match(en(f.message), /needs Trinity-RFT ≥ 0\.6; this workspace has 0\.5\.2|Environment variable|eval_interval/, en(f.message));
  }
});
