// Editor features on plain text: cursor paths, completion (keys with default snippets,
// registry values), hover (English and Chinese), definition, links, outline, quick fixes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { complete, contextPath } from '../../../../src/config/lsp/features/completion';
import { codeActions, toDiagnostics } from '../../../../src/config/lsp/features/diagnostics';
import { hover } from '../../../../src/config/lsp/features/hover';
import { definition, documentLinks } from '../../../../src/config/lsp/features/navigate';
import { documentSymbols } from '../../../../src/config/lsp/features/symbols';
import { PythonIndex } from '../../../../src/config/workspace/pyindex';
import { ENGLISH } from '../../../../src/config/core/l10n-text';
import { lineOf, run, tempDir, trinity, ZH } from '../helpers';

/** Text with `|` marking the cursor → [text, line, character]. */
function at(src: string): [string, number, number] {
  const i = src.indexOf('|');
  const text = src.slice(0, i) + src.slice(i + 1);
  const before = text.slice(0, i).split('\n');
  return [text, before.length - 1, before[before.length - 1].length];
}

test('cursor paths from indentation, including list items and half-typed documents', () => {
  assert.equal(contextPath(...at('buffer:\n  explorer_input:\n    |')), 'buffer.explorer_input');
  assert.equal(contextPath(...at('buffer:\n  explorer_input:\n    eval_tasksets:\n      - name: a\n        |')), 'buffer.explorer_input.eval_tasksets[0]');
  assert.equal(
    contextPath(...at('buffer:\n  explorer_input:\n    eval_tasksets:\n      - name: a\n      - name: b\n        spl|')),
    'buffer.explorer_input.eval_tasksets[1]',
  );
  assert.equal(contextPath(...at('algorithm:\n  algorithm_type: |')), 'algorithm.algorithm_type');
  assert.equal(contextPath(...at('algorithm:\n  algorithm_type: gr|\nbroken: [')), 'algorithm.algorithm_type');
  assert.equal(contextPath(...at('explorer:\n  auxiliary_models:\n  - model_path: x\n    engine_|')), 'explorer.auxiliary_models[0]');
});

test('completion: algorithm_type offers grpo with its doc', () => {
  const items = complete(...at('algorithm:\n  algorithm_type: |\n'), { kind: 'trinity', lang: ENGLISH });
  const grpo = items.find((i) => i.label === 'grpo');
  assert.ok(grpo, items.map((i) => i.label).join(','));
  assert.match(String((grpo.documentation as { value: string }).value), /GRPO/);
  assert.ok(items.some((i) => i.label === 'ppo') && items.some((i) => i.label === 'dpo'));
});

test('completion: keys of the section, with default-value snippets, minus keys already there', () => {
  const items = complete(...at('synchronizer:\n  sync_interval: 2\n  |\n'), { kind: 'trinity', lang: ENGLISH });
  const labels = items.map((i) => i.label);
  assert.ok(labels.includes('sync_method') && labels.includes('sync_timeout'));
  assert.ok(!labels.includes('sync_interval'), 'already present');
  const timeout = items.find((i) => i.label === 'sync_timeout')!;
  assert.equal(timeout.insertText, 'sync_timeout: ${1:3600}');
  const method = items.find((i) => i.label === 'sync_method')!;
  assert.match(String(method.insertText), /^sync_method: \$\{1\|nccl,checkpoint,memory,hccl\|\}$/);
  // with 0.5.2 in force, 0.6's `hccl` and keys are not offered
  const old = complete(...at('synchronizer:\n  sync_interval: 2\n  |\n'), { kind: 'trinity', lang: ENGLISH, trinityVersion: '0.5.2' });
  assert.match(String(old.find((i) => i.label === 'sync_method')!.insertText), /^sync_method: \$\{1\|nccl,checkpoint,memory\|\}$/);
  const model = (v?: string) =>
    complete(...at('explorer:\n  rollout_model:\n    |\n'), { kind: 'trinity', lang: ENGLISH, trinityVersion: v }).map((i) => i.label);
  assert.ok(model().includes('data_parallel_size') && !model('0.5.2').includes('data_parallel_size'));
  const sections = complete(...at('|'), { kind: 'trinity', lang: ENGLISH });
  const buffer = sections.find((i) => i.label === 'buffer')!;
  assert.equal(buffer.insertText, 'buffer:\n  $0');
});

