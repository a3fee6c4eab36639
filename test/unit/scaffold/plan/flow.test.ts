// The wizard's steps as data: which are shown, where Back goes, and how answers are checked.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, test } from 'node:test';
import {
  DEFAULT_MODEL,
  answer,
  check,
  checkPresets,
  isBrowse,
  move,
  normalizePresets,
  wizardSteps,
  type WizardContext,
} from '../../../../src/scaffold/plan/flow';
import { english } from '../../../../src/base/l10n';
import { readTemplateDir } from '../../../../src/scaffold/templates/template-dir';
import { parseTemplateSet } from '../../../../src/scaffold/templates/template-set';
import { checkDataFile } from '../../../../src/scaffold/plan/validate';
import { repoRoot } from '../../../harness/paths';
import { tempDir } from '../helpers';

const set = parseTemplateSet(readTemplateDir(path.join(repoRoot, 'templates')));
const ws = tempDir();
fs.mkdirSync(path.join(ws, 'math_agent'));
after(() => fs.rmSync(ws, { recursive: true, force: true }));

function ctx(over: Partial<WizardContext> = {}): WizardContext {
  return {
    set,
    lang: 'en',
    l10n: english,
    folders: [{ name: 'ws', path: ws }],
    exists: (p) => fs.existsSync(p),
    checkData: (file, template) =>
      checkDataFile(path.basename(file), fs.readFileSync(file, 'utf8'), set.templates.find((t) => t.id === template)!.dataKeys, english),
    ...over,
  };
}

const steps = wizardSteps(ctx());
const at = (id: string) => steps.findIndex((s) => s.id === id);

test('six steps in the order of the issue: framework, template, name, folder, model, data', () => {
  assert.deepEqual(
    steps.map((s) => s.id),
    ['framework', 'template', 'name', 'target', 'model', 'data'],
  );
  assert.deepEqual(
    steps.map((s) => s.kind),
    ['pick', 'pick', 'input', 'pick', 'input', 'pick'],
  );
});

test('framework choices are the frameworks with templates, labelled in the display language', () => {
  const framework = steps[0];
  assert.equal(framework.kind, 'pick');
  if (framework.kind !== 'pick') return;
  assert.deepEqual(
    framework.choices({}).map((c) => c.value),
    ['trinity', 'astuner', 'ajet', 'agentscope'],
  );
  const zh = wizardSteps(ctx({ lang: 'zh-cn' }))[0];
  assert.ok(zh.kind === 'pick' && zh.choices({}).some((c) => c.label === 'ASTuner（AgentScope Tuner）'));
});

