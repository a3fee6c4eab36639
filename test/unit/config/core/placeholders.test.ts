// Mistakes seen on the upstream corpus: an unrendered template gets one
// clear diagnostic, a value set through an unset `${oc.env:X}` is unknown (never "missing"),
// and a rule about several keys marks each of them.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { codes, en, expectFinding, expectNo, lineOf, run, trinity } from '../helpers';

// the shape of AgentJet's templated tutorial configs: values filled by a script before launch
const TEMPLATE = [
  'ajet:',
  '  project_name: {{PROJECT}}',
  '  model:',
  '    path: {{MODEL_PATH}}',
  '  rollout:',
  '    user_workflow: {{WORKFLOW}}',
  '    n_vllm_engine: {{N_ENGINES}}',
  '  task_reader:',
  '    type: jsonl_dataset_file',
  '',
].join('\n');

test('template placeholders: one diagnostic, not one parse error per line', () => {
  const a = run(TEMPLATE);
  assert.equal(a.kind, 'ajet', 'still recognised as an AgentJet config');
  assert.deepEqual(codes(a), ['input.template-placeholder']);
  const f = expectFinding(a, 'input.template-placeholder', { line: 1 });
  assert.match(en(f.message), /^Template placeholder: render this file first\. It has 4 unfilled/);
  assert.match(en(f.message), /`\{\{PROJECT\}\}`, `\{\{MODEL_PATH\}\}`/);
  assert.equal(f.related?.length, 3, 'the other placeholders are linked');
  assert.equal(TEMPLATE.slice(f.span.start, f.span.end), '{{PROJECT}}');
});

test('template placeholders: quoted ones too; comments and other templated YAML are left alone', () => {
  const quoted = trinity({ model: { model_path: '{{MODEL}}' } });
  expectFinding(run(quoted), 'input.template-placeholder', { severity: 'warning', line: lineOf(quoted, 'model_path') });
  const commented = `${trinity()}# fill {{MODEL}} before launch\n`;
  expectNo(run(commented), 'input.template-placeholder');
  const helm = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\n  labels: {{LABELS}}\n';
  const a = run(helm);
  assert.equal(a.kind, null);
  assert.deepEqual(a.findings, []);
});

test('${oc.env:X} with X unset is unknown, never missing: DPO experience-buffer path', () => {
  const text = trinity({
    mode: 'train',
    algorithm: { algorithm_type: 'dpo' },
    buffer: {
      train_batch_size: 8,
      explorer_input: { taskset: undefined },
      trainer_input: { experience_buffer: { name: 'dpo', storage_type: 'file', path: '${oc.env:AGENTRL_UNSET_DPO_DATA}' } },
    },
  });
  const a = run(text, { env: {} });
  expectNo(a, 'trinity.algorithm.dataset-path');
  // really missing is still reported
  const missing = run(text.replace('    path: ${oc.env:AGENTRL_UNSET_DPO_DATA}\n', ''), { env: {} });
  expectFinding(missing, 'trinity.algorithm.dataset-path', { severity: 'error' });
  // and set through the env, it is known
  expectNo(run(text, { env: { AGENTRL_UNSET_DPO_DATA: '/data/dpo.jsonl' } }), 'trinity.algorithm.dataset-path');
});

test('a rule about several keys marks every written key involved, linked both ways', () => {
  // over-rollout with the fixed sync style: ratio and sync_style both take part
  const text = trinity({ explorer: { over_rollout: { ratio: 0.5 } }, synchronizer: { sync_style: 'fixed' } });
  const a = run(text);
  const all = a.findings.filter((f) => f.code === 'trinity.explorer.over-rollout-sync-style');
  assert.deepEqual(
    all.map((f) => a.lines.position(f.span.start).line).sort((x, y) => x - y),
    [lineOf(text, 'ratio: 0.5'), lineOf(text, 'sync_style: fixed')].sort((x, y) => x - y),
  );
  const [primary] = all.filter((f) => f.path === 'explorer.over_rollout.ratio');
  const other = all.find((f) => f !== primary)!;
  assert.ok(primary.related!.some((r) => r.span!.start === other.span.start));
  assert.ok(other.related!.some((r) => r.span!.start === primary.span.start));
  assert.equal(other.severity, 'error');
  // a key only defaulted (not written) gets no mark of its own
  const implicit = trinity({ explorer: { over_rollout: { ratio: 0.5 } } });
  assert.equal(run(implicit).findings.filter((f) => f.code === 'trinity.explorer.over-rollout-sync-style').length, 1);
});