test('completion: list items, enum values, booleans; workspace-registered names first', () => {
  let items = complete(...at('buffer:\n  explorer_input:\n    eval_tasksets:\n      - |'), { kind: 'trinity', lang: ENGLISH });
  assert.ok(items.some((i) => i.label === 'path') && items.some((i) => i.label === 'default_workflow_type'));
  items = complete(...at('synchronizer:\n  sync_style: |'), { kind: 'trinity', lang: ENGLISH });
  assert.deepEqual(items.map((i) => i.label).sort(), ['explorer_driven', 'fixed', 'fully_async', 'trainer_driven']);
  items = complete(...at('synchronizer:\n  sync_style: |'), { kind: 'trinity', lang: ENGLISH, trinityVersion: '0.5.2' });
  assert.deepEqual(items.map((i) => i.label).sort(), ['explorer_driven', 'fixed', 'trainer_driven']);
  const algos = (v?: string) => complete(...at('algorithm:\n  algorithm_type: |'), { kind: 'trinity', lang: ENGLISH, trinityVersion: v }).map((i) => i.label);
  assert.ok(algos().includes('gigpo') && !algos('0.5.2').includes('gigpo'));
  items = complete(...at('explorer:\n  eval_on_startup: |'), { kind: 'trinity', lang: ENGLISH });
  assert.deepEqual(items.map((i) => i.label).sort(), ['false', 'true']);
  const root = tempDir();
  fs.writeFileSync(path.join(root, 'wf.py'), '@WORKFLOWS.register_module("my_flow")\nclass MyFlow:\n    pass\n');
  const python = new PythonIndex().scan([root]);
  items = complete(...at('buffer:\n  explorer_input:\n    default_workflow_type: |'), { kind: 'trinity', lang: ENGLISH, python });
  const mine = items.find((i) => i.label === 'my_flow')!;
  assert.ok(mine && mine.sortText! < items.find((i) => i.label === 'math_workflow')!.sortText!);
});

test('completion works for ASTuner and AgentJet roots', () => {
  const items = complete(...at('ajet:\n  rollout:\n    |'), { kind: 'ajet', lang: ENGLISH });
  assert.ok(items.some((i) => i.label === 'user_workflow'));
  assert.ok(!items.some((i) => i.label === 'agentscope_workflow'));
  const readers = complete(...at('astuner:\n  task_reader:\n    type: |'), { kind: 'astuner', lang: ENGLISH });
  assert.ok(readers.some((i) => i.label === 'jsonl_dataset_file'));
});

test('hover: description, type and default — in Chinese for zh-cn', () => {
  const text = trinity();
  const a = run(text);
  const off = text.indexOf('sync_interval');
  const en = hover(a, off + 2, ENGLISH)!;
  assert.match((en.contents as { value: string }).value, /\*\*synchronizer\.sync_interval\*\*: `int`/);
  assert.match((en.contents as { value: string }).value, /Sync weights every N steps/);
  assert.match((en.contents as { value: string }).value, /Default: `1`/);
  const zh = hover(a, off + 2, ZH)!;
  assert.match((zh.contents as { value: string }).value, /每 N 步同步一次权重/);
  assert.match((zh.contents as { value: string }).value, /默认值/);
  const v = hover(a, text.indexOf('grpo') + 1, ENGLISH)!;
  assert.match((v.contents as { value: string }).value, /group-relative/);
});

test('hover: an interpolation shows its resolved value', () => {
  const text = trinity({ model: { model_path: '${oc.env:AGENTRL_HOVER_TEST,Qwen/Qwen2.5-7B}' } });
  const h = hover(run(text), text.indexOf('AGENTRL_HOVER_TEST'), ENGLISH)!;
  assert.match((h.contents as { value: string }).value, /Resolves to `"Qwen\/Qwen2\.5-7B"`/);
});