test('pick texts are plain (a quick pick shows `astuner:` with its backticks)', () => {
  for (const lang of ['en', 'zh-cn'] as const) {
    const [framework, template] = wizardSteps(ctx({ lang }));
    assert.ok(framework.kind === 'pick' && template.kind === 'pick');
    const choices = [...framework.choices({}), ...set.frameworks.flatMap((f) => template.choices({ framework: f.id }))];
    assert.ok(choices.length > 5);
    for (const c of choices) for (const t of [c.label, c.description, c.detail]) assert.doesNotMatch(t ?? '', /`/, `${lang}: ${t}`);
  }
});

test('a framework with one template skips the template step, both going forward and Back', () => {
  const c = ctx();
  const astuner = answer('framework', {}, 'astuner', c);
  assert.equal(astuner.template, 'astuner-math', 'the only template is chosen');
  assert.equal(move(steps, at('framework'), 1, astuner, c), at('name'));
  assert.equal(move(steps, at('name'), -1, astuner, c), at('framework'));
  const trinity = answer('framework', {}, 'trinity', c);
  assert.equal(trinity.template, undefined);
  assert.equal(move(steps, at('framework'), 1, trinity, c), at('template'));
  assert.equal(move(steps, at('name'), -1, { ...trinity, template: 'trinity-react' }, c), at('template'));
  assert.equal(move(steps, at('framework'), -1, trinity, c), -1, 'Back from the first step leaves the flow');
  assert.equal(move(steps, at('data'), 1, trinity, c), steps.length);
});

test('changing the framework after Back drops a template of the other framework', () => {
  const c = ctx();
  const a = answer('template', answer('framework', {}, 'trinity', c), 'trinity-toolcall', c);
  assert.equal(answer('framework', a, 'trinity', c).template, 'trinity-toolcall');
  assert.equal(answer('framework', a, 'agentscope', c).template, 'agentscope-tuner');
});

test('the name step suggests a free name and checks the folder it would create', () => {
  const c = ctx();
  const name = steps[at('name')];
  assert.ok(name.kind === 'input');
  if (name.kind !== 'input') return;
  assert.equal(name.initial({ template: 'trinity-math' }), 'math_agent_2', 'math_agent exists in the workspace');
  assert.equal(name.initial({ template: 'trinity-react' }), 'react_agent');
  assert.match(check('name', { name: 'math_agent' }, c)!, /math_agent already exists in/);
  assert.match(check('name', { name: '../x' }, c)!, /not a folder name/);
  assert.match(check('name', { name: 'class' }, c)!, /Python keyword/);
  assert.equal(check('name', { name: 'fresh_agent' }, c), undefined);
});

test('the folder step offers the Explorer folder first, the workspace folders, then Browse…', () => {
  const sub = path.join(ws, 'math_agent');
  const c = ctx({ preferredTarget: sub });
  const target = wizardSteps(c)[at('target')];
  assert.ok(target.kind === 'pick');
  if (target.kind !== 'pick') return;
  const choices = target.choices({});
  assert.deepEqual(
    choices.map((x) => (isBrowse(x.value) ? 'browse' : x.value)),
    [sub, ws, 'browse'],
  );
  assert.match(check('target', answer('target', { name: 'math_agent' }, ws, c), c)!, /already exists/);
  assert.match(check('target', { name: 'x', target: path.join(ws, 'nope') }, c)!, /does not exist/);
  assert.equal(check('target', { name: 'x', target: sub }, c), undefined);
});

test('model defaults to a small instruct model and is checked', () => {
  const model = steps[at('model')];
  assert.ok(model.kind === 'input' && model.initial({}) === DEFAULT_MODEL);
  assert.match(check('model', answer('model', {}, ' my model ', ctx()), ctx())!, /cannot hold unquoted/);
  assert.equal(answer('model', {}, ' Qwen/Q ', ctx()).model, 'Qwen/Q');
});

test("data: the bundled sample, or a JSONL file checked against the template's keys", () => {
  const c = ctx();
  const data = steps[at('data')];
  assert.ok(data.kind === 'pick');
  if (data.kind !== 'pick') return;
  const choices = data.choices({ template: 'ajet-countdown' });
  assert.equal(choices[0].value, 'sample');
  assert.match(choices[0].detail!, /17 real Countdown rows/);
  assert.match(choices[1].detail!, /main_query, target, nums/);
  const file = path.join(ws, 'rows.jsonl');
  fs.writeFileSync(file, '{"question": "q"}\n');
  const picked = answer('data', { template: 'trinity-math' }, file, c);
  assert.deepEqual(picked.data, { kind: 'file', path: file });
  assert.match(check('data', picked, c)!, /missing answer/);
  assert.equal(check('data', answer('data', { template: 'trinity-math' }, 'sample', c), c), undefined);
});

test('preset answers: the framework follows from the template; the first bad answer is reported', () => {
  const c = ctx();
  const p = normalizePresets({ template: 'ajet-countdown', name: 'cd', target: ws, model: DEFAULT_MODEL, data: { kind: 'sample' } }, c);
  assert.equal(p.framework, 'ajet');
  assert.equal(checkPresets(p, c), undefined);
  assert.equal(normalizePresets({ framework: 'agentscope' }, c).template, 'agentscope-tuner');
  assert.deepEqual(checkPresets(normalizePresets({ template: 'trinity-math', name: '../x', target: ws }, c), c), {
    step: 'name',
    message: english.t("'{0}' is not a folder name: the project is created inside the target folder, so use a plain name such as math_agent.", '../x'),
  });
  assert.equal(checkPresets({ framework: 'ajet', template: 'trinity-math' }, c)?.step, 'template');
  assert.equal(checkPresets({ template: 'nope' }, c)?.step, 'template');
  assert.equal(checkPresets({ template: 'trinity-math', name: 'math_agent', target: ws }, c)?.step, 'name');
});