test('definition: a workspace workflow name jumps to its class; an interpolation to its key', () => {
  const root = tempDir();
  fs.writeFileSync(path.join(root, 'wf.py'), 'import x\n\n@WORKFLOWS.register_module("my_flow")\nclass MyFlow:\n    pass\n');
  const python = new PythonIndex().scan([root]);
  const text = trinity({ buffer: { explorer_input: { default_workflow_type: 'my_flow' } }, project: '${name}' });
  const a = run(text, { file: path.join(root, 'c.yaml'), roots: [root], python });
  const [loc] = definition(a, text.indexOf('my_flow') + 2, { python, roots: [root] });
  assert.ok(loc?.uri.endsWith('/wf.py'), JSON.stringify(loc));
  assert.deepEqual(loc.range.start, { line: 3, character: 6 });
  const [ref] = definition(a, text.indexOf('${name}') + 3, { python, roots: [root] });
  assert.equal(ref.range.start.line, lineOf(text, 'name: base'));
});

test('document links: existing local datasets and workspace classes', () => {
  const root = tempDir();
  fs.mkdirSync(path.join(root, 'data'));
  fs.writeFileSync(path.join(root, 'data', 'train.jsonl'), '{}\n');
  fs.writeFileSync(path.join(root, 'wf.py'), '@WORKFLOWS.register_module("my_flow")\nclass MyFlow:\n    pass\n');
  const python = new PythonIndex().scan([root]);
  const text = trinity({ buffer: { explorer_input: { taskset: { path: 'data/train.jsonl' }, default_workflow_type: 'my_flow' } } });
  const links = documentLinks(run(text, { file: path.join(root, 'c.yaml'), roots: [root], python }), { python, roots: [root] });
  assert.ok(
    links.some((l) => l.target!.endsWith('/data/train.jsonl')),
    JSON.stringify(links),
  );
  assert.ok(
    links.some((l) => /\/wf\.py#L2,7$/.test(l.target!)),
    JSON.stringify(links),
  );
  assert.ok(!links.some((l) => l.target!.includes('gsm8k')), 'a Hugging Face id is not a file link');
});

test('outline: sections with their keys; list items named by `name`', () => {
  const text = trinity({ buffer: { explorer_input: { eval_tasksets: [{ name: 'gsm8k-test', path: 'openai/gsm8k' }] } } });
  const symbols = documentSymbols(run(text));
  const names = symbols.map((s) => s.name);
  assert.ok(['mode', 'algorithm', 'buffer', 'explorer', 'trainer'].every((n) => names.includes(n)));
  const buffer = symbols.find((s) => s.name === 'buffer')!;
  assert.equal(buffer.kind, 2, 'a section is a module');
  const evals = buffer.children!.find((s) => s.name === 'explorer_input')!.children!.find((s) => s.name === 'eval_tasksets')!;
  assert.equal(evals.children![0].name, '[0] gsm8k-test');
});

test('diagnostics carry related information; code actions apply the quick fix', () => {
  const text = trinity({ model: { max_response_tokens: 600 } });
  const a = run(text);
  const uri = 'file:///ws/c.yaml';
  const diags = toDiagnostics(a, ENGLISH, () => uri);
  const d = diags.find((x) => x.code === 'trinity.length.exceeds-max-model-len' && x.range.start.line === lineOf(text, 'max_model_len'))!;
  assert.equal(d.severity, 1);
  assert.equal(d.relatedInformation?.length, 2);
  // a rule about several keys marks each of them, linked back to where it is reported
  const others = diags.filter((x) => x.code === d.code && x !== d);
  assert.deepEqual(others.map((x) => x.range.start.line).sort(), [lineOf(text, 'max_prompt_tokens'), lineOf(text, 'max_response_tokens')].sort());
  for (const o of others) {
    assert.equal(o.severity, 1);
    assert.ok(
      o.relatedInformation!.some((r) => r.location.range.start.line === d.range.start.line),
      'links to the primary',
    );
  }
  assert.ok(
    d.relatedInformation.every((r) => others.some((o) => o.range.start.line === r.location.range.start.line)),
    'the primary links to each',
  );
  const actions = codeActions(a, uri, d.range, ENGLISH, () => uri);
  const fix = actions.find((x) => x.title === 'Set max_model_len to 1112')!;
  assert.ok(fix.isPreferred);
  assert.deepEqual(fix.edit!.changes![uri][0].newText, '1112');
  const zh = codeActions(a, uri, d.range, ZH, () => uri);
  assert.ok(zh.some((x) => x.title === '将 max_model_len 设为 1112'));
  assert.deepEqual(
    codeActions(a, uri, d.range, ENGLISH, () => uri, ['refactor']),
    [],
  );
});
